/**
 * `<analytics-console>`: the console's frame. It reads the boot data,
 * adopts the theme, learns who is signed in (from the boot data, which the
 * page carries, else `GET /api/session`), and shows
 * the header (the brand's name and logo, the navigation, who is signed in
 * and a sign-out button, a skip link) around the screen the path names,
 * loading each screen's code when it is first shown. A signed-out person
 * asking for a screen that needs a session gets the sign-in screen, and
 * comes back after signing in.
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import { makeClient, networkProblem, type Problem, problemIn } from "../client/ApiClient.ts"
import { type Boot, readBoot } from "../client/Boot.ts"
import { currentSession, displayName, isAdmin, onSessionChange, type SessionInfo, setSession } from "../client/Session.ts"
import { msg } from "../i18n/msg.ts"
import { applyTheme } from "../theme/Theme.ts"
import * as Router from "./Router.ts"
import { readyEvent, type Screen } from "./Screen.ts"
import { problemView } from "./States.ts"

/** The console's screens; each loads its own chunk. */
export const routes: ReadonlyArray<Router.Route> = [
  { pattern: "", tag: "analytics-workspaces", load: () => import("./screens/Workspaces.ts") },
  { pattern: "sign-in", tag: "analytics-sign-in", load: () => import("./screens/SignIn.ts"), public: true },
  { pattern: "invitations/accept", tag: "analytics-invitation", load: () => import("./screens/Invitation.ts"), public: true },
  { pattern: "w/:workspace", tag: "analytics-workspace", load: () => import("./screens/Workspace.ts") },
  { pattern: "w/:workspace/links", tag: "analytics-links", load: () => import("./screens/Links.ts") },
  { pattern: "w/:workspace/schedules", tag: "analytics-schedules", load: () => import("./screens/Schedules.ts") },
  { pattern: "w/:workspace/alerts", tag: "analytics-alerts", load: () => import("./screens/Alerts.ts") },
  { pattern: "w/:workspace/ask", tag: "analytics-ask", load: () => import("./screens/Ask.ts") },
  { pattern: "w/:workspace/datasets", tag: "analytics-datasets", load: () => import("./screens/Datasets.ts") },
  { pattern: "w/:workspace/datasets/:dataset", tag: "analytics-dataset", load: () => import("./screens/Dataset.ts") },
  { pattern: "w/:workspace/reports/:report", tag: "analytics-report-screen", load: () => import("./screens/Report.ts") },
  { pattern: "w/:workspace/dashboards/:dashboard", tag: "analytics-dashboard-screen", load: () => import("./screens/Dashboard.ts") },
  { pattern: "webhooks", tag: "analytics-webhooks", load: () => import("./screens/Webhooks.ts") },
  { pattern: "webhooks/:webhook", tag: "analytics-webhook", load: () => import("./screens/WebhookDetail.ts") },
  { pattern: "audit", tag: "analytics-audit", load: () => import("./screens/Audit.ts") },
  { pattern: "directory", tag: "analytics-directory", load: () => import("./screens/Directory.ts") },
  { pattern: "branding", tag: "analytics-branding", load: () => import("./screens/Branding.ts") }
]

const signInRoute = routes[1]!

/** Any other path. */
export const notFound: Router.Route = { pattern: "*", tag: "analytics-not-found", load: () => import("./screens/NotFound.ts"), public: true }

/** The performance mark set when the first screen can be used (read by bench/console). */
export const interactiveMark = "analytics:interactive"

/** The console. */
export class AnalyticsConsole extends LitElement {
  static override properties = {
    session: { state: true },
    screen: { state: true },
    problem: { state: true }
  }

  declare session: SessionInfo | null
  declare screen: Element | undefined
  declare problem: Problem | undefined
  private readonly boot: Boot = readBoot()
  private readonly client = makeClient({ onUnauthorized: () => this.signedOut() })
  /** Whether who is signed in is known. */
  private sessionChecked: Promise<void> | undefined
  private shown = 0
  private marked = false

  constructor() {
    super()
    this.session = null
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    // The server's placeholder line goes; Lit renders from here on.
    this.replaceChildren()
    super.connectedCallback()
    applyTheme(this.boot.branding.primary_color)
    onSessionChange((session) => (this.session = session))
    this.addEventListener(readyEvent, (event) => this.screenReady(event as CustomEvent<string>))
    this.sessionChecked = this.checkSession()
    Router.start(() => void this.show())
    void this.show()
  }

  /**
   * Who is signed in: the page says so (no request, so a signed-out visit
   * makes no refused call); else asked, where a 401 (or a service without
   * sessions, 404) means no one. A later 401 ends the session (`signedOut`).
   */
  private async checkSession(): Promise<void> {
    if (this.boot.session !== undefined) return setSession(this.boot.session)
    try {
      setSession(await this.client.get("api/session", { signedOut: true }))
    } catch (error) {
      const problem = problemIn(error)
      if (problem.status !== 401 && problem.status !== 404) this.problem = problem
      setSession(null)
    }
  }

