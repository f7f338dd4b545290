/**
 * `<filter-bar>`: the report's filters as native controls: a choice as a
 * select ("All" and the values the viewer may see), a date range as two
 * date inputs. A filter an embedding app locked shows its value in a
 * disabled control that says so. The filters in force are listed under the
 * controls as chips, each a button that removes its filter. Every change sends `filters-change` with
 * the values set (a filter left at "All" is absent).
 *
 * The controls show `values`, the values in force, whatever the person did
 * to them before (a select follows its value on every render), except while
 * a change is asked for (`asked`), which the next change builds on: keys
 * move on from the value chosen. The host gives new `values` when the view
 * with them arrives, or calls `settle()` when it failed (the controls go
 * back to the values in force). A date range asks only for two whole dates
 * (a four-digit year) in order, on `change` (a date picked, or the last
 * digit of a year typed) or when focus leaves it; what the person typed
 * stays, and a range that cannot be asked says why in words.
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import { live } from "lit/directives/live.js"
import type { FilterControl, FilterValue } from "./Data.ts"
import { msg } from "./i18n/msg.ts"

/** What `filters-change` carries. */
export type FiltersChange = CustomEvent<Readonly<Record<string, FilterValue>>>

/** A date input's value as a whole date: `yyyy-mm-dd` with a year of four digits (Chromium reports `0002-…` while the year is typed). */
const wholeDate = /^[1-9]\d{3}-\d{2}-\d{2}$/

/** The report's filters as controls. */
export class FilterBar extends LitElement {
  static override properties = {
    filters: { attribute: false },
    values: { attribute: false },
    disabled: { type: Boolean },
    asked: { state: true },
    invalid: { state: true }
  }

  declare filters: ReadonlyArray<FilterControl>
  /** The values in force: what the report shown is filtered by. */
  declare values: Readonly<Record<string, FilterValue>>
  declare disabled: boolean
  /** The values last asked for, until the view with them (new `values`) or `settle()`. */
  declare asked: Readonly<Record<string, FilterValue>> | undefined
  /** Why a range cannot be asked for, by filter name. */
  declare invalid: Readonly<Record<string, string>>

  constructor() {
    super()
    this.filters = []
    this.values = {}
    this.disabled = false
    this.asked = undefined
    this.invalid = {}
  }

  protected override createRenderRoot() {
    return this
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>) {
    // The view asked for arrived: the controls show what is in force now.
    if (changed.has("values")) this.asked = undefined
  }

  /** The change asked for failed: the controls show the values in force again. */
  settle(): void {
    this.asked = undefined
    this.requestUpdate()
  }

  /** What the controls show and the next change builds on. */
  private get shown(): Readonly<Record<string, FilterValue>> {
    return this.asked ?? this.values
  }

  private set(name: string, value: FilterValue | undefined) {
    const next: Record<string, FilterValue> = { ...this.shown }
    if (value === undefined) delete next[name]
    else next[name] = value
    this.asked = next
    this.dispatchEvent(new CustomEvent("filters-change", { detail: next, bubbles: true }))
  }

  protected override render() {
    if (this.filters.length === 0) return nothing
    const anySet = this.filters.some((f) => f.locked === undefined && this.shown[f.name] !== undefined)
    return html`<form class="filters" role="search" aria-label=${msg("viewer.filters")} @submit=${(e: Event) => e.preventDefault()}>
      ${this.filters.map((f) => f.locked !== undefined ? this.locked(f) : f.kind === "range" ? this.range(f) : this.choice(f))}
      ${anySet ? html`<button type="button" class="reset" ?disabled=${this.disabled} @click=${this.reset}>${msg("viewer.filters.clear")}</button>` : nothing}
    </form>${this.chips()}`
  }

  /** The filters in force (those in `values`, not what is being asked), each a chip that removes it. */
  private chips() {
    const active = this.filters.filter((f) => f.locked === undefined && this.values[f.name] !== undefined)
    if (active.length === 0) return nothing
    return html`<ul class="chips" aria-label=${msg("viewer.filters.active")}>${
      active.map((f) => {
        const value = this.values[f.name]
        const text = Array.isArray(value) ? value.map(String).join(" – ") : String(value)
        return html`<li><button type="button" ?disabled=${this.disabled} aria-label=${msg("viewer.filters.chip.remove", { title: f.title, value: text })}
          @click=${() => this.lift(f)}>${f.title}: ${text} <span aria-hidden="true">×</span></button></li>`
      })
    }</ul>`
  }

