/**
 * The branding screen (`/branding`, tenant admins): how the tenant's share
 * pages (the report, the password form, the refusals) look — its name, its
 * logo and its accent colour (`GET`/`PATCH /v1/branding`, decision 0014).
 * A preview of the share page's header follows the form as it is typed;
 * Save sends the changes and a refusal is marked beside each field it
 * names (FormErrors.ts); "Use the service's branding" clears all three,
 * asked first. Anyone else is told the screen is not theirs, in words.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { confirmDialog } from "../../elements/Confirm.ts"
import { msg } from "../../i18n/msg.ts"
import { when } from "../../i18n/Time.ts"
import { tokens } from "../../theme/Theme.ts"
import { Actions } from "../Actions.ts"
import { Screen } from "../Screen.ts"
import { loading, problemView } from "../States.ts"
import { adoptAdminStyles, notAvailable } from "./Admin.ts"

/** The tenant's branding as `GET /v1/branding` answers it; `null` is the service's own. */
type Branding = Json<typeof Groups.Branding.BrandingJson>

/** What the form holds: the name and colour as typed, the logo as a `data:` URL (`null`: none). */
interface Draft {
  readonly name: string
  readonly logo: string | null
  readonly accent_color: string
}

const colour = /^#[0-9a-fA-F]{6}$/

/** A logo as a share page would draw it: a PNG, JPEG or WebP `data:` URL, else none (the service refuses the rest, in words). */
const shownLogo = (logo: string | null): string | null => logo !== null && /^data:image\/(png|jpeg|webp);base64,/.test(logo) ? logo : null

const draftOf = (b: Branding): Draft => ({ name: b.name ?? "", logo: b.logo, accent_color: b.accent_color ?? "" })

/** The preview's accent, as the share page makes it readable on light and dark (a constructed sheet: the policy allows no inline style). */
const previewSheet = new CSSStyleSheet()
let adopted = false
const showAccent = (accent: string): void => {
  const t = tokens(accent)
  previewSheet.replaceSync(`
.brand-preview { --preview-accent: ${t.light}; }
@media (prefers-color-scheme: dark) { .brand-preview { --preview-accent: ${t.dark}; } }
.brand-preview { border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); overflow: hidden; background: var(--analytics-bg); }
.brand-preview .masthead { border-bottom: 3px solid var(--preview-accent); padding: 14px 20px; display: grid; gap: 4px; }
.brand-preview .brand { display: flex; align-items: center; gap: 10px; margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.brand-preview .brand img { display: block; height: 32px; width: auto; max-width: 160px; object-fit: contain; }
.brand-preview .title { margin: 0; font-size: 1.25rem; font-weight: 700; }
.brand-preview .body { padding: 12px 20px; margin: 0; }
.brand-preview .body .link { color: var(--preview-accent); text-decoration: underline; }
.brand-logo { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.brand-logo img { height: 32px; width: auto; max-width: 160px; object-fit: contain; border: 1px solid var(--analytics-border); border-radius: 4px; }
.brand-colour { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.brand-colour input.mono { flex: 1 1 10rem; width: auto; min-width: 0; }
.brand-colour > .field-error { flex-basis: 100%; }
.brand-colour input[type="color"] { width: 48px; height: 40px; padding: 2px; flex: none; }
`)
  if (!adopted) {
    adopted = true
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, previewSheet]
  }
}

