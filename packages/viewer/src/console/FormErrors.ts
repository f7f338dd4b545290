/**
 * A refused form in words: each field a problem names (its `errors[]`, or
 * a `field: what` detail, ApiClient.ts) is marked where it is —
 * `aria-invalid`, a message under it tied by `aria-describedby`, the first
 * one focused — and the problem's box lists them by their labels
 * (States.ts `problemView`). A field is the form's control whose
 * `data-field` (else `name`) is the API's field (`cron`, `report_id`).
 * The marks are the DOM's, not the template's, so any form takes them with
 * one call; the next call (or `clearFields`) takes them away
 * (docs/decisions/0023, "Errors in words").
 *
 * @since 0.1.0
 */
import type { FieldError, Problem } from "../client/ApiClient.ts"
import { fieldKey, fieldWords } from "../client/ProblemWords.ts"
import { msg } from "../i18n/msg.ts"

const marked = "data-field-marked"
const base = "data-field-describedby"

/** Takes away the marks of an earlier refusal. */
export const clearFields = (form: ParentNode): void => {
  for (const message of form.querySelectorAll("[data-field-error]")) message.remove()
  for (const control of form.querySelectorAll<HTMLElement>(`[${marked}]`)) {
    control.removeAttribute("aria-invalid")
    const before = control.getAttribute(base) ?? ""
    if (before === "") control.removeAttribute("aria-describedby")
    else control.setAttribute("aria-describedby", before)
    control.removeAttribute(base)
    control.removeAttribute(marked)
  }
}

/** The control of `key` in `form`: its `data-field`, else its `name`. */
const controlOf = (form: ParentNode, key: string): HTMLElement | null =>
  key === "" ? null : form.querySelector<HTMLElement>(`[data-field="${CSS.escape(key)}"]`) ?? form.querySelector<HTMLElement>(`[name="${CSS.escape(key)}"]:not([type=hidden])`)

/** A control's label in words: its `aria-label`, else its `<label>`'s own text (without the control's). */
const labelOf = (control: HTMLElement): string | undefined => {
  const aria = control.getAttribute("aria-label")
  if (aria !== null && aria.trim() !== "") return aria.trim()
  const label = (control as HTMLInputElement).labels?.[0]
  if (label === undefined) return undefined
  const copy = label.cloneNode(true) as HTMLElement
  for (const inner of copy.querySelectorAll("input, select, textarea, .hint, [data-field-error], datalist")) inner.remove()
  const text = copy.textContent?.replace(/\s+/g, " ").trim() ?? ""
  return text === "" ? undefined : text
}

let made = 0

/**
 * Marks in `form` the fields `problem` names and focuses the first; returns
 * the problem with each field's message in words and its label (for the
 * box's list) and whether a field took focus (else the caller focuses the
 * box). Without field errors the form is only cleared.
 */
export const markFields = (form: ParentNode, problem: Problem | undefined): { readonly problem: Problem | undefined; readonly focused: boolean } => {
  clearFields(form)
  if (problem?.errors === undefined || problem.errors.length === 0) return { problem, focused: false }
  let first: HTMLElement | undefined
  const errors = problem.errors.map((error): FieldError => {
    const message = fieldWords(error.message)
    const control = controlOf(form, fieldKey(error.path))
    if (control === null) return { ...error, message }
    const label = labelOf(control)
    const id = control.getAttribute(marked) ?? `field-error-${++made}`
    const existing = form.querySelector<HTMLElement>(`[data-field-error="${id}"]`)
    if (existing !== null) {
      existing.textContent = `${existing.textContent} ${message}`
    } else {
      const note = document.createElement("p")
      note.className = "field-error"
      note.id = id
      note.dataset.fieldError = id
      note.textContent = message
      // Under the field: after its <label> when it wraps it (so the words are not part of its name); in a one-line form, on a line of its own (the theme).
      ;(control.closest("label") ?? control).after(note)
      control.setAttribute(base, control.getAttribute("aria-describedby") ?? "")
      control.setAttribute("aria-describedby", [control.getAttribute(base), id].filter((t) => t !== "").join(" "))
      control.setAttribute("aria-invalid", "true")
      control.setAttribute(marked, id)
    }
    first ??= control
    return label === undefined ? { ...error, message } : { ...error, message, label }
  })
  first?.focus()
  return { problem: { ...problem, errors }, focused: first !== undefined }
}

/** A field error in the box's list: "Cron expression: Use a five-field cron expression…". */
export const fieldLine = (error: FieldError): string => {
  const field = error.label ?? fieldName(fieldKey(error.path))
  const message = fieldWords(error.message)
  return field === "" ? message : msg("problem.field.named", { field, message })
}

/** A field's name in words when the form has no label for it (`expires_at` → "expires at"). */
const fieldName = (key: string): string => key.replace(/_id$/, "").replace(/[_-]+/g, " ").replace(/\.\d+\./g, " ").trim()

/** What `showRefusal` needs of a screen: it draws, then the form is there to mark. */
interface Host {
  readonly updateComplete: Promise<boolean>
  querySelector<E extends Element = Element>(selector: string): E | null
}

/**
 * A form's refusal, for a screen that keeps its own problem: `keep` it (the
 * box is drawn), mark the fields it names, keep the worded problem, and
 * focus the first field, else the box (`box`, a selector).
 */
export const showRefusal = async (host: Host, form: HTMLFormElement, problem: Problem, keep: (problem: Problem) => void, box?: string): Promise<void> => {
  keep(problem)
  await host.updateComplete
  const shown = markFields(form, problem)
  if (shown.problem !== undefined) keep(shown.problem)
  if (!shown.focused && box !== undefined) {
    await host.updateComplete
    host.querySelector<HTMLElement>(box)?.focus()
  }
}
