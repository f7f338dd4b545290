/**
 * What a report's or dashboard's address shows until the console draws
 * them (the next slice): a placeholder that says so.
 *
 * @since 0.1.0
 */
import { html } from "lit"
import { msg } from "../../i18n/msg.ts"
import { Screen } from "../Screen.ts"

/** The placeholder screen. */
export class ComingNextScreen extends Screen {
  override render() {
    this.ready(msg("comingNext.title"))
    const workspace = encodeURIComponent(this.context.match.params.workspace ?? "")
    return html`<p><a href=${`w/${workspace}`}>${msg("comingNext.back")}</a></p>
      <h1>${msg("comingNext.title")}</h1>
      <div class="state"><p>${msg("comingNext.detail")}</p></div>`
  }
}

customElements.define("analytics-coming-next", ComingNextScreen)
