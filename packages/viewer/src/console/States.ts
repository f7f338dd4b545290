/**
 * The states every screen shows the same way: loading, empty, and a
 * problem in words (its title, detail and what to do, with a retry).
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import type { Problem } from "../client/ApiClient.ts"
import { msg } from "../i18n/msg.ts"

/** Something is on its way. */
export const loading = (): TemplateResult => html`<p class="state" role="status"><span class="spinner" aria-hidden="true"></span>${msg("app.loading")}</p>`

/** Nothing to show, and what to do about it. */
export const empty = (text: string, hint?: string): TemplateResult =>
  html`<div class="state"><p>${text}</p>${hint === undefined ? nothing : html`<p>${hint}</p>`}</div>`

/** A problem in words; `retry` adds a button. */
export const problemView = (problem: Problem | undefined, retry?: () => void): TemplateResult | typeof nothing =>
  problem === undefined ? nothing : html`<div class="problem" role="alert">
    <strong>${problem.title}</strong>
    ${problem.detail === "" ? nothing : html`<p>${problem.detail}</p>`}
    <p>${problem.action}</p>
    ${retry === undefined ? nothing : html`<p><button type="button" class="secondary" @click=${retry}>${msg("problem.retry")}</button></p>`}
  </div>`
