/**
 * The changes a screen makes (enable, delete, resend…), as one Lit
 * controller: whether one is under way (the screen's buttons are disabled
 * meanwhile), what the last one did (a notice) or why it failed (a problem
 * in words); each change clears both, and focus then goes to what it said,
 * so a screen reader hears it. The screen re-renders at each change.
 *
 * @since 0.1.0
 */
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../client/ApiClient.ts"
import { clearFields, markFields } from "./FormErrors.ts"

interface State<N> {
  readonly busy: boolean
  readonly problem: Problem | undefined
  readonly notice: N | undefined
}

/** The screen's changes; `N` is what a notice holds (words, or words with a link). */
export class Actions<N = string> implements ReactiveController {
  private readonly host: ReactiveControllerHost & HTMLElement
  private readonly focusOn: (failed: boolean) => string
  private state: State<N> = { busy: false, problem: undefined, notice: undefined }

  /** `focusOn`: the selector of what gets focus after a change, given whether it failed. */
  constructor(host: ReactiveControllerHost & HTMLElement, focusOn: (failed: boolean) => string) {
    this.host = host
    this.focusOn = focusOn
    host.addController(this)
  }

  /** Nothing to start: the state lives as long as the screen (a controller needs one hook). */
  hostConnected(): void {}

  /** A change is under way. */
  get busy(): boolean {
    return this.state.busy
  }
  set busy(busy: boolean) {
    this.set({ busy })
  }

  /** Why the last change failed. */
  get problem(): Problem | undefined {
    return this.state.problem
  }
  set problem(problem: Problem | undefined) {
    this.set({ problem })
  }

  /** What the last change did. */
  get notice(): N | undefined {
    return this.state.notice
  }
  set notice(notice: N | undefined) {
    this.set({ notice })
  }

  private set(next: Partial<State<N>>) {
    this.state = { ...this.state, ...next }
    this.host.requestUpdate()
  }

  /**
   * Runs one change: busy meanwhile, then its notice (`notice` of its
   * result) or its problem, and focus on it; the result, unless it failed.
   * A change sent by a `form` has the fields its problem names marked there
   * (FormErrors.ts), focus on the first.
   */
  async run<A>(change: () => Promise<A>, notice: (result: A) => N | undefined, form?: HTMLFormElement): Promise<A | undefined> {
    if (form !== undefined) clearFields(form)
    this.set({ busy: true, problem: undefined, notice: undefined })
    let result: A | undefined
    try {
      result = await change()
      this.notice = notice(result)
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.busy = false
    }
    await this.host.updateComplete
    if (form !== undefined && this.problem !== undefined && form.isConnected) {
      const { problem, focused } = markFields(form, this.problem)
      this.problem = problem
      if (focused) return result
    }
    this.host.querySelector<HTMLElement>(this.focusOn(this.problem !== undefined))?.focus()
    return result
  }
}

/** A notice in words above the screen's list (`className` names it for focus); focusable. */
export const noticeView = (notice: string | undefined, className: string): TemplateResult | typeof nothing =>
  notice === undefined ? nothing : html`<p class="notice ${className}" role="status" tabindex="-1">${notice}</p>`
