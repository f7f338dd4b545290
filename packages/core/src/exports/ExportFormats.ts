/**
 * The export formats (decision 0015), in one table: each format's media
 * type, file extension, what it makes a file of, who makes it, the engine
 * writer it needs and what it holds in words. `ExportJob`'s request schema, the document renderers'
 * registry (`DocumentRenderers`), the files core makes itself
 * (`ExportFiles`), the checks of a request (`Exports`), the API's text and
 * the console's list all derive from it: a new format is a row here, its
 * renderer (a document renderer, or core's maker in `ExportFiles`) and
 * its tests; the compiler names each place that lacks it.
 *
 * @since 0.1.0
 */
import type { Writer } from "../datasets/AnalyticsEngine.ts"

/**
 * What a format makes a file of: the whole `report` (or its chosen pages),
 * one `visual`'s picture, or one visual's `dataset` (its rows, or the SQL
 * of its query).
 */
export type Renders = "report" | "visual" | "dataset"

/**
 * Who makes a format's file: a document `renderer` (an adapter, given as
 * `DocumentRenderers`; the format is refused where the deployment has
 * none), or `core` itself from the dataset's engine.
 */
export type MadeBy = "renderer" | "core"

/**
 * The writer a format needs from the engine of the visual's dataset, and
 * who has one in words: a request for the format on a dataset whose engine
 * lacks it is refused when asked (`Exports.check`), never accepted and
 * then failed.
 */
export interface EngineNeed {
  readonly writer: Writer
  /** Who writes the format, in words (`the DuckDB engine`). */
  readonly by: string
}

/** One row of the table. */
export interface Spec {
  /** The file's media type, as its `Content-Type`. */
  readonly mediaType: string
  /** The file name's extension, without the dot. */
  readonly extension: string
  readonly renders: Renders
  readonly madeBy: MadeBy
  /** Whether the format draws a watermark into the file: all a watermarked grant or share exports (decision 0014). */
  readonly watermarked: boolean
  /** Whether the format prints a total row under a visual's rows, so its view carries the totals (`ReportViews.Request.totals`). */
  readonly totals: boolean
  /** The engine writer the format needs, or `undefined` when any engine (or a renderer) makes it. */
  readonly engine: EngineNeed | undefined
  /** The format's name in words (`PDF`). */
  readonly title: string
  /** What a file of the format holds, in words, for the API's description. */
  readonly holds: string
}

/** The export formats, in the order they are offered: `pdf` is the contract's first; the others are ours. */
export const formats = {
  pdf: {
    mediaType: "application/pdf",
    extension: "pdf",
    renders: "report",
    madeBy: "renderer",
    watermarked: true,
    totals: false,
    engine: undefined,
    title: "PDF",
    holds: "the report or its chosen `pages`, page by page"
  },
  xlsx: {
    mediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    extension: "xlsx",
    renders: "report",
    madeBy: "renderer",
    watermarked: false,
    totals: true,
    engine: undefined,
    title: "Excel",
    holds: "a sheet per visual of the report or its chosen `pages`, with totals"
  },
  pptx: {
    mediaType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    extension: "pptx",
    renders: "report",
    madeBy: "renderer",
    watermarked: false,
    totals: false,
    engine: undefined,
    title: "PowerPoint",
    holds: "a slide per visual of the report or its chosen `pages`"
  },
  csv: {
    mediaType: "text/csv; charset=utf-8",
    extension: "csv",
    renders: "dataset",
    madeBy: "core",
    watermarked: false,
    totals: false,
    engine: undefined,
    title: "CSV",
    holds: "every row of one visual's query"
  },
  json: {
    mediaType: "application/json",
    extension: "json",
    renders: "dataset",
    madeBy: "core",
    watermarked: false,
    totals: false,
    engine: undefined,
    title: "JSON",
    holds: "one visual's displayed rows and its columns' schema"
  },
  parquet: {
    mediaType: "application/vnd.apache.parquet",
    extension: "parquet",
    renders: "dataset",
    madeBy: "core",
    watermarked: false,
    totals: false,
    engine: { writer: "parquet", by: "the DuckDB engine" },
    title: "Parquet",
    holds: "every row of one visual's query, from the DuckDB engine's own writer"
  },
  png: {
    mediaType: "image/png",
    extension: "png",
    renders: "visual",
    madeBy: "renderer",
    watermarked: true,
    totals: false,
    engine: undefined,
    title: "PNG",
    holds: "one visual's picture"
  },
  sql: {
    mediaType: "application/sql; charset=utf-8",
    extension: "sql",
    renders: "dataset",
    madeBy: "core",
    watermarked: false,
    totals: false,
    engine: undefined,
    title: "SQL",
    holds: "the SQL one visual's query compiles to, in `dialect`"
  }
} as const satisfies Readonly<Record<string, Spec>>

/** The table's type, row by row (the console checks its own list against it). */
export type Formats = typeof formats

/** An export format. */
export type Format = keyof Formats

/** The formats whose rows say `key` is `value` (`Where<"madeBy", "core">`). */
export type Where<K extends keyof Spec, V extends Spec[K]> = { readonly [F in Format]: Formats[F][K] extends V ? F : never }[Format]

/** The formats a document renderer makes (`DocumentRenderers`). */
export type DocumentFormat = Where<"madeBy", "renderer">

/** The formats core makes itself (`ExportFiles`). */
export type CoreFormat = Where<"madeBy", "core">

/** Every format, in the table's order. */
export const names: ReadonlyArray<Format> = Object.keys(formats) as Array<Format>

/** The formats whose row satisfies `predicate`, in the table's order. */
export const which = (predicate: (spec: Spec) => boolean): ReadonlyArray<Format> => names.filter((name) => predicate(formats[name]))

/** Whether `format` is one of the table's. */
export const isFormat = (format: string): format is Format => Object.hasOwn(formats, format)

/** Whether a format is made by a document renderer (rather than by core). */
export const isDocumentFormat = (format: string): format is DocumentFormat => isFormat(format) && formats[format].madeBy === "renderer"

/** Names in words: `a`, `a or b`, `a, b or c` (`conjunction` "and" for `and`). */
export const listed = (items: ReadonlyArray<string>, conjunction: "and" | "or" = "and"): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`
