/**
 * Any other console address: says so and links home.
 *
 * @since 0.1.0
 */
import { html } from "lit"
import { msg } from "../../i18n/msg.ts"
import { Screen } from "../Screen.ts"

/** The screen of an unknown address. */
export class NotFoundScreen extends Screen {
  override render() {
    this.ready(msg("notFound.title"))
    return html`<h1>${msg("notFound.title")}</h1><p>${msg("notFound.detail")}</p><p><a href="./">${msg("notFound.home")}</a></p>`
  }
}

customElements.define("analytics-not-found", NotFoundScreen)
