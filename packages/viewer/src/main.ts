/**
 * The browser entry of the viewer: defines its elements, which upgrade
 * the `<report-viewer>` the share or embed page holds, and on an embed
 * page keeps its token alive through the page that frames it (`EmbedSession`).
 *
 * @since 0.1.0
 */
import "./ReportViewer.ts"
import { EmbedSession } from "./embed/EmbedSession.ts"

EmbedSession.start()
