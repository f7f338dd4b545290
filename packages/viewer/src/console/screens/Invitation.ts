/**
 * The invitation screen (`/invitations/accept?token=…`, the address in
 * invitation e-mails): the invited person chooses the name others see and
 * is signed in (`POST /api/session/invitation`); no API token is shown.
 *
 * @since 0.1.0
 */
import { html } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { setSession } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import * as Router from "../Router.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
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
    const form = event.target as HTMLFormElement
    const name = String(new FormData(form).get("name") ?? "").trim()
    this.busy = true
    this.problem = undefined
    clearFields(form)
    try {
      const token = this.context.match.query.get("token") ?? ""
      setSession(await this.context.client.post("api/session/invitation", { token, ...(name === "" ? {} : { name }) }, { signedOut: true }))
      Router.navigate("", { replace: true })
    } catch (error) {
      this.busy = false
      await showRefusal(this, form, problemIn(error), (problem) => (this.problem = problem), ".invitation-problem")
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
        ${problemView(this.problem, undefined, "invitation-problem")}
        <p class="muted">${msg("invitation.intro")}</p>
        <form @submit=${this.accept}>
          <label>${msg("invitation.name")}<input name="name" autocomplete="name" required maxlength="200"></label>
          <div><button type="submit" ?disabled=${this.busy}>${msg("invitation.submit")}</button></div>
        </form>`}
    </div>`
  }
}

customElements.define("analytics-invitation", InvitationScreen)
