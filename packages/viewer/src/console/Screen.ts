/**
 * What every screen of the console is: a Lit element in the light DOM (the
 * theme's stylesheet styles it) handed the console's context, which tells
 * the shell when it is ready to use (the first screen sets the
 * `analytics:interactive` performance mark the bench reads).
 *
 * @since 0.1.0
 */
import { LitElement } from "lit"
import type { ApiClient } from "../client/ApiClient.ts"
import type { Boot } from "../client/Boot.ts"
import { workspaceName } from "./Crumbs.ts"
import type { Match } from "./Router.ts"

/** What the shell hands each screen. */
export interface ScreenContext {
  readonly client: ApiClient
  readonly boot: Boot
  readonly match: Match
}

/** The event a screen sends when it can be used; `detail` is its title. */
export const readyEvent = "analytics-ready"

/** A screen. */
export class Screen extends LitElement {
  static override properties = { context: { attribute: false } }

  /** The screen keeps its query in step itself (a report's `?filters=`): a new query does not make a new screen. */
  static followsQuery = false

  declare context: ScreenContext
  private announced = false

  protected override createRenderRoot() {
    return this
  }

  /** The workspace the path names (`w/:workspace/…`); empty on screens outside one. */
  protected get workspaceId(): string {
    return this.context.match.params.workspace ?? ""
  }

  /** The name of that workspace once read (for the breadcrumbs); `undefined` until then, or when it cannot be read. */
  protected workspace: string | undefined

  /** Reads the workspace's name (kept across screens) and draws again when it comes. */
  protected readWorkspaceName(): void {
    void workspaceName(this.context.client, this.workspaceId).then((name) => {
      this.workspace = name
      this.requestUpdate()
    })
  }

  /** Tells the shell this screen can be used, once, with its title (for the document's title). */
  protected ready(title: string): void {
    if (this.announced) return
    this.announced = true
    void this.updateComplete.then(() => this.dispatchEvent(new CustomEvent(readyEvent, { detail: title, bubbles: true })))
  }
}
