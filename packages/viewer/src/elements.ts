/**
 * The entry embedding apps load (served also as
 * `assets/analytics-elements.js`): it defines the public custom elements:
 * the report viewer the share page uses and `<analytics-share-dialog>`.
 * The console's `<analytics-report>` and `<analytics-export-button>` join
 * them as they are built (docs/guides/console.md).
 *
 * @since 0.1.0
 */
import "./ReportViewer.ts"
import "./elements/ShareDialog.ts"
