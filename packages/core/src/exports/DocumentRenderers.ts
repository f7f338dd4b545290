/**
 * Port: turning a report as its requester sees it into a document (the
 * formats `ExportFormats` says a renderer makes: PDF, PNG, Excel,
 * PowerPoint). Renderers are adapters (they need their libraries), keyed
 * by format; a format whose renderer is absent is refused when an export
 * asks for it.
 *
 * @since 0.1.0
 */
import { Context, Layer, type Stream } from "effect"
import type { ReportView } from "../reports/ReportViews.ts"
import type { Branding } from "./Branding.ts"
import { TaggedFailure } from "../platform/Errors.ts"
import { type DocumentFormat, formats } from "./ExportFormats.ts"

/** A renderer failed to make its document. */
export class RenderError extends TaggedFailure("RenderError")<{
  readonly detail: string
  readonly cause?: unknown
}> {}

/** What a document shows beside the report. */
export interface DocumentOptions {
  /** Tiled across each page where the format has pages (PDF, PNG); `null` without one. */
  readonly watermark: string | null
  /** The filters the export added, in words, printed on the document. */
  readonly filters: ReadonlyArray<string>
  readonly generatedAt: Date
  /** The deployment's colour and locale: charts' colours and how numbers are written. */
  readonly branding: Branding
}

/** Makes a document of a report view, streamed. */
export type Renderer = (view: ReportView, options: DocumentOptions) => Stream.Stream<Uint8Array, RenderError>

/**
 * A renderer for every document format of the table (`ExportFormats`): what
 * an adapter that renders them all provides, so that a format added to the
 * table without its renderer fails to compile there.
 */
export type Complete = Readonly<Record<DocumentFormat, Renderer>>

/** The renderers this deployment has, keyed by format: a format without one is refused. */
export class DocumentRenderers extends Context.Service<DocumentRenderers, Partial<Complete>>()(
  "@analytics/core/DocumentRenderers"
) {
  /** No renderer: document formats are refused. */
  static readonly none = Layer.succeed(DocumentRenderers, {})
}

/** Whether a format prints a total row under a visual's rows (Excel), so its view carries the totals (`ReportViews.Request.totals`). */
export const printsTotals = (format: DocumentFormat): boolean => formats[format].totals
