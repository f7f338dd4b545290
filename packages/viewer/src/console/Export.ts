/**
 * The export button in the console: `exportButton(reportId, …)` is the
 * template a screen puts beside a report's "Share" (the workspace's report
 * list does; the report screen's header may, with the filters it shows).
 * The element is its own chunk, fetched the first time a screen shows one;
 * it talks through the console's client (its CSRF token, its 401 handling).
 *
 * @since 0.1.0
 */
import { html, type TemplateResult } from "lit"
import type { ApiClient } from "../client/ApiClient.ts"
import type { FilterValues } from "../elements/ExportButton.ts"

let loading: Promise<unknown> | undefined

/** Fetches the element's chunk (once); the buttons already on screen upgrade when it arrives. */
export const loadExportButton = (): Promise<unknown> => (loading ??= import("../elements/ExportButton.ts").catch(() => (loading = undefined)))

/** What else the button may know. */
export interface ExportOptions {
  readonly client: ApiClient
  /** The report's name, for the button's label and the dialog's title. */
  readonly name?: string | undefined
  /** The filters the report shows now, applied to the export. */
  readonly filters?: FilterValues | undefined
  /** Only these formats (`["pdf", "xlsx"]`); all the service's by default. */
  readonly formats?: ReadonlyArray<string> | undefined
}

/** An `<analytics-export-button>` for a report. */
export const exportButton = (reportId: string, options: ExportOptions): TemplateResult => {
  void loadExportButton()
  return html`<analytics-export-button report-id=${reportId} report-name=${options.name ?? ""} formats=${options.formats?.join(",") ?? ""}
    .client=${options.client} .filters=${options.filters}></analytics-export-button>`
}
