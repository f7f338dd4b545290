/**
 * The browser entry of an embed page that runs no report viewer: a shared
 * dashboard's, dataset's or workspace's, and a watermarked report's (their
 * pages are drawn on the server). It only keeps the page's token alive
 * through the page that frames it (`EmbedSession`, decision 0027), the one
 * renewal path every embed takes; the viewer's entry (`src/main.ts`) starts
 * the same session on a report's page.
 *
 * @since 0.1.0
 */
import { EmbedSession } from "./EmbedSession.ts"

EmbedSession.start()
