/**
 * The entry embedding apps load (served also as
 * `assets/analytics-elements.js`): it defines the public custom elements:
 * the report viewer the share page uses, `<analytics-share-dialog>` and
 * `<analytics-export-button>`. The console's `<analytics-report>` joins
 * them as it is built (docs/guides/console.md).
 *
 * @since 0.1.0
 */
import "./ReportViewer.ts"
import "./elements/ExportButton.ts"
import "./elements/ShareDialog.ts"
