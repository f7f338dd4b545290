/**
 * The entry embedding apps load (served also as
 * `assets/analytics-elements.js`): it defines the public custom elements,
 * `<analytics-report>` (docs/guides/console.md) and the report viewer the
 * share page uses; `<analytics-share-dialog>` and
 * `<analytics-export-button>` join them as they are built.
 *
 * @since 0.1.0
 */
import "./elements/AnalyticsReport.ts"
import "./ReportViewer.ts"
