/**
 * The sign-in screen (`/sign-in`): an e-mail address for a one-time link
 * (then "check your mail"), and for admins an API token. Opened from the
 * e-mailed link (`/sign-in#token=…`: a fragment, so the token is in no log
 * or Referer) it sends the token at once (a POST, which mail scanners do
 * not make) and goes on to the workspaces. When the embedding app signs
 * people in, it points there instead.
 *
 * @since 0.1.0
 */
import { html, nothing } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { type SessionInfo, setSession } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import * as Router from "../Router.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
import { Screen } from "../Screen.ts"
import { loading, problemView } from "../States.ts"

/** The sign-in screen. */
export class SignInScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    sentTo: { state: true },
    busy: { state: true },
    problem: { state: true },
    opening: { state: true }
  }

  declare sentTo: string | undefined
  declare busy: boolean
  declare problem: Problem | undefined
  declare opening: boolean

  constructor() {
    super()
    this.busy = false
    this.opening = false
  }

  override connectedCallback() {
    super.connectedCallback()
    const token = /^#token=([^&]+)/.exec(location.hash)?.[1]
    if (token !== undefined) {
      // Out of the address bar and the history at once.
      history.replaceState(null, "", location.pathname + location.search)
      void this.openLink(decodeURIComponent(token))
    }
  }

  private async openLink(linkToken: string) {
    this.opening = true
    try {
      this.signedIn(await this.context.client.post("api/session", { link_token: linkToken }, { signedOut: true }))
    } catch (error) {
      this.problem = problemIn(error)
      this.opening = false
    }
  }

  private signedIn(session: SessionInfo) {
    setSession(session)
    Router.navigate(Router.safeNext(this.context.match.query.get("next")), { replace: true })
  }

  private async sendLink(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const email = String(new FormData(form).get("email") ?? "").trim()
    this.busy = true
    this.problem = undefined
    clearFields(form)
    try {
      await this.context.client.post("api/session/sign-in-links", { email }, { signedOut: true })
      this.sentTo = email
    } catch (error) {
      this.busy = false
      await showRefusal(this, form, problemIn(error), (problem) => (this.problem = problem), ".sign-in-problem")
    } finally {
      this.busy = false
    }
  }

  private async signInWithToken(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const token = String(new FormData(form).get("api_token") ?? "").trim()
    this.busy = true
    this.problem = undefined
    try {
      const session = await this.context.client.post("api/session/token", { api_token: token }, { signedOut: true })
      form.reset()
      this.signedIn(session)
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.busy = false
    }
  }

  override render() {
    const { console: mode, branding } = this.context.boot
    this.ready(this.opening ? msg("signIn.link.opening") : msg("signIn.title"))
    if (this.opening) return html`<div class="narrow card"><h1>${msg("signIn.title")}</h1>${loading()}</div>`
    if (mode.sign_in === "embedded") {
      return html`<div class="narrow card"><h1>${msg("signIn.title")}</h1>
        <p>${msg("signIn.embedded", { name: branding.name })}</p>
        ${mode.sign_in_url === null ? nothing : html`<p><a class="button" href=${mode.sign_in_url}>${msg("signIn.embedded.link")}</a></p>`}</div>`
    }
    if (mode.sign_in === "off") return html`<div class="narrow card"><h1>${msg("signIn.title")}</h1><p>${msg("signIn.off")}</p></div>`
    return html`<div class="narrow">
      <div class="card">
        <h1>${this.sentTo === undefined ? msg("signIn.title") : msg("signIn.checkMail")}</h1>
        ${this.context.match.query.get("ended") === "1" && this.sentTo === undefined ? html`<p class="notice" role="status">${msg("signIn.ended")}</p>` : nothing}
        ${problemView(this.problem, undefined, "sign-in-problem")}
        ${this.sentTo === undefined ? html`
          <p class="muted" id="sign-in-intro">${msg("signIn.intro")}</p>
          <form @submit=${this.sendLink} aria-describedby="sign-in-intro">
            <label>${msg("signIn.email")}
              <input name="email" type="email" autocomplete="email" required>
            </label>
            <div><button type="submit" ?disabled=${this.busy}>${this.busy ? msg("signIn.sending") : msg("signIn.send")}</button></div>
          </form>` : html`
          <p role="status">${msg("signIn.checkMail.detail", { email: this.sentTo })}</p>
          <p><button type="button" class="link" @click=${() => (this.sentTo = undefined)}>${msg("signIn.another")}</button></p>`}
      </div>
      <details class="card">
        <summary>${msg("signIn.token.summary")}</summary>
        <form @submit=${this.signInWithToken}>
          <label>${msg("signIn.token.label")}
            <input name="api_token" type="password" autocomplete="off" spellcheck="false" required aria-describedby="token-hint">
            <span class="hint" id="token-hint">${msg("signIn.token.hint")}</span>
          </label>
          <div><button type="submit" class="secondary" ?disabled=${this.busy}>${msg("signIn.token.submit")}</button></div>
        </form>
      </details>
    </div>`
  }
}

customElements.define("analytics-sign-in", SignInScreen)
