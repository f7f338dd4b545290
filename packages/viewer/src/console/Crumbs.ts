/**
 * The way back from a workspace's report or dashboard: breadcrumbs
 * (Workspaces › the workspace › here), the workspace named by its real name
 * (`GET /v1/workspaces/{id}`, asked once per workspace while the page
 * lives, so a deep link shows it too).
 *
 * @since 0.1.0
 */
import { html, type TemplateResult } from "lit"
import type { ApiClient } from "../client/ApiClient.ts"
import { msg } from "../i18n/msg.ts"

const names = new Map<string, Promise<string | undefined>>()

/** The workspace's name, or `undefined` when it cannot be read (the screen's own request says why). */
export const workspaceName = (client: ApiClient, workspaceId: string): Promise<string | undefined> => {
  let name = names.get(workspaceId)
  if (name === undefined) {
    name = client.get(`v1/workspaces/${encodeURIComponent(workspaceId)}`).then((w) => w.name, () => {
      names.delete(workspaceId)
      return undefined
    })
    names.set(workspaceId, name)
  }
  return name
}

/** Remembers a workspace's name the screen already has (from the list that linked here). */
export const knowWorkspaceName = (workspaceId: string, name: string): void => {
  if (!names.has(workspaceId)) names.set(workspaceId, Promise.resolve(name))
}

/** A step of the breadcrumbs: a link, or (the last) where the person is. */
export interface Crumb {
  readonly text: string
  readonly href?: string
}

/** The breadcrumbs. */
export const crumbs = (steps: ReadonlyArray<Crumb>): TemplateResult =>
  html`<nav class="crumbs" aria-label=${msg("crumbs.label")}><ol>${
    steps.map((step) => step.href === undefined ? html`<li><span aria-current="page">${step.text}</span></li>` : html`<li><a href=${step.href}>${step.text}</a></li>`)
  }</ol></nav>`
