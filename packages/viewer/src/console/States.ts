/**
 * The states every screen shows the same way: loading, empty, and a
 * problem in words (its title, detail and what to do, with a retry).
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import type { Problem } from "../client/ApiClient.ts"
import { msg } from "../i18n/msg.ts"
import { fieldLine } from "./FormErrors.ts"

/** Something is on its way. */
export const loading = (): TemplateResult => html`<p class="state" role="status"><span class="spinner" aria-hidden="true"></span>${msg("app.loading")}</p>`

/** Nothing to show, and what to do about it. */
export const empty = (text: string, hint?: string): TemplateResult =>
  html`<div class="state"><p>${text}</p>${hint === undefined ? nothing : html`<p>${hint}</p>`}</div>`

/**
 * What the screen shows is not there (a 404 on its object): one box in
 * words with the way back, and nothing else of the screen; no retry, which
 * would only answer the same.
 */
export const missingView = (text: string, back: { readonly href: string; readonly text: string }): TemplateResult =>
  html`<div class="problem missing" role="alert"><strong>${text}</strong><p><a href=${back.href}>${back.text}</a></p></div>`

/** A problem in words, the fields it names listed by their labels (FormErrors.ts); `retry` adds a button; `className` names the box (for focus). */
export const problemView = (problem: Problem | undefined, retry?: () => void, className = ""): TemplateResult | typeof nothing =>
  problem === undefined ? nothing : html`<div class="problem ${className}" role="alert" tabindex=${className === "" ? nothing : "-1"}>
    <strong>${problem.title}</strong>
    ${problem.detail === "" ? nothing : html`<p>${problem.detail}</p>`}
    ${problem.errors === undefined || problem.errors.length === 0 ? nothing : html`<p>${msg("problem.fields")}</p><ul class="field-errors">${
      problem.errors.map((e) => html`<li>${fieldLine(e)}</li>`)
    }</ul>`}
    <p>${problem.action}</p>
    ${retry === undefined ? nothing : html`<p><button type="button" class="secondary" @click=${retry}>${msg("problem.retry")}</button></p>`}
  </div>`
