/**
 * The invitation screen (`/invitations/accept?token=…`, the address in
 * invitation e-mails): the invited person chooses the name others see and
 * is signed in (`POST /api/session/invitation`); no API token is shown.
 *
 * @since 0.1.0
 */
import { html } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { type SessionInfo, setSession } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import * as Router from "../Router.ts"
import { Screen } from "../Screen.ts"
import { problemView } from "../States.ts"

/** The invitation screen. */
export class InvitationScreen extends Screen {
  static override properties = { ...Screen.properties, busy: { state: true }, problem: { state: true } }

  declare busy: boolean
  declare problem: Problem | undefined

  constructor() {
    super()
    this.busy = false
  }

  private async accept(event: SubmitEvent) {
    event.preventDefault()
    const name = String(new FormData(event.target as HTMLFormElement).get("name") ?? "").trim()
    this.busy = true
    this.problem = undefined
    try {
      const token = this.context.match.query.get("token") ?? ""
      setSession(await this.context.client.post<SessionInfo>("api/session/invitation", { token, ...(name === "" ? {} : { name }) }, { signedOut: true }))
      Router.navigate("", { replace: true })
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.busy = false
    }
  }

  override render() {
    this.ready(msg("invitation.title"))
    const token = this.context.match.query.get("token")
    return html`<div class="narrow card">
      <h1>${msg("invitation.title")}</h1>
      ${token === null || token === "" ? html`<p>${msg("invitation.noToken")}</p>` : html`
        ${problemView(this.problem)}
        <p class="muted">${msg("invitation.intro")}</p>
        <form @submit=${this.accept}>
          <label>${msg("invitation.name")}<input name="name" autocomplete="name" required maxlength="200"></label>
          <div><button type="submit" ?disabled=${this.busy}>${msg("invitation.submit")}</button></div>
        </form>`}
    </div>`
  }
}

customElements.define("analytics-invitation", InvitationScreen)
