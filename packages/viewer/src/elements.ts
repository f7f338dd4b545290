/**
 * The entry embedding apps load (served also as
 * `assets/analytics-elements.js`): it defines the public custom elements
 * (docs/guides/console.md): `<analytics-report>`,
 * `<analytics-share-dialog>`, `<analytics-export-button>` and the report
 * viewer the share page uses.
 *
 * @since 0.1.0
 */
import "./elements/AnalyticsReport.ts"
import "./ReportViewer.ts"
import "./elements/ExportButton.ts"
import "./elements/ShareDialog.ts"
