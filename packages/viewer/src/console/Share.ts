/**
 * `openShare(subjectType, subjectId)`: what a console screen calls to open
 * the share dialog on a report, dashboard, dataset or workspace (the
 * workspace's report list does; the report screen's header may). The
 * dialog is its own chunk, fetched the first time; one dialog serves the
 * whole console, talking through the console's client.
 *
 * @since 0.1.0
 */
import type { ApiClient } from "../client/ApiClient.ts"
import type { AnalyticsShareDialog } from "../elements/ShareDialog.ts"

/** What else the dialog may know. */
export interface ShareOptions {
  /** The console's client (its CSRF token, its 401 handling). */
  readonly client?: ApiClient | undefined
  /** The subject's name, for the dialog's title. */
  readonly name?: string | undefined
}

/** Opens the share dialog on a subject; focus returns to what had it when the dialog closes. */
export const openShare = async (subjectType: string, subjectId: string, options: ShareOptions = {}): Promise<AnalyticsShareDialog> => {
  await import("../elements/ShareDialog.ts")
  let dialog = document.querySelector<AnalyticsShareDialog>("analytics-share-dialog[data-console]")
  if (dialog === null) {
    dialog = document.createElement("analytics-share-dialog") as AnalyticsShareDialog
    dialog.dataset.console = ""
    document.body.append(dialog)
  }
  dialog.setAttribute("subject-type", subjectType)
  dialog.setAttribute("subject-id", subjectId)
  if (options.name === undefined) dialog.removeAttribute("subject-name")
  else dialog.setAttribute("subject-name", options.name)
  dialog.client = options.client
  await dialog.updateComplete
  dialog.show()
  return dialog
}
