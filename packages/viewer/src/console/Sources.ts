/**
 * Dataset sources as the console shows them: what a dataset reads, in
 * words, and how new rows come to it — a file sent on its screen (rows
 * `loaded` into the service's own tables) or its table read again
 * (`in-place`), as core's table of source types (`Dataset.sourceTypes`)
 * says. The browser imports core for types only (its size budget), so it
 * keeps this copy of the one column it needs, which the compiler holds to
 * the table: a source type the table adds or drops, or one whose `rows` it
 * changes, fails to compile here.
 *
 * @since 0.1.0
 */
import type { Dataset } from "@analytics/core"
import { msg } from "../i18n/msg.ts"

/** A dataset's source, as the API shows it. */
export type Source = Dataset.DatasetSource

/** How each source type's rows come, as core's table says. */
const rows = {
  upload: "loaded",
  postgres: "in-place"
} as const satisfies { readonly [T in Dataset.SourceType]: Dataset.SourceTypes[T]["rows"] }

/** A source type whose rows are sent as files. */
type LoadedType = { readonly [T in keyof typeof rows]: (typeof rows)[T] extends "loaded" ? T : never }[keyof typeof rows]

/** What a dataset of each source type reads, in words: a type without its words fails to compile here. */
const words: { readonly [T in Dataset.SourceType]: (source: Extract<Source, { readonly type: T }>) => string } = {
  upload: () => msg("dataset.source.upload"),
  postgres: (source) => msg("dataset.source.postgres", { table: [source.schema, source.table].filter(Boolean).join(".") })
}

/** What a dataset reads, in words. */
export const sourceWords = (source: Source): string =>
  // The row of the source's own type, which the compiler cannot pair with the union `source` is.
  (words[source.type] as (source: Source) => string)(source)

/** Whether new rows come to a dataset as a file sent (an upload), rather than by reading its table again (a refresh). */
export const takesFiles = (source: Source): boolean => rows[source.type] === "loaded"

/**
 * The source of the datasets the console creates: one whose rows are sent
 * as files (its form asks for no table; the file is sent on the dataset's
 * screen next). A source type held to be one of the loaded ones.
 */
export const createdSource: Extract<Source, { readonly type: LoadedType }> = { type: "upload" }
