/**
 * The entry embedding apps load (served also as
 * `assets/analytics-elements.js`): it defines the public custom elements.
 * For now that is the report viewer the share page uses; the console's
 * `<analytics-report>`, `<analytics-share-dialog>` and
 * `<analytics-export-button>` join it as they are built
 * (docs/guides/console.md).
 *
 * @since 0.1.0
 */
import "./ReportViewer.ts"
