/**
 * `<analytics-embed-preview src="…" frame-title="…">`: an embed made in the
 * share dialog, shown live as the other site's visitors will see it ("What
 * your page will show"): an `<iframe>` of the snippet's own URL and first
 * token (`embed.embed_url`), so what it shows is what the pasted snippet
 * shows, and it expires with that token (decision 0027, "Preview in the
 * console"). Only after the embed is made: a token names a grant, and a
 * preview before it would need one.
 *
 * The frame is as wide as the dialog and as tall as the screen allows
 * (320 to 560 px); the embed page lays itself out for that width, as it
 * does in the other site's page. The console's policy frames only the
 * service's embed page (`frame-src`), and the embed page, whose token names
 * no origin, lets any page frame it.
 *
 * @since 0.1.0
 */
import { css, html, LitElement, nothing, type TemplateResult } from "lit"
import { msg } from "../i18n/msg.ts"

/** The live preview of an embed made. */
export class AnalyticsEmbedPreview extends LitElement {
  static override properties = {
    src: {},
    frameTitle: { attribute: "frame-title" }
  }

  static override styles = css`
    :host { display: block; }
    section { display: grid; gap: 8px; }
    h3 { font-size: 1rem; margin: 0; }
    .hint { margin: 0; font-size: 0.9rem; color: var(--analytics-muted, #57606a); }
    iframe {
      display: block; width: 100%; box-sizing: border-box; height: clamp(320px, 60vh, 560px);
      border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); background: #fff;
    }
  `

  /** The embed's URL, with its token (`embed.embed_url` of the grant made). */
  declare src: string | undefined
  /** The frame's accessible name: what it shows. */
  declare frameTitle: string | undefined

  protected override render(): TemplateResult | typeof nothing {
    if (this.src === undefined || this.src === "") return nothing
    return html`<section aria-labelledby="embed-preview-title">
      <h3 id="embed-preview-title">${msg("share.embed.preview")}</h3>
      <p class="hint">${msg("share.embed.preview.hint")}</p>
      <iframe src=${this.src} title=${this.frameTitle ?? msg("share.embed.preview")} referrerpolicy="no-referrer"></iframe>
    </section>`
  }
}

if (customElements.get("analytics-embed-preview") === undefined) customElements.define("analytics-embed-preview", AnalyticsEmbedPreview)
