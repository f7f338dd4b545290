/**
 * `<filter-bar>`: the report's filters as native controls: a choice as a
 * select ("All" and the values the viewer may see), a date range as two
 * date inputs. A filter an embedding app locked shows its value in a
 * disabled control that says so. Every change sends `filters-change` with
 * the values set (a filter left at "All" is absent).
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import type { FilterControl, FilterValue } from "./Data.ts"
import { msg } from "./i18n/msg.ts"

/** What `filters-change` carries. */
export type FiltersChange = CustomEvent<Readonly<Record<string, FilterValue>>>

/** The report's filters as controls. */
export class FilterBar extends LitElement {
  static override properties = {
    filters: { attribute: false },
    values: { attribute: false },
    disabled: { type: Boolean }
  }

  declare filters: ReadonlyArray<FilterControl>
  declare values: Readonly<Record<string, FilterValue>>
  declare disabled: boolean

  constructor() {
    super()
    this.filters = []
    this.values = {}
    this.disabled = false
  }

  protected override createRenderRoot() {
    return this
  }

  private set(name: string, value: FilterValue | undefined) {
    const next: Record<string, FilterValue> = { ...this.values }
    if (value === undefined) delete next[name]
    else next[name] = value
    this.values = next
    this.dispatchEvent(new CustomEvent("filters-change", { detail: next, bubbles: true }))
  }

  protected override render() {
    if (this.filters.length === 0) return nothing
    const anySet = this.filters.some((f) => f.locked === undefined && this.values[f.name] !== undefined)
    return html`<form class="filters" role="search" aria-label=${msg("viewer.filters")} @submit=${(e: Event) => e.preventDefault()}>
      ${this.filters.map((f) => f.locked !== undefined ? this.locked(f) : f.kind === "range" ? this.range(f) : this.choice(f))}
      ${anySet ? html`<button type="button" class="reset" ?disabled=${this.disabled} @click=${this.reset}>${msg("viewer.filters.clear")}</button>` : nothing}
    </form>`
  }

  private reset = () => {
    this.values = {}
    this.dispatchEvent(new CustomEvent("filters-change", { detail: {}, bubbles: true }))
  }

  private locked(f: FilterControl) {
    const id = `filter-${f.name}`
    return html`<div class="filter locked">
      <label for=${id}>${f.title}</label>
      <select id=${id} disabled aria-describedby="${id}-note"><option>${String(f.locked)}</option></select>
      <small id="${id}-note">${msg("viewer.filters.locked")}</small>
    </div>`
  }

  private choice(f: FilterControl) {
    const id = `filter-${f.name}`
    const current = this.values[f.name]
    const chosen = f.options.findIndex((o) => o === current)
    return html`<div class="filter">
      <label for=${id}>${f.title}</label>
      <select id=${id} ?disabled=${this.disabled} @change=${(e: Event) => {
      const index = Number((e.target as HTMLSelectElement).value)
      this.set(f.name, index < 0 ? undefined : f.options[index])
    }}>
        <option value="-1" ?selected=${chosen < 0}>${msg("viewer.filters.all")}</option>
        ${f.options.map((o, i) => html`<option value=${i} ?selected=${i === chosen}>${String(o)}</option>`)}
      </select>
    </div>`
  }

  private range(f: FilterControl) {
    const id = `filter-${f.name}`
    const current = this.values[f.name]
    const [from, to] = Array.isArray(current) ? current.map(String) : ["", ""]
    const changed = () => {
      const start = (this.querySelector(`#${id}-from`) as HTMLInputElement).value
      const end = (this.querySelector(`#${id}-to`) as HTMLInputElement).value
      // A range needs both ends; either one alone changes nothing yet.
      if (start !== "" && end !== "") this.set(f.name, [start, end])
      else if (start === "" && end === "" && current !== undefined) this.set(f.name, undefined)
    }
    return html`<fieldset class="filter range">
      <legend>${f.title}</legend>
      <label for="${id}-from" class="visually-hidden">${msg("viewer.filters.from", { title: f.title })}</label>
      <input id="${id}-from" type="date" .value=${from ?? ""} ?disabled=${this.disabled} @change=${changed}>
      <span aria-hidden="true">–</span>
      <label for="${id}-to" class="visually-hidden">${msg("viewer.filters.to", { title: f.title })}</label>
      <input id="${id}-to" type="date" .value=${to ?? ""} ?disabled=${this.disabled} @change=${changed}>
    </fieldset>`
  }
}

customElements.define("filter-bar", FilterBar)

declare global {
  interface HTMLElementTagNameMap {
    "filter-bar": FilterBar
  }
}