  /** Lifts one filter: a range's inputs emptied too, as "Clear filters" does. */
  private lift(f: FilterControl) {
    for (const input of this.querySelectorAll<HTMLInputElement>(`#filter-${f.name}-from, #filter-${f.name}-to`)) input.value = ""
    const { [f.name]: _, ...others } = this.invalid
    this.invalid = others
    this.set(f.name, undefined)
    // Focus stays in the filters: on the control of the filter removed.
    void this.updateComplete.then(() => this.querySelector<HTMLElement>(`#filter-${f.name}, #filter-${f.name}-from`)?.focus())
  }

  private reset = () => {
    this.asked = {}
    this.invalid = {}
    // The date inputs are emptied too: nothing typed stays behind a cleared filter.
    for (const input of this.querySelectorAll<HTMLInputElement>("input[type=date]")) input.value = ""
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
    const current = this.shown[f.name]
    const chosen = f.options.findIndex((o) => o === current)
    // `live`: the select's own value, which the person may have moved, is set back to the one shown on every render.
    return html`<div class="filter">
      <label for=${id}>${f.title}</label>
      <select id=${id} ?disabled=${this.disabled} .value=${live(String(chosen))} @change=${(e: Event) => {
      const index = Number((e.target as HTMLSelectElement).value)
      this.set(f.name, index < 0 ? undefined : f.options[index])
    }}>
        <option value="-1" ?selected=${chosen < 0}>${msg("viewer.filters.all")}</option>
        ${f.options.map((o, i) => html`<option value=${i} ?selected=${i === chosen}>${String(o)}</option>`)}
      </select>
    </div>`
  }

  /** Asks for the range the two inputs hold, when it is whole and in order; otherwise says why (`leaving`: focus left it). */
  private rangeChanged(f: FilterControl, leaving: boolean) {
    const id = `filter-${f.name}`
    const from = this.querySelector<HTMLInputElement>(`#${id}-from`)
    const to = this.querySelector<HTMLInputElement>(`#${id}-to`)
    if (from === null || to === null) return
    const [start, end] = [from.value, to.value]
    // A half-typed date reads "" (or a year under 1000, while its digits come): not a date yet.
    const partial = (input: HTMLInputElement) => input.validity.badInput || (input.value !== "" && !wholeDate.test(input.value))
    const reason = start !== "" && end !== "" && wholeDate.test(start) && wholeDate.test(end) && start > end
      ? msg("viewer.filters.range.reversed")
      : leaving && (partial(from) || partial(to))
      ? msg("viewer.filters.range.incomplete")
      : undefined
    const { [f.name]: _, ...others } = this.invalid
    this.invalid = reason === undefined ? others : { ...others, [f.name]: reason }
    if (reason !== undefined) return
    const current = this.shown[f.name]
    const [shownFrom, shownTo] = Array.isArray(current) ? current.map(String) : ["", ""]
    if (wholeDate.test(start) && wholeDate.test(end)) {
      if (start !== shownFrom || end !== shownTo) this.set(f.name, [start, end])
    } else if (start === "" && end === "" && !from.validity.badInput && !to.validity.badInput && current !== undefined) {
      // Both emptied: the range is lifted. One end alone changes nothing yet.
      this.set(f.name, undefined)
    }
  }

  private range(f: FilterControl) {
    const id = `filter-${f.name}`
    const current = this.shown[f.name]
    const [from, to] = Array.isArray(current) ? current.map(String) : ["", ""]
    const reason = this.invalid[f.name]
    const changed = () => this.rangeChanged(f, false)
    const left = () => this.rangeChanged(f, true)
    // Not `live`: what the person typed stays until a range in force replaces it.
    return html`<fieldset class="filter range">
      <legend>${f.title}</legend>
      <label for="${id}-from" class="visually-hidden">${msg("viewer.filters.from", { title: f.title })}</label>
      <input id="${id}-from" type="date" .value=${from ?? ""} ?disabled=${this.disabled} aria-invalid=${reason === undefined ? "false" : "true"}
        aria-describedby=${reason === undefined ? nothing : `${id}-invalid`} @change=${changed} @blur=${left}>
      <span aria-hidden="true">–</span>
      <label for="${id}-to" class="visually-hidden">${msg("viewer.filters.to", { title: f.title })}</label>
      <input id="${id}-to" type="date" .value=${to ?? ""} ?disabled=${this.disabled} aria-invalid=${reason === undefined ? "false" : "true"}
        aria-describedby=${reason === undefined ? nothing : `${id}-invalid`} @change=${changed} @blur=${left}>
      <p class="invalid" id="${id}-invalid" role="alert" ?hidden=${reason === undefined}>${reason ?? ""}</p>
    </fieldset>`
  }
}

customElements.define("filter-bar", FilterBar)

declare global {
  interface HTMLElementTagNameMap {
    "filter-bar": FilterBar
  }
}
