/**
 * The share dialog's Manage tab (`<analytics-share-dialog>`, docs/guides/console.md),
 * as a Lit controller of the dialog: every grant of the subject, a page of
 * 50 at a time, with its state, label, maker and (a link's or an embed's)
 * last opening in words; copy a link's URL again (decision 0014, "Links
 * copied again"); edit (actions, expiry, watermark, a link's password, a
 * label), pause and resume a link, revoke behind a confirmation naming who
 * loses access. The Share tab reads the same grants for its list of who
 * has access.
 *
 * @since 0.1.0
 */
import { css, html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit"
import { type ApiClient, type Problem, problemIn } from "../client/ApiClient.ts"
import { clearFields, showRefusal } from "../console/FormErrors.ts"
import { type MessageKey, msg } from "../i18n/msg.ts"
import {
  type Action,
  activeFirst,
  actionsWords,
  audienceActions,
  confirmRevoke,
  dateWords,
  dayOf,
  endOfDay,
  expiryWords,
  type Grant,
  labelMax,
  learnNames,
  makerWords,
  openedWords,
  stateName,
  stateWords,
  titleWords,
  today,
  whoWords
} from "./Grants.ts"
import { noticeLine, problemBox } from "./Modal.ts"

/** The dialog the Manage tab is drawn in: the subject whose grants it lists, and the busy state both tabs share. */
export interface ShareManageHost extends ReactiveControllerHost {
  readonly subjectType: string
  readonly subjectId: string
  readonly renderRoot: HTMLElement | DocumentFragment
  /** A change is under way (a new grant's too): the buttons wait meanwhile. */
  busy: boolean
}

/** What the Manage tab asks of its dialog. */
export interface ShareManageOptions {
  /** The client the dialog talks through. */
  readonly api: () => ApiClient
  /** Where the revocation's confirmation is placed (the open `<dialog>`). */
  readonly confirmIn: () => Node & ParentNode
  /** What a refused edit's fields are marked in (`showRefusal`). */
  readonly fieldHost: () => Parameters<typeof showRefusal>[0]
  /** Tells the page a grant changed (`analytics-grant-updated`, `analytics-grant-revoked`). */
  readonly changed: (event: "updated" | "revoked", grant: Grant) => void
}

interface State {
  readonly grants: ReadonlyArray<Grant>
  readonly loaded: boolean
  readonly cursor: string | null
  readonly problem: Problem | undefined
  readonly editing: string | undefined
  readonly notice: string | undefined
}

/** The look of the Manage tab's list, and of the revocation's confirmation. */
export const shareManageStyles = css`
  ul.grants { list-style: none; margin: 0; padding: 0; border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); }
  ul.grants > li { padding: 12px 16px; border-top: 1px solid var(--analytics-border, #d0d7de); display: grid; gap: 6px; }
  ul.grants > li:first-child { border-top: none; }
  .who { font-weight: 600; overflow-wrap: anywhere; }
  .meta { font-size: 0.9rem; color: var(--analytics-muted, #57606a); }
  .state { display: inline-block; font-size: 0.8rem; font-weight: 600; padding: 1px 8px; border-radius: 999px; border: 1px solid currentColor; margin-left: 6px; }
  .state.active { color: var(--analytics-ok, #1a7f37); }
  .state.paused { color: var(--analytics-warn, #9a6700); }
  .state.expired, .state.revoked { color: var(--analytics-muted, #57606a); }
  .state-text { text-align: center; color: var(--analytics-muted, #57606a); padding: 16px; border: 1px dashed var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); }
  .analytics-confirm { width: min(440px, calc(100vw - 32px)); padding: 20px 24px; }
  .analytics-confirm h2 { margin-bottom: 8px; }
`

/** The Manage tab: the subject's grants, loaded and changed; the dialog re-renders at each change. */
export class ShareManage implements ReactiveController {
  private readonly host: ShareManageHost
  private readonly options: ShareManageOptions
  private state: State = { grants: [], loaded: false, cursor: null, problem: undefined, editing: undefined, notice: undefined }
  /** The first page being asked for (opening the dialog and choosing the tab share it). */
  private loading: Promise<void> | undefined

  constructor(host: ShareManageHost, options: ShareManageOptions) {
    this.host = host
    this.options = options
    host.addController(this)
  }

  /** Nothing to start: the grants live as long as the dialog (a controller needs one hook). */
  hostConnected(): void {}

  /** The grants loaded so far, in the API's order. */
  get grants(): ReadonlyArray<Grant> {
    return this.state.grants
  }

  /** The first page has answered (or failed). */
  get loaded(): boolean {
    return this.state.loaded
  }

  /** Why the grants could not be read, or the last change failed. */
  get problem(): Problem | undefined {
    return this.state.problem
  }

  /** The grants changed elsewhere (a new one shared): the tab reads them again when next shown. */
  stale(): void {
    this.set({ loaded: false })
  }

  /** Forgets what the last change said (the dialog reopened, another tab chosen). */
  clearNotice(): void {
    this.set({ notice: undefined })
  }

  /** Reads the first page (once at a time), or with `more` the next one. */
  load(more = false): Promise<void> {
    if (!more && this.loading !== undefined) return this.loading
    const loading = this.fetch(more)
    if (!more) this.loading = loading.finally(() => (this.loading = undefined))
    return loading
  }

  /** Reads the first page again now, whether or not one is being read. */
  async fetch(more: boolean): Promise<void> {
    this.set({ problem: undefined })
    const path: `v1/sharing/grants?${string}` = `v1/sharing/grants?subject_type=${encodeURIComponent(this.host.subjectType)}&subject_id=${encodeURIComponent(this.host.subjectId)}&limit=50`
    try {
      const page = await this.api.list(path, more ? this.state.cursor : null)
      this.set({
        grants: more ? [...this.state.grants, ...page.data] : page.data,
        cursor: page.page.has_more ? page.page.next_cursor : null,
        loaded: true
      })
      void learnNames(this.api, page.data, () => this.host.requestUpdate())
    } catch (error) {
      this.set({ problem: problemIn(error), loaded: true })
    }
  }

  private get api(): ApiClient {
    return this.options.api()
  }

  private set(next: Partial<State>) {
    this.state = { ...this.state, ...next }
    this.host.requestUpdate()
  }

  private query<E extends Element>(selector: string): E | null {
    return this.host.renderRoot.querySelector<E>(selector)
  }

  private replaceGrant(grant: Grant) {
    this.set({ grants: this.state.grants.map((g) => g.grant_id === grant.grant_id ? grant : g) })
  }

  /** Runs a change on a grant; its problem, if any, shows above the list. */
  private async change(run: () => Promise<Grant>, event: "updated" | "revoked", notice: (g: Grant) => string, form?: HTMLFormElement) {
    this.set({ problem: undefined })
    if (form !== undefined) clearFields(form)
    this.host.busy = true
    try {
      const grant = await run()
      this.replaceGrant(grant)
      this.set({ editing: undefined, notice: notice(grant) })
      this.options.changed(event, grant)
    } catch (error) {
      if (form !== undefined) {
        this.host.busy = false
        return showRefusal(this.options.fieldHost(), form, problemIn(error), (problem) => this.set({ problem }), ".manage-problem")
      }
      this.set({ problem: problemIn(error) })
    } finally {
      this.host.busy = false
    }
    await this.host.updateComplete
    this.query<HTMLElement>(this.state.problem === undefined ? ".manage-notice" : ".manage-problem")?.focus()
  }

  private grantPath<const Tail extends string = "">(grant: Grant, tail: Tail = "" as Tail): `v1/sharing/grants/${string}${Tail}` {
    return `v1/sharing/grants/${encodeURIComponent(grant.grant_id)}${tail}`
  }

  private async revoke(grant: Grant) {
    const who = titleWords(grant)
    if (!(await confirmRevoke(this.options.confirmIn(), who))) return
    await this.change(() => this.api.delete(this.grantPath(grant)), "revoked", () => msg("share.revoked", { who }))
  }

  private async pause(grant: Grant, pause: boolean) {
    const who = titleWords(grant)
    await this.change(
      () => this.api.post(this.grantPath(grant, pause ? "/pause" : "/resume")),
      "updated",
      () => msg(pause ? "share.paused" : "share.resumed", { who })
    )
  }

  /** A link's URL copied again; where the clipboard refuses, the URL in words to copy by hand. */
  private async copyLink(grant: Grant) {
    const url = grant.link_url ?? ""
    try {
      await navigator.clipboard.writeText(url)
      this.set({ notice: msg("share.linkCopied") })
    } catch {
      this.set({ notice: msg("share.linkCopy.failed", { url }) })
    }
  }

  /** A problem of the edit form found before asking the service. */
  private refuse(title: MessageKey) {
    this.set({ problem: { status: 400, code: "client", title: msg(title), detail: "", action: msg("problem.action.fix") } })
  }

  private async save(event: Event, grant: Grant) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const chosen = data.getAll("edit-action").map(String) as Array<Action>
    if (chosen.length === 0) return this.refuse("share.needAction")
    const day = String(data.get("edit-expires") ?? "")
    const password = String(data.get("edit-password") ?? "")
    if (password !== "" && [...password].length < 8) {
      this.refuse("share.passwordShort")
      form.querySelector<HTMLElement>("[name=edit-password]")?.focus()
      return
    }
    const labelField = form.querySelector<HTMLInputElement>("[name=edit-label]")
    const label = labelField === null ? undefined : labelField.value.trim()
    if (label !== undefined && [...label].length > labelMax) {
      this.refuse("share.label.long")
      labelField?.focus()
      return
    }
    const body: Record<string, unknown> = {
      // Sent only when changed (an older service knows no label); empty removes it.
      ...(label === undefined || label === (grant.label ?? "") ? {} : { label: label === "" ? null : label }),
      actions: chosen,
      expires_at: data.get("no-expiry") !== null || day === "" ? null : endOfDay(day),
      ...(form.querySelector("[name=edit-watermark]") === null ? {} : { watermark: data.get("edit-watermark") !== null }),
      // A new password ends the link's open sessions (the API's rule); an empty field keeps the one it has.
      ...(password !== "" ? { password } : data.get("no-password") !== null ? { password: null } : {})
    }
    // Named as it is now (a label just given names it).
    await this.change(() => this.api.patch(this.grantPath(grant), body), "updated", (changed) => msg("share.edit.saved", { who: titleWords(changed) }), form)
  }

  private edit(grant: Grant | undefined) {
    const id = grant?.grant_id
    const was = this.state.editing
    this.set({ editing: id })
    void this.host.updateComplete.then(() =>
      this.query<HTMLElement>(id === undefined ? `#edit-${was}` : `#editing-${id} input`)?.focus()
    )
  }

  /** The tab's panel: the notice or problem of the last change, the grants (active first) and "Load more". */
  render(): TemplateResult {
    if (!this.state.loaded) return html`<p class="state-text" role="status">${msg("app.loading")}</p>`
    return html`
      ${noticeLine(this.state.notice, "manage-notice")}
      ${problemBox(this.state.problem, "manage-problem")}
      ${this.state.grants.length === 0
        ? this.state.problem === undefined ? html`<p class="state-text">${msg("share.manage.empty")}</p>` : nothing
        : html`<h3 id="grants-title">${msg("share.manage.caption")}</h3>
          <ul class="grants" aria-labelledby="grants-title">${activeFirst(this.state.grants).map((g) => this.renderGrant(g))}</ul>`}
      ${this.state.cursor === null ? nothing : html`<p><button type="button" class="secondary" @click=${() => void this.load(true)}>${msg("share.manage.more")}</button></p>`}
    `
  }

  private renderGrant(grant: Grant): TemplateResult {
    const active = grant.state === "active"
    const busy = this.host.busy
    // A labelled link or embed goes by its label; who it reaches follows.
    const who = titleWords(grant)
    const reaches = whoWords(grant)
    const details = [
      who === reaches ? "" : reaches,
      actionsWords(grant),
      grant.password_protected ? msg("share.grant.password") : "",
      expiryWords(grant.expires_at)
    ].filter((s) => s !== "").join(" · ")
    const opened = openedWords(grant)
    return html`<li>
      <div><span class="who">${who}</span><span class="state ${stateName(grant)}">${stateWords(grant)}</span></div>
      <div class="meta">${details}</div>
      <div class="meta">${[msg("share.made", { by: makerWords(grant), on: dateWords(grant.created_at) }), opened].filter((t) => t !== "").join(" · ")}</div>
      ${this.state.editing === grant.grant_id ? this.renderEdit(grant, who) : active ? html`<div class="row">
        <button type="button" class="secondary" id="edit-${grant.grant_id}" aria-label="${msg("share.edit")}: ${who}" @click=${() => this.edit(grant)}>${msg("share.edit")}</button>
        ${grant.principal_type === "link" && grant.link_url !== null ? html`<button type="button" class="secondary" aria-label="${msg("share.copyLink")}: ${who}"
          @click=${() => void this.copyLink(grant)}>${msg("share.copyLink")}</button>` : nothing}
        ${grant.principal_type === "link" ? html`<button type="button" class="secondary" aria-label="${msg(grant.paused ? "share.resume" : "share.pause")}: ${who}"
          ?disabled=${busy} @click=${() => void this.pause(grant, !grant.paused)}>${msg(grant.paused ? "share.resume" : "share.pause")}</button>` : nothing}
        <button type="button" class="danger secondary" aria-label="${msg("share.revoke")}: ${who}" ?disabled=${busy} @click=${() => void this.revoke(grant)}>${msg("share.revoke")}</button>
      </div>` : nothing}
    </li>`
  }

  private renderEdit(grant: Grant, who: string): TemplateResult {
    const offered = audienceActions(grant.principal_type === "link" || grant.principal_type === "embed" ? "link" : "people")
    return html`<form id="editing-${grant.grant_id}" novalidate aria-label=${msg("share.edit.title", { who })} @submit=${(e: Event) => void this.save(e, grant)}>
      <fieldset>
        <legend>${msg("share.actions")}</legend>
        ${offered.map((a) => html`<label class="check"><input type="checkbox" name="edit-action" value=${a} ?checked=${grant.actions.includes(a)}>
          ${msg(`share.action.${a}` as MessageKey)}</label>`)}
      </fieldset>
      <label>${msg("share.expiry")}<input name="edit-expires" data-field="expires_at" type="date" min=${today()} .value=${dayOf(grant.expires_at)}></label>
      <label class="check"><input type="checkbox" name="no-expiry">${msg("share.edit.removeExpiry")}</label>
      ${grant.principal_type === "link" && grant.email === null && !grant.watermark ? nothing
        // A link's watermark tiles its viewer's address: one made without it has none to tile (a new link with the address does).
        : html`<label class="check"><input type="checkbox" name="edit-watermark" ?checked=${grant.watermark}>${msg("share.watermark")}</label>`}
      ${grant.principal_type === "link" || grant.principal_type === "embed" ? html`<div class="field"><label for="edit-label-${grant.grant_id}">${msg("share.edit.label")}</label>
        <input id="edit-label-${grant.grant_id}" name="edit-label" data-field="label" type="text" autocomplete="off" maxlength=${labelMax}
          .value=${grant.label ?? ""} aria-describedby="edit-label-hint-${grant.grant_id}">
        <p class="hint" id="edit-label-hint-${grant.grant_id}">${msg("share.edit.label.hint")}</p></div>` : nothing}
      ${grant.principal_type === "link" ? html`<div class="field"><label for="edit-password-${grant.grant_id}">${msg(grant.password_protected ? "share.edit.newPassword" : "share.edit.addPassword")}</label>
        <input id="edit-password-${grant.grant_id}" name="edit-password" data-field="password" type="password" autocomplete="new-password" minlength="8" aria-describedby="edit-password-hint-${grant.grant_id}">
        <p class="hint" id="edit-password-hint-${grant.grant_id}">${msg("share.edit.password.hint")}</p></div>
        ${grant.password_protected ? html`<label class="check"><input type="checkbox" name="no-password">${msg("share.edit.removePassword")}</label>` : nothing}` : nothing}
      <div class="row">
        <button type="submit" ?disabled=${this.host.busy}>${msg("share.edit.save")}</button>
        <button type="button" class="secondary" @click=${() => this.edit(undefined)}>${msg("share.edit.cancel")}</button>
      </div>
    </form>`
  }
}
