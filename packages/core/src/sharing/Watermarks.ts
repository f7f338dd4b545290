/**
 * What a watermark promises (decision 0014, "What a watermark promises"):
 * the viewer's address over everything they see and take away. So a
 * watermarked share serves no raw rows beside what it draws under the
 * watermark: no JSON view, no data behind a chart ("Show data"), no
 * dataset preview, no CSV or other row format, no viewer script fed the
 * rows; its documents (PDF, PNG) draw the watermark as outlines, not text.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Forbidden } from "../platform/Errors.ts"
import type { Viewer } from "./SharedViews.ts"

/** Whether the share serves rows as data (a JSON view, tables behind charts, a dataset's rows, a script fed the rows): never when watermarked. */
export const servesRows = (viewer: Viewer): boolean => viewer.watermark === null

/** Refuses the JSON view of a watermarked share, saying why (a 403 problem); lets any other through. */
export const jsonView = (viewer: Viewer): Effect.Effect<void, Forbidden> =>
  servesRows(viewer)
    ? Effect.void
    : Effect.fail(new Forbidden({
      detail: "This share is watermarked: it is shown as a page with the watermark over it, and exports as PDF or PNG, which carry it; its data is not served as JSON"
    }))
