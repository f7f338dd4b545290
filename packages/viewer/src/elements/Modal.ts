/**
 * The modal dialog the public elements share (`<analytics-share-dialog>`,
 * `<analytics-export-button>`): a Lit controller that keeps the element's
 * `open` and its `<dialog>` in step (`showModal`, so focus stays inside and
 * Escape closes), focuses what the dialog starts on, returns focus to what
 * opened it, asks for the session once and talks through the console's
 * client or its own; and the dialog's look, its problem box and notice.
 *
 * @since 0.1.0
 */
import { css, html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit"
import type { ApiClient, Problem } from "../client/ApiClient.ts"
import { fieldLine } from "../console/FormErrors.ts"
import { msg } from "../i18n/msg.ts"
import { deepActive } from "./Confirm.ts"
import { elementClient, ensureSession } from "./ElementClient.ts"

/** An element with a modal dialog: its `open` state, and the client the console hands it or the base URL it calls. */
export interface ModalHost extends ReactiveControllerHost, HTMLElement {
  open: boolean
  readonly client: ApiClient | undefined
  readonly baseUrl: string | null
  readonly renderRoot: HTMLElement | DocumentFragment
}

/** How the dialog behaves in its element. */
export interface ModalOptions {
  /** The `<dialog>` in the element's render root. */
  readonly dialog: string
  /** What has focus when the dialog opens. */
  readonly focus: string
  /** On opening, after the session is asked for: load what the dialog shows. */
  readonly opened?: () => void
  /** On closing, before focus returns: stop what only the open dialog needs. */
  readonly closed?: () => void
  /** Where focus returns on closing; by default, what had it when `show()` was called. */
  readonly returnTo?: () => HTMLElement | null
}

/** Keeps an element's `open` and its `<dialog>` in step, with focus in and back out. */
export class ModalController implements ReactiveController {
  private readonly host: ModalHost
  private readonly options: ModalOptions
  private opener: HTMLElement | null = null
  private wasOpen = false
  private ownClient: ApiClient | undefined

  constructor(host: ModalHost, options: ModalOptions) {
    this.host = host
    this.options = options
    host.addController(this)
  }

  /** The console's client when it hands one, else the element's own at its base URL. */
  get api(): ApiClient {
    if (this.host.client !== undefined) return this.host.client
    this.ownClient ??= elementClient(this.host.baseUrl)
    return this.ownClient
  }

  /** The element's `<dialog>`, once rendered. */
  get dialog(): HTMLDialogElement | null {
    return this.host.renderRoot.querySelector<HTMLDialogElement>(this.options.dialog)
  }

  /** Opens the dialog, remembering what has focus (unless already open). */
  show(): void {
    if (!this.host.open) this.opener = deepActive()
    this.host.open = true
  }

  /** Closes the dialog; `closed` then puts focus back. */
  close(): void {
    this.host.open = false
  }

  /** Focuses the first element `selector` finds once the element has rendered. */
  focus(selector: string): void {
    void this.host.updateComplete.then(() => this.host.renderRoot.querySelector<HTMLElement>(selector)?.focus())
  }

  hostUpdated(): void {
    const open = this.host.open
    if (open === this.wasOpen) return
    this.wasOpen = open
    const dialog = this.dialog
    if (dialog === null) return
    if (open && !dialog.open) {
      dialog.showModal()
      this.focus(this.options.focus)
      void ensureSession(this.api)
      this.options.opened?.()
    } else if (!open && dialog.open) {
      dialog.close()
    }
  }

  /** The dialog's `close` event (Escape, the close button, `close()`): bind it as `@close=${modal.closed}`. */
  readonly closed = (): void => {
    this.host.open = false
    this.options.closed?.()
    const target = this.options.returnTo?.() ?? this.opener
    this.opener = null
    if (target?.isConnected === true) target.focus()
  }
}

/** A problem in the dialog: its title, detail and what to do; focusable, so a failure can be focused. */
export const problemBox = (problem: Problem | undefined, extra = ""): TemplateResult | typeof nothing =>
  problem === undefined ? nothing : html`<div class="problem ${extra}" role="alert" tabindex="-1">
      <strong>${problem.title}</strong>
      ${problem.detail === "" ? nothing : html`<p>${problem.detail}</p>`}
      ${problem.errors === undefined || problem.errors.length === 0 ? nothing : html`<p>${msg("problem.fields")}</p><ul class="field-errors">${
        problem.errors.map((e) => html`<li>${fieldLine(e)}</li>`)
      }</ul>`}
      <p>${problem.action}</p>
    </div>`

/** A notice in the dialog (what just happened); focusable. */
export const noticeLine = (notice: string | undefined, extra = ""): TemplateResult | typeof nothing =>
  notice === undefined ? nothing : html`<p class="notice ${extra}" role="status" tabindex="-1">${notice}</p>`

/** The look the dialogs share; each element adds its width and its own parts. */
export const modalStyles = css`
  dialog { max-height: calc(100dvh - 24px); padding: 0; border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px);
    background: var(--analytics-bg, #fff); color: inherit; box-shadow: 0 12px 40px rgb(0 0 0 / 0.25); }
  dialog::backdrop { background: rgb(0 0 0 / 0.45); }
  .frame { padding: 20px 24px 24px; }
  header { display: flex; align-items: start; gap: 12px; margin-bottom: 12px; }
  h2 { font-size: 1.25rem; line-height: 1.3; margin: 0; flex: 1; overflow-wrap: anywhere; }
  p { margin: 0 0 12px; }
  :focus-visible { outline: 3px solid var(--analytics-primary, #2563eb); outline-offset: 2px; }
  form { display: grid; gap: 16px; }
  fieldset { border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); padding: 12px 16px; margin: 0; display: grid; gap: 8px; min-width: 0; }
  legend { font-weight: 600; padding: 0 4px; }
  label { display: grid; gap: 4px; font-weight: 600; }
  label.check { display: flex; align-items: start; gap: 8px; font-weight: 400; }
  label.check input { width: auto; margin-top: 5px; flex: none; }
  .hint { font-weight: 400; font-size: 0.9rem; color: var(--analytics-muted, #57606a); margin: 0; }
  button { font: inherit; font-weight: 600; cursor: pointer; border-radius: 6px; padding: 8px 14px; border: 1px solid var(--analytics-primary, #2563eb); background: var(--analytics-primary, #2563eb); color: var(--analytics-on-primary, #fff); }
  button.secondary { background: transparent; color: var(--analytics-primary, #2563eb); }
  button.close { background: transparent; border-color: transparent; color: var(--analytics-fg, #1b1f24); padding: 4px 10px; font-size: 1.1rem; line-height: 1; }
  button[disabled] { opacity: 0.6; cursor: progress; }
  .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
  .field-error { color: var(--analytics-danger, #b42318); font-weight: 400; font-size: 0.9rem; margin: 0; overflow-wrap: anywhere; }
  .problem ul.field-errors { margin: 4px 0 0; padding-left: 1.25em; }
  input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: var(--analytics-danger, #b42318); border-width: 2px; }
  .problem { border: 1px solid var(--analytics-danger, #b42318); background: var(--analytics-danger-bg, #fef3f2); border-radius: var(--analytics-radius, 8px); padding: 10px 14px; margin: 0 0 16px; }
  .problem strong { color: var(--analytics-danger, #b42318); display: block; }
  .problem p { margin: 4px 0 0; }
  .notice { border-left: 4px solid var(--analytics-primary, #2563eb); padding: 8px 12px; background: var(--analytics-surface, #f6f8fa); margin: 0 0 16px; overflow-wrap: anywhere; }
  .notice:focus, .problem:focus { outline: none; }
  @media (max-width: 600px) { .frame { padding: 16px; } }
`