/** The branding screen. */
export class BrandingScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    saved: { state: true },
    draft: { state: true },
    loadProblem: { state: true },
    logoProblem: { state: true }
  }

  /** The branding as the service has it; `undefined` until read. */
  declare saved: Branding | undefined
  declare draft: Draft
  declare loadProblem: Problem | undefined
  /** A file that could not be read as a logo, in words. */
  declare logoProblem: string | undefined

  private readonly actions = new Actions(this, (failed) => failed ? ".problem" : ".branding-notice")

  constructor() {
    super()
    this.draft = { name: "", logo: null, accent_color: "" }
  }

  override connectedCallback() {
    super.connectedCallback()
    adoptAdminStyles()
    if (!isAdmin(currentSession())) return
    if (this.saved === undefined) void this.load()
  }

  private async load() {
    this.loadProblem = undefined
    try {
      this.saved = await this.context.client.get("v1/branding")
      this.draft = draftOf(this.saved)
    } catch (error) {
      this.loadProblem = problemIn(error)
    }
  }

  /** The service's own branding, which a field left empty falls back to. */
  private get service() {
    return this.context.boot.branding
  }

  private edit(change: Partial<Draft>) {
    this.draft = { ...this.draft, ...change }
  }

  /** A file chosen: read as a `data:` URL (the service checks its type and size, and says why in words). */
  private chooseLogo(event: Event) {
    const input = event.target as HTMLInputElement
    const file = input.files?.[0]
    this.logoProblem = undefined
    if (file === undefined) return
    const reader = new FileReader()
    reader.onload = () => this.edit({ logo: String(reader.result) })
    reader.onerror = () => (this.logoProblem = msg("branding.logo.unreadable"))
    reader.readAsDataURL(file)
  }

  private removeLogo() {
    this.edit({ logo: null })
    const file = this.querySelector<HTMLInputElement>("#branding-logo")
    if (file !== null) file.value = ""
  }

  /** What Save sends: each field that differs from what is saved; an empty field is the service's own (`null`). */
  private changes(): Record<string, string | null> {
    const saved = this.saved!
    const next = { name: this.draft.name.trim() === "" ? null : this.draft.name.trim(), logo: this.draft.logo, accent_color: this.draft.accent_color.trim() === "" ? null : this.draft.accent_color.trim() }
    const patch: Record<string, string | null> = {}
    for (const key of ["name", "logo", "accent_color"] as const) if (next[key] !== saved[key]) patch[key] = next[key]
    return patch
  }

  private async save(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const patch = this.changes()
    await this.actions.run(async () => {
      if (Object.keys(patch).length === 0) return msg("branding.unchanged")
      this.saved = await this.context.client.patch("v1/branding", patch)
      this.draft = draftOf(this.saved)
      return msg("branding.saved")
    }, (notice) => notice, form)
  }

  /** Clears all three, asked first: the share pages wear the service's branding again. */
  private async reset() {
    const confirmed = await confirmDialog(this, {
      title: msg("branding.reset.title"),
      text: msg("branding.reset.confirm", { name: this.service.name }),
      yes: msg("branding.reset.yes"),
      no: msg("branding.reset.no")
    })
    if (!confirmed) return
    const form = this.querySelector<HTMLFormElement>("form.branding")
    await this.actions.run(async () => {
      this.saved = await this.context.client.patch("v1/branding", { name: null, logo: null, accent_color: null })
      this.draft = draftOf(this.saved)
      const file = this.querySelector<HTMLInputElement>("#branding-logo")
      if (file !== null) file.value = ""
      return msg("branding.resetDone")
    }, (notice) => notice, form ?? undefined)
  }

  /** The share page's header as it will look with what the form holds. */
  private preview(): TemplateResult {
    const typed = this.draft.accent_color.trim()
    showAccent(colour.test(typed) ? typed : this.service.primary_color)
    const name = this.draft.name.trim() === "" ? this.service.name : this.draft.name.trim()
    const logo = shownLogo(this.draft.logo)
    return html`<section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title">${msg("branding.preview.title")}</h2>
      <p class="hint">${msg("branding.preview.hint")}</p>
      <div class="brand-preview" data-preview>
        <div class="masthead">
          <p class="brand">${logo === null ? nothing : html`<img src=${logo} alt="">`}<span class="brand-name">${name}</span></p>
          <p class="title">${msg("branding.preview.report")}</p>
        </div>
        <p class="body"><span class="link">${msg("branding.preview.link")}</span></p>
      </div>
    </section>`
  }

  private formView(saved: Branding): TemplateResult {
    const draft = this.draft
    const busy = this.actions.busy
    const typed = draft.accent_color.trim()
    return html`<form class="branding card" novalidate @submit=${this.save}>
      <div class="field">
        <label for="branding-name">${msg("branding.name")}</label>
        <input id="branding-name" name="name" autocomplete="organization" maxlength="200" .value=${draft.name} aria-describedby="branding-name-hint"
          @input=${(e: Event) => this.edit({ name: (e.target as HTMLInputElement).value })}>
        <span class="hint" id="branding-name-hint">${msg("branding.name.hint", { name: this.service.name })}</span>
      </div>
      <div class="field">
        <label for="branding-colour">${msg("branding.accent")}</label>
        <div class="brand-colour">
          <input type="color" aria-label=${msg("branding.accent.pick")} .value=${colour.test(typed) ? typed.toLowerCase() : this.service.primary_color.toLowerCase()}
            @input=${(e: Event) => this.edit({ accent_color: (e.target as HTMLInputElement).value })}>
          <input id="branding-colour" name="accent_color" class="mono" spellcheck="false" autocomplete="off" placeholder=${this.service.primary_color} .value=${draft.accent_color}
            aria-describedby="branding-colour-hint" @input=${(e: Event) => this.edit({ accent_color: (e.target as HTMLInputElement).value })}>
        </div>
        <span class="hint" id="branding-colour-hint">${msg("branding.accent.hint", { colour: this.service.primary_color })}</span>
      </div>
      <div class="field">
        <label for="branding-logo">${msg("branding.logo")}</label>
        <div class="brand-logo">
          ${draft.logo === null ? html`<span class="muted">${msg("branding.logo.none")}</span>` : html`${shownLogo(draft.logo) === null ? nothing : html`<img src=${draft.logo} alt=${msg("branding.logo.current")}>`}
            <button type="button" class="secondary" ?disabled=${busy} @click=${this.removeLogo}>${msg("branding.logo.remove")}</button>`}
        </div>
        <input id="branding-logo" type="file" data-field="logo" accept="image/png,image/jpeg,image/webp" aria-describedby="branding-logo-hint" @change=${this.chooseLogo}>
        <span class="hint" id="branding-logo-hint">${msg("branding.logo.hint")}</span>
        ${this.logoProblem === undefined ? nothing : html`<p class="field-error" role="alert">${this.logoProblem}</p>`}
      </div>
      ${saved.updated_at === null ? nothing : html`<p class="hint">${msg("branding.updated", { when: when(saved.updated_at) })}</p>`}
      <div class="row">
        <button type="submit" ?disabled=${busy}>${msg("branding.save")}</button>
        <button type="button" class="secondary" ?disabled=${busy} @click=${() => void this.reset()}>${msg("branding.reset")}</button>
      </div>
    </form>`
  }

  override render() {
    if (!isAdmin(currentSession()) || this.loadProblem?.status === 403) {
      this.ready(msg("admin.notAvailable.title"))
      return notAvailable()
    }
    const saved = this.saved
    if (saved !== undefined || this.loadProblem !== undefined) this.ready(msg("branding.title"))
    return html`
      <h1>${msg("branding.title")}</h1>
      <p class="muted">${msg("branding.intro")}</p>
      ${problemView(this.loadProblem, () => void this.load())}
      ${this.actions.notice === undefined ? nothing : html`<p class="notice branding-notice" role="status" tabindex="-1">${this.actions.notice}</p>`}
      ${problemView(this.actions.problem)}
      ${saved === undefined ? (this.loadProblem === undefined ? loading() : nothing) : html`${this.formView(saved)}${this.preview()}`}
    `
  }
}

customElements.define("analytics-branding", BrandingScreen)