  /**
   * A request answered 401: the session is over; sign in again, then come
   * back to this very view (its `?filters=` and `#page=` too). A session
   * that was there and ended says so on the sign-in screen (`ended=1`).
   */
  private signedOut() {
    if (currentSession() === null && Router.currentPath() === "sign-in") return
    const ended = currentSession() !== null
    setSession(null)
    // A dialog open over the screen (the share dialog lives beside it) goes with the session.
    for (const dialog of document.querySelectorAll<HTMLElement & { close?: () => void }>("analytics-share-dialog[data-console]")) dialog.close?.()
    const here = Router.currentPath() + location.search + location.hash
    const query = [here === "" ? "" : `next=${encodeURIComponent(here)}`, ended ? "ended=1" : ""].filter((q) => q !== "").join("&")
    Router.navigate(`sign-in${query === "" ? "" : `?${query}`}`, { replace: true })
  }

  /** Shows the screen the path names (after the session check, for screens that need one). */
  private async show(): Promise<void> {
    const turn = ++this.shown
    const found = Router.match(routes, notFound, Router.currentPath(), location.search)
    // A move within the screen shown (`#page=`, or the query of a screen that keeps it in step itself) keeps it.
    const current = (this.screen as Screen | undefined)?.context?.match
    // (Not an e-mailed link opened on the sign-in screen itself: its `#token=` is a new sign-in.)
    const newLink = found.route === signInRoute && location.hash.startsWith("#token=")
    if (current !== undefined && !newLink && this.problem === undefined && current.route === found.route && current.path === found.path) {
      if (current.query.toString() === found.query.toString() || (this.screen!.constructor as typeof Screen).followsQuery) return
    }
    if (found.route === signInRoute && !newLink) {
      // Signed in already: on to where the sign-in was for.
      found.route.load().catch(() => undefined)
      await this.sessionChecked
      if (turn !== this.shown) return
      if (currentSession() !== null) return Router.navigate(Router.safeNext(found.query.get("next")), { replace: true })
    }
    if (found.route.public !== true) {
      if (currentSession() === null) {
        // While the session is checked, fetch both screens it may lead to: this one and sign-in.
        found.route.load().catch(() => undefined)
        signInRoute.load().catch(() => undefined)
      }
      await this.sessionChecked
      if (turn !== this.shown) return
      if (this.problem !== undefined) return
      if (currentSession() === null) return this.signedOut()
    }
    try {
      await found.route.load()
    } catch {
      // The screen's chunk is gone (a new build was deployed since this page loaded) or the network is: reloading fetches the new page.
      this.problem = { ...networkProblem(), action: msg("problem.action.reload") }
      return
    }
    if (turn !== this.shown) return
    const screen = document.createElement(found.route.tag) as Screen
    screen.context = { client: this.client, boot: this.boot, match: found }
    this.screen = screen
  }

  /** A screen can be used: its title becomes the document's; after a navigation focus goes to its heading. */
  private screenReady(event: CustomEvent<string>) {
    document.title = `${event.detail} · ${this.boot.branding.name}`
    if (!this.marked) {
      this.marked = true
      performance.mark(interactiveMark)
      return
    }
    const heading = this.querySelector<HTMLElement>("main h1")
    if (heading !== null) {
      heading.tabIndex = -1
      heading.focus()
    }
  }

  private async signOut() {
    try {
      await this.client.delete("api/session", { signedOut: true })
    } catch {
      // Signed out or not, this browser forgets the session.
    }
    setSession(null)
    Router.navigate("sign-in")
  }

  private skip(event: Event) {
    // With a <base href>, "#main" would be another document's fragment.
    event.preventDefault()
    this.querySelector<HTMLElement>("main")?.focus()
  }

  override render() {
    const { branding } = this.boot
    const session = this.session
    const path = Router.currentPath()
    return html`
      <a class="skip" href="#main" @click=${this.skip}>${msg("app.skip")}</a>
      <header class="bar">
        <a class="brand" href="./">${branding.logo_url === null ? nothing : html`<img src=${branding.logo_url} alt="">`}<span>${branding.name}</span></a>
        ${session === null ? nothing : html`
          <nav aria-label=${msg("app.nav")}>
            <ul><li><a href="./" aria-current=${path === "" || path.startsWith("w/") ? "page" : "false"}>${msg("app.nav.workspaces")}</a></li>${
              // Tenant admins' screens (core's policy): members are not shown what they may not open.
              isAdmin(session)
                ? html`<li><a href="webhooks" aria-current=${path === "webhooks" || path.startsWith("webhooks/") ? "page" : "false"}>${msg("webhooks.nav")}</a></li>${
                  (["audit", "directory", "branding"] as const).map((p) => html`<li><a href=${p} aria-current=${path === p ? "page" : "false"}>${msg(`app.nav.${p}`)}</a></li>`)
                }`
                : nothing
            }</ul>
          </nav>
          <div class="who">
            <span>${msg("app.signedInAs", { name: displayName(session) })}</span>
            <button type="button" class="secondary" @click=${() => void this.signOut()}>${msg("app.signOut")}</button>
          </div>`}
      </header>
      <main id="main" tabindex="-1">${this.problem === undefined ? this.screen ?? nothing : problemView(this.problem, () => location.reload())}</main>
    `
  }
}

customElements.define("analytics-console", AnalyticsConsole)
