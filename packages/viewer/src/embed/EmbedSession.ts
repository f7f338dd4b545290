/**
 * An embed page's token lifecycle (decision 0027, docs/guides/embedding.md
 * "Keeping an embed alive"). The embed token in the page's address runs
 * out; before it does, the page asks the page that frames it for a fresh
 * one and swaps it in place, without reloading:
 *
 * - it posts `{type: "analytics:token-expiring", expires_at}` to its parent,
 *   half-way through a short token's life, a minute before a long one's
 *   end, and again until answered;
 * - it takes `{type: "analytics:token", token}` back, only from its parent
 *   and only from the origin its token names (its `origin` claim), a token
 *   for the same grant and origin that lives longer; the address, the
 *   download links and the export form then carry it, so the next request
 *   sends it;
 * - it tells its parent `analytics:ready`, `analytics:refreshed`,
 *   `analytics:expired` (with the words shown), `analytics:page-change`,
 *   `analytics:filter-change` and `analytics:mark-click`.
 *
 * Every embed page runs it, whatever it shares: a report's through the
 * viewer's entry, a dashboard's, a dataset's, a workspace's and a
 * watermarked report's (drawn on the server) through the embed entry
 * (`main.ts` here), so all renew the same way.
 *
 * Each frame keeps its own timer and answers only its own parent, so any
 * number of embeds in any number of tabs renew independently. A token
 * without `origin` talks to nobody (any page may frame it, so none is
 * trusted with its events or its renewal): it lives its life, then says so
 * in words, as every embed does when no fresh token came.
 *
 * The claims are read, not trusted: the server verifies every token it is
 * sent, and this only decides when to ask.
 *
 * @since 0.1.0
 */
import { msg } from "../i18n/msg.ts"

/** What the page reads of an embed token's payload. */
export interface TokenClaims {
  readonly sub: string
  readonly exp: number
  readonly iat: number
  readonly origin?: string | undefined
}

/** The claims of a compact JWS's payload, or `undefined` when it is not one. */
export const claimsOf = (token: string): TokenClaims | undefined => {
  const part = token.split(".")[1]
  if (part === undefined || !/^[A-Za-z0-9_-]+$/.test(part)) return undefined
  try {
    const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "="))
    const payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))) as Record<string, unknown>
    const { exp, iat, origin, sub } = payload
    if (typeof sub !== "string" || typeof exp !== "number" || typeof iat !== "number") return undefined
    return { sub, exp, iat, origin: typeof origin === "string" ? origin : undefined }
  } catch {
    return undefined
  }
}

/** How long before expiry the page first asks: half a short token's life, a minute of a long one's. */
export const leadMillis = (claims: TokenClaims): number => Math.min(60_000, Math.max(0, (claims.exp - claims.iat) * 1000) / 2)

/** The least time the parent is given to answer, even when the token was all but spent on arrival. */
const answerMillis = 3_000

/** The messages' prefix: the host page's own messages never collide with them. */
const prefix = "analytics:"

/** The page's report viewer's events, and the message each becomes. */
const told: ReadonlyArray<readonly [event: string, message: string, detail: (detail: unknown) => Record<string, unknown>]> = [
  ["report-page-change", "page-change", (d) => ({ ...(d as object) })],
  ["report-filters-change", "filter-change", (d) => ({ filters: d })],
  ["report-mark-click", "mark-click", (d) => ({ ...(d as object) })]
]

/** An embed page's token, renewed through its parent. */
export class EmbedSession {
  private readonly win: Window
  private token: string
  private claims: TokenClaims
  private asking: ReturnType<typeof setTimeout> | undefined
  private ending: ReturnType<typeof setTimeout> | undefined
  private expired = false

  private constructor(win: Window, token: string, claims: TokenClaims) {
    this.win = win
    this.token = token
    this.claims = claims
  }

  /** Starts the lifecycle on an embed page (its address has `?token=`); nothing elsewhere. */
  static start(win: Window = window): EmbedSession | undefined {
    const token = new URL(win.location.href).searchParams.get("token")
    const claims = token === null ? undefined : claimsOf(token)
    if (token === null || claims === undefined) return undefined
    const session = new EmbedSession(win, token, claims)
    session.begin()
    return session
  }

  /** The origin it talks to: its token's, when it is framed. */
  private get origin(): string | undefined {
    return this.win.parent === this.win ? undefined : this.claims.origin
  }

