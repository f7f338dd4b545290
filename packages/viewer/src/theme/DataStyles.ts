/**
 * The look of the Ask and dataset screens (in their own chunks, so the
 * console's first screen does not carry it): the question form, the
 * streamed answer, the upload's progress, the model editor's rows and the
 * field errors beside them. Adopted with the report screens' sheet, whose
 * breadcrumbs, charts and tables these screens reuse.
 *
 * @since 0.1.0
 */
import { adoptScreenStyles } from "./ViewerStyles.ts"

/** The stylesheet's text. */
export const css = `
select { font: inherit; font-weight: 400; color: inherit; background: var(--analytics-bg); border: 1px solid var(--analytics-muted); border-radius: 6px; padding: 8px 10px; width: 100%; max-width: 100%; }
.answer-text { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1.05rem; min-height: 1.5em; }
.answer .cursor { color: var(--analytics-primary); margin-left: 2px; }
.answer-query { margin: 12px 0; }
.answer-query h3 { margin: 0 0 4px; font-size: 0.95rem; }
.answer-query .query-words { margin: 0 0 6px; overflow-wrap: anywhere; }
.answer-query pre { margin: 4px 0 8px; padding: 8px 12px; background: var(--analytics-surface); border: 1px solid var(--analytics-border); border-radius: 6px; font: 0.85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.answer-query details p { margin: 8px 0 0; }
visual-card.answer-visual { margin-top: 12px; }
.answer .table-scroll, .history .table-scroll { margin-top: 8px; }
.answer table, .history table, .dataset-columns table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.9rem; }
.answer th, .answer td, .history th, .history td, .dataset-columns th, .dataset-columns td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--analytics-border); white-space: nowrap; }
progress { width: 100%; height: 12px; accent-color: var(--analytics-primary); }
.upload-progress { display: grid; gap: 4px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 16px; }
.facts dt { color: var(--analytics-muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.members { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.members > li { display: grid; grid-template-columns: minmax(7em, 1fr) 1.6fr 2.2fr; gap: 8px 12px; align-items: start; padding: 12px; border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); background: var(--analytics-bg); }
.members > li > strong { overflow-wrap: anywhere; padding-top: 8px; }
.members label { font-size: 0.9rem; }
.format { display: grid; grid-template-columns: 1.3fr 1fr 0.8fr; gap: 8px; align-items: end; }
.format .field-error { grid-column: 1 / -1; }
.field-error { color: var(--analytics-danger); font-weight: 400; font-size: 0.9rem; margin: 0; }
input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: var(--analytics-danger); border-width: 2px; }
textarea.code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85rem; }
.status-failed { color: var(--analytics-danger); font-weight: 600; }
.status-succeeded { color: var(--analytics-ok); font-weight: 600; }
@media (max-width: 700px) {
  .members > li { grid-template-columns: 1fr; }
  .members > li > strong { padding-top: 0; }
  .facts { grid-template-columns: 1fr; }
  .facts dd { margin-bottom: 6px; }
  .format { grid-template-columns: 1fr 1fr; }
  .history th, .history td { white-space: normal; }
}
`

let sheet: CSSStyleSheet | undefined

/** Adopts the report screens' and these screens' stylesheets in the document, once. */
export const adoptDataStyles = (): void => {
  adoptScreenStyles()
  if (sheet === undefined) {
    sheet = new CSSStyleSheet()
    sheet.replaceSync(css)
  }
  if (!document.adoptedStyleSheets.includes(sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
}
