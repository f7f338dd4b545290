/**
 * The browser entry of the viewer: defines its elements, which upgrade
 * the `<report-viewer>` the share or embed page holds.
 *
 * @since 0.1.0
 */
import "./ReportViewer.ts"