  private begin() {
    if (this.origin !== undefined) {
      this.win.addEventListener("message", this.onMessage)
      for (const [event, message, detail] of told) {
        this.win.document.addEventListener(event, (e) => this.post(message, detail((e as CustomEvent).detail)))
      }
    }
    this.schedule()
    if (!this.expired) this.post("ready", { expires_at: this.expiresAt })
  }

  private get expiresAt(): string {
    return new Date(this.claims.exp * 1000).toISOString()
  }

  private post(type: string, detail: Record<string, unknown>) {
    const origin = this.origin
    if (origin !== undefined) this.win.parent.postMessage({ ...detail, type: `${prefix}${type}` }, origin)
  }

  /** The timers of the token in force: ask before it ends (when someone can answer), and end with it. */
  private schedule() {
    clearTimeout(this.asking)
    clearTimeout(this.ending)
    const remaining = this.claims.exp * 1000 - Date.now()
    const talks = this.origin !== undefined
    if (remaining <= 0 && !talks) return this.expire()
    if (talks) this.asking = setTimeout(this.ask, Math.max(0, remaining - leadMillis(this.claims)))
    // A page that loaded late (its token all but spent) still gives its parent time to answer.
    this.ending = setTimeout(() => this.expire(), Math.max(remaining, talks ? answerMillis : 0))
  }

  /** Asks the parent for a fresh token, then again a few times until one comes or this one ends. */
  private ask = () => {
    this.post("token-expiring", { expires_at: this.expiresAt })
    this.asking = setTimeout(this.ask, Math.max(1_000, leadMillis(this.claims) / 4))
  }

  private onMessage = (event: MessageEvent) => {
    // Only the parent, from the origin the token names: any other frame or origin is ignored.
    if (event.source !== this.win.parent || event.origin !== this.origin || this.expired) return
    const data = event.data as { readonly type?: unknown; readonly token?: unknown } | null
    if (data === null || typeof data !== "object" || data.type !== `${prefix}token` || typeof data.token !== "string") return
    const claims = claimsOf(data.token)
    // The same grant and origin, living longer than the token in force; anything else is not a renewal.
    if (
      claims === undefined || claims.sub !== this.claims.sub || claims.origin !== this.claims.origin ||
      claims.exp <= this.claims.exp || claims.exp * 1000 <= Date.now()
    ) return
    this.swap(data.token, claims)
  }

  /** Puts `token` where the old one was: the address (the viewer's next request), the links and the export form. */
  private swap(token: string, claims: TokenClaims) {
    const old = this.token
    this.token = token
    this.claims = claims
    const doc = this.win.document
    const here = new URL(this.win.location.href)
    here.searchParams.set("token", token)
    this.win.history.replaceState(this.win.history.state, "", `${here.pathname}${here.search}${here.hash}`)
    const renew = (element: Element, attribute: string) => {
      const value = element.getAttribute(attribute)
      if (value === null) return
      const url = new URL(value, doc.baseURI)
      if (url.origin !== here.origin || url.searchParams.get("token") !== old) return
      url.searchParams.set("token", token)
      element.setAttribute(attribute, `${url.pathname}${url.search}${url.hash}`)
    }
    for (const link of doc.querySelectorAll("a[href]")) renew(link, "href")
    for (const form of doc.querySelectorAll("form[action]")) renew(form, "action")
    this.schedule()
    this.post("refreshed", { expires_at: this.expiresAt })
  }

  /**
   * No fresh token came: what is shared (a report, a dashboard, a dataset, a workspace: all of the page's
   * `main`) and the export form are hidden, the page says so in words, and tells its parent.
   */
  private expire() {
    if (this.expired) return
    this.expired = true
    clearTimeout(this.asking)
    const doc = this.win.document
    const words = msg(doc.querySelector("report-viewer") === null ? "embed.expired.view" : "embed.expired")
    const notice = doc.createElement("p")
    notice.className = "problem embed-expired"
    notice.setAttribute("role", "alert")
    notice.textContent = words
    const main = doc.querySelector("main")
    // (The page's styles make its elements blocks, some `!important` (a dashboard's grid on a phone), which would override `hidden` alone.)
    for (const hidden of doc.querySelectorAll<HTMLElement>("main > *, form.export")) {
      hidden.hidden = true
      hidden.style.setProperty("display", "none", "important")
    }
    if (main === null) doc.body.prepend(notice)
    else main.prepend(notice)
    this.post("expired", { message: words })
  }
}
