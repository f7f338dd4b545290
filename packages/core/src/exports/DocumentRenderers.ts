/**
 * Port: turning a report as its requester sees it into a document (PDF,
 * PNG, Excel, PowerPoint). Renderers are adapters (they need
 * their libraries); a format whose renderer is absent is refused when an
 * export asks for it.
 *
 * @since 0.1.0
 */
import { Context, Layer, type Stream } from "effect"
import type { ReportView } from "../reports/ReportViews.ts"
import type { Branding } from "./Branding.ts"
import { TaggedFailure } from "../platform/Errors.ts"

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

/** The document formats. */
export type DocumentFormat = "pdf" | "xlsx" | "png" | "pptx"

/** The renderers this deployment has. */
export class DocumentRenderers extends Context.Service<DocumentRenderers, Partial<Record<DocumentFormat, Renderer>>>()(
  "@analytics/core/DocumentRenderers"
) {
  /** No renderer: document formats are refused. */
  static readonly none = Layer.succeed(DocumentRenderers, {})
}

/** Whether a format is a document of the whole report (rather than one visual's rows or SQL). */
export const isDocumentFormat = (format: string): format is DocumentFormat =>
  format === "pdf" || format === "xlsx" || format === "png" || format === "pptx"

/** Whether a format prints a total row under a visual's rows (Excel), so its view carries the totals (`ReportViews.Request.totals`). */
export const printsTotals = (format: DocumentFormat): boolean => format === "xlsx"
