/**
 * A workspace's public links (`/w/{workspace_id}/links`): every link and
 * embed of its reports and dashboards (`GET /v1/workspaces/{id}/links`,
 * tenant admins), titled by its label when it has one, with its state, who
 * made it and when, when it was last opened and how often, its expiry; pause,
 * resume and revoke (after a confirmation naming who loses access) from
 * here.
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import {
  actionsWords,
  confirmRevoke,
  dateWords,
  expiryWords,
  type Grant,
  learnNames,
  makerWords,
  openedWords,
  stateName,
  stateWords
} from "../../elements/Grants.ts"
import { type MessageKey, msg } from "../../i18n/msg.ts"
import { Actions, noticeView } from "../Actions.ts"
import { Pager } from "../Pager.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"

/** The links screen. */
export class LinksScreen extends Screen {
  /** Pausing, resuming and revoking: busy meanwhile, then focus on their notice or problem. */
  private readonly actions = new Actions(this, (failed) => failed ? ".problem" : ".links-notice")
  private links: Pager<Grant> | undefined
  /** Report and dashboard names by id, for what each link shares. */
  private readonly names = new Map<string, string>()
  /** Whether the names have been asked for (the list waits for them rather than show ids first). */
  private named = false

  override connectedCallback() {
    super.connectedCallback()
    const id = encodeURIComponent(this.workspaceId)
    this.links ??= new Pager((cursor) => this.context.client.list(`v1/workspaces/${id}/links?limit=50`, cursor), () => {
      this.requestUpdate()
      if (this.links!.loaded) void learnNames(this.context.client, this.links!.items, () => this.requestUpdate())
    })
    if (!this.links.loaded) void this.links.more()
    void this.learnSubjects(id)
  }


  private async learnSubjects(id: string) {
    await Promise.all((["reports", "dashboards"] as const).map(async (kind) => {
      try {
        const page = await this.context.client.list(`v1/${kind}?workspace_id=${id}&limit=100`)
        for (const item of page.data) this.names.set("report_id" in item ? item.report_id : item.dashboard_id, item.name)
      } catch {
        // The ids stand for them.
      }
    }))
    this.named = true
    this.requestUpdate()
  }

  /** What a link shares, in words. */
  private what(grant: Grant): string {
    const name = this.names.get(grant.subject_id) ?? grant.subject_id
    return msg(`links.subject.${grant.subject_type}` as MessageKey, { name })
  }

  /** Who a link reaches, in words. */
  private reaches(grant: Grant): string {
    return msg(grant.principal_type === "embed" ? "links.who.embed" : "links.who.link", { what: this.what(grant) })
  }

  /** What a row is titled by: the link's label when it has one, else whom it reaches. */
  private who(grant: Grant): string {
    return typeof grant.label === "string" && grant.label !== "" ? grant.label : this.reaches(grant)
  }

  private async change(grant: Grant, tail: "" | "/pause" | "/resume", method: "post" | "delete", notice: string) {
    await this.actions.run(async () => {
      const id = encodeURIComponent(grant.grant_id)
      const changed = method === "post" && tail !== "" ? await this.context.client.post(`v1/sharing/grants/${id}${tail}`) : await this.context.client.delete(`v1/sharing/grants/${id}`)
      const links = this.links!
      links.items = links.items.map((g) => g.grant_id === changed.grant_id ? changed : g)
    }, () => notice)
  }

  private async revoke(grant: Grant) {
    const who = this.who(grant)
    if (!(await confirmRevoke(this, who))) return
    await this.change(grant, "", "delete", msg("share.revoked", { who }))
  }

  private row(grant: Grant): TemplateResult {
    const who = this.who(grant)
    const active = grant.state === "active"
    return html`<li>
      <div><strong>${who}</strong> <span class="badge ${stateName(grant)}">${stateWords(grant)}</span></div>
      ${who === this.reaches(grant) ? nothing : html`<span>${this.reaches(grant)}</span>`}
      <span class="muted">${msg(grant.principal_type === "embed" ? "links.kind.embed" : "links.kind.link")} · ${actionsWords(grant)}${
        grant.password_protected ? ` · ${msg("share.grant.password")}` : ""
      }${grant.email === null ? "" : ` · ${grant.email}`}</span>
      <span class="muted">${msg("links.meta", { by: makerWords(grant), on: dateWords(grant.created_at), expires: expiryWords(grant.expires_at) })}</span>
      ${openedWords(grant) === "" ? nothing : html`<span class="muted">${openedWords(grant)}</span>`}
      ${active ? html`<div class="row">
        ${grant.principal_type === "link" ? html`<button type="button" class="secondary" ?disabled=${this.actions.busy}
          aria-label="${msg(grant.paused ? "share.resume" : "share.pause")}: ${who}"
          @click=${() => void this.change(grant, grant.paused ? "/resume" : "/pause", "post", msg(grant.paused ? "share.resumed" : "share.paused", { who }))}>
          ${msg(grant.paused ? "share.resume" : "share.pause")}</button>` : nothing}
        <button type="button" class="danger secondary" ?disabled=${this.actions.busy} aria-label="${msg("share.revoke")}: ${who}" @click=${() => void this.revoke(grant)}>${msg("share.revoke")}</button>
      </div>` : nothing}
    </li>`
  }

  override render() {
    const links = this.links!
    const loaded = links.loaded && this.named
    if (loaded || links.problem !== undefined) this.ready(msg("links.title"))
    return html`
      <p><a href="w/${encodeURIComponent(this.workspaceId)}">${msg("links.back")}</a></p>
      <h1>${msg("links.title")}</h1>
      <p class="muted">${msg("links.intro")}</p>
      ${noticeView(this.actions.notice, "links-notice")}
      ${this.actions.problem === undefined ? nothing : problemView(this.actions.problem)}
      ${problemView(links.problem, () => void links.more())}
      ${!loaded ? (links.problem === undefined ? loading() : nothing) : links.items.length === 0 ? empty(msg("links.empty")) : html`<ul class="items" aria-label=${msg("links.caption")}>${
        links.items.map((g) => this.row(g))
      }</ul>`}
      ${links.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${links.loading} @click=${() => void links.more()}>${msg("share.manage.more")}</button></p>` : nothing}
    `
  }
}

customElements.define("analytics-links", LinksScreen)
