/**
 * The audit log (`/audit`, tenant admins): `GET /v1/audit-log`, newest
 * first, a page at a time. Its filters (action, target type, target id,
 * actor, a date range) are form controls kept in the address
 * (`?action=grant.revoked&from=2026-12-01`), so a link or a reload shows
 * the same entries, and "Download CSV" fetches those entries as a file
 * (`GET /v1/audit-log/csv`, same filters). Each entry a sentence: who did
 * what to what ("Ada Lovelace shared Sales overview with Finance team"),
 * named as the entry wrote them down (decision 0025), and when in the
 * reader's locale; its details expand. Anyone else is told the log is not
 * theirs to read, in words.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { isAdmin, currentSession } from "../../client/Session.ts"
import { type MessageKey, msg } from "../../i18n/msg.ts"
import * as Router from "../Router.ts"
import { Pager } from "../Pager.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"
import { adoptAdminStyles, notAvailable, peopleNames, timeWords } from "./Admin.ts"

/** An audit entry as `GET /v1/audit-log` shows it. */
type Entry = Json<typeof Groups.AuditLog.AuditEntryJson>

/** The actions the service records, offered by the action filter. */
export const actions = [
  "grant.created", "grant.updated", "grant.paused", "grant.resumed", "grant.revoked",
  "comment.created", "comment.updated", "comment.deleted",
  "session.signed_in", "session.signed_out", "session.ended",
  "user.created", "user.updated", "user.deprovisioned", "user.reactivated",
  "token.issued", "token.revoked",
  "team.created", "team.renamed", "team.deleted", "team.member_added", "team.member_removed",
  "executive_role.created", "executive_role.renamed", "executive_role.deleted", "executive_role.member_added", "executive_role.member_removed",
  "invitation.created", "invitation.renewed", "invitation.resent", "invitation.revoked", "invitation.accepted",
  "scim_token.created", "scim_token.revoked",
  "workspace.created",
  "webhook.created", "webhook.updated", "webhook.secret_rotated", "webhook.deleted",
  "dataset.created", "dataset.updated", "dataset.deleted", "dataset.data_uploaded", "dataset.refresh_requested",
  "report.created", "report.updated", "report.deleted",
  "dashboard.created", "dashboard.updated", "dashboard.deleted",
  "alert.created", "alert.updated", "alert.deleted",
  "export.requested", "export.downloaded",
  "export_schedule.created", "export_schedule.updated", "export_schedule.deleted", "export_schedule.sent_now"
] as const

const targetTypes = [
  "grant", "comment", "session", "user", "api_token", "team", "executive_role", "invitation", "scim_token",
  "workspace", "webhook", "dataset", "report", "dashboard", "alert", "job", "export_schedule"
] as const

/** What an entry's record is called, by what the entry wrote down. */
const text = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

/** Why a session ended, in the entry's words. */
const endReasons = ["idle", "expired", "deprovisioned", "credential_revoked", "email_changed"] as const

/** The filters, in the address's order. */
const filters = ["action", "target_type", "target_id", "actor_id", "from", "to"] as const

/** The audit log screen. */
export class AuditScreen extends Screen {
  private entries: Pager<Entry> | undefined
  private names = new Map<string, string>()

  override connectedCallback() {
    super.connectedCallback()
    if (!isAdmin(currentSession())) return
    const query = new URLSearchParams()
    for (const f of filters) {
      const value = this.context.match.query.get(f)?.trim()
      if (value) query.set(f, value)
    }
    query.set("limit", "50")
    this.entries ??= new Pager((cursor) => this.context.client.list(`v1/audit-log?${query}`, cursor), () => this.requestUpdate())
    if (!this.entries.loaded) void this.entries.more()
    void peopleNames(this.context.client).then((names) => {
      this.names = names
      this.requestUpdate()
    })
  }

  /** Filters chosen: the address carries them (a new screen reads them). */
  private apply(event: SubmitEvent) {
    event.preventDefault()
    const form = new FormData(event.target as HTMLFormElement)
    const query = new URLSearchParams()
    for (const f of filters) {
      const value = String(form.get(f) ?? "").trim()
      if (value !== "") query.set(f, value)
    }
    const search = query.toString()
    Router.navigate(search === "" ? "audit" : `audit?${search}`)
  }

  private who(entry: Entry): string {
    const { type, id } = entry.actor
    const session = currentSession()
    if (id === session?.user.user_id) return msg("audit.actor.you")
    // The token a tenant is provisioned with acts as `admin@{tenant_id}`, no directory user.
    if (session !== null && id === `admin@${session.tenant.tenant_id}`) return msg("audit.actor.tenantToken")
    if (type === "user") return this.names.get(id) ?? msg("audit.actor.user", { id })
    return msg(`audit.actor.${type}` as MessageKey, { id })
  }

  private what(entry: Entry): string {
    const known = (actions as ReadonlyArray<string>).includes(entry.action)
    return known ? msg(`audit.action.${entry.action}` as MessageKey) : entry.action
  }

  /** A user by name when known, else by the e-mail or id the entry holds. */
  private person(id: unknown, fallback?: unknown): string {
    const known = typeof id === "string" ? this.names.get(id) : undefined
    return known ?? (typeof fallback === "string" && fallback !== "" ? fallback : typeof id === "string" ? id : "")
  }

  /** What the entry is about: a grant by its subject's kind and who it is for (the ids are in its details). */
  private target(entry: Entry): string {
    const { type, id } = entry.target
    const d = entry.detail
    if (type === "session") {
      if (entry.action !== "session.ended") return ""
      const reason = (endReasons as ReadonlyArray<unknown>).includes(d.reason) ? msg(`audit.session.reason.${d.reason as typeof endReasons[number]}`) : String(d.reason ?? "")
      return msg("audit.target.session", { whom: this.person(d.user_id), reason })
    }
    if (type === "user") return this.person(id, d.name ?? d.email)
    if (type === "api_token") return this.person(d.user_id)
    if (type === "team" || type === "executive_role") return typeof d.name === "string" ? d.name : id
    if (type === "invitation") return typeof d.email === "string" ? d.email : id
    if (type === "scim_token") return ""
    if (type === "comment") return msg("audit.target.comment")
    // Named as the entry wrote them down: a record renamed or deleted since still reads as it was (decision 0025).
    if (type === "job") {
      const format = text(d.format)?.toUpperCase() ?? ""
      return msg("audit.target.export", { report: text(d.report_name) ?? msg("audit.subject.report"), format })
    }
    if (type === "webhook") return text(d.url) ?? id
    if (["workspace", "dataset", "report", "dashboard", "alert", "export_schedule"].includes(type)) {
      // A rename says what it was called before: the name alone would not find the record it was.
      const renamed = (d.changes as { readonly name?: { readonly from?: unknown } } | undefined)?.name?.from
      const name = text(d.name) ?? id
      return text(renamed) === undefined ? name : msg("audit.target.renamed", { name, from: text(renamed)! })
    }
    if (type !== "grant") return `${type} ${id}`
    const subject = typeof d.subject_type === "string" ? d.subject_type : ""
    const principal = typeof d.principal_id === "string" ? d.principal_id : ""
    const kind = typeof d.principal_type === "string" ? d.principal_type : ""
    const whom = kind === "user"
      ? text(d.principal_name) ?? this.names.get(principal) ?? (typeof d.recipient_email === "string" ? d.recipient_email : principal)
      : kind === "link" || kind === "embed" ? msg(`audit.principal.${kind}`)
      : text(d.principal_name) ?? (kind === "team" || kind === "executive_role" ? msg(`audit.principal.${kind}`) : principal)
    const what = text(d.subject_name) ??
      (["report", "dashboard", "dataset", "workspace"].includes(subject) ? msg(`audit.subject.${subject}` as MessageKey) : subject)
    return msg("audit.target.grant", { what, whom })
  }

  private row(entry: Entry): TemplateResult {
    return html`<li>
      <div><strong>${msg("audit.entry", { who: this.who(entry), what: this.what(entry), target: this.target(entry) }).trim()}</strong></div>
      <span class="muted"><time datetime=${entry.created_at}>${timeWords(entry.created_at)}</time></span>
      <details><summary>${msg("audit.details")}</summary><pre class="audit-detail">${JSON.stringify({ ...entry.detail, actor: entry.actor, target: entry.target, workspace_id: entry.workspace_id }, null, 2)}</pre></details>
    </li>`
  }

  private form(): TemplateResult {
    const q = this.context.match.query
    return html`<form class="filters" @submit=${this.apply} aria-label=${msg("audit.filters")}>
      <label>${msg("audit.filter.action")}
        <select name="action">
          <option value="" ?selected=${!q.get("action")}>${msg("audit.filter.any")}</option>
          ${actions.map((a) => html`<option value=${a} ?selected=${q.get("action") === a}>${msg(`audit.action.${a}` as MessageKey)} (${a})</option>`)}
        </select></label>
      <label>${msg("audit.filter.targetType")}
        <select name="target_type">
          <option value="" ?selected=${!q.get("target_type")}>${msg("audit.filter.any")}</option>
          ${targetTypes.map((t) => html`<option value=${t} ?selected=${q.get("target_type") === t}>${msg(`audit.targetType.${t}`)}</option>`)}
        </select></label>
      <label>${msg("audit.filter.targetId")} <input name="target_id" .value=${q.get("target_id") ?? ""} autocomplete="off"></label>
      <label>${msg("audit.filter.actor")} <input name="actor_id" .value=${q.get("actor_id") ?? ""} autocomplete="off"></label>
      <label>${msg("audit.filter.from")} <input type="date" name="from" .value=${q.get("from") ?? ""}></label>
      <label>${msg("audit.filter.to")} <input type="date" name="to" .value=${q.get("to") ?? ""}></label>
      <div class="row"><button type="submit">${msg("audit.filter.apply")}</button>
        <a href="audit">${msg("audit.filter.clear")}</a>
        <a href=${this.csvHref()} download>${msg("audit.csv")}</a></div>
    </form>`
  }

  /** The CSV of the entries the address's filters pass (the browser saves it under the service's file name). */
  private csvHref(): string {
    const query = new URLSearchParams()
    for (const f of filters) {
      const value = this.context.match.query.get(f)?.trim()
      if (value) query.set(f, value)
    }
    const search = query.toString()
    return search === "" ? "v1/audit-log/csv" : `v1/audit-log/csv?${search}`
  }

  override render() {
    if (this.entries === undefined) {
      this.ready(msg("admin.notAvailable.title"))
      return notAvailable()
    }
    const entries = this.entries
    if (entries.loaded || entries.problem !== undefined) this.ready(msg("audit.title"))
    return html`
      <h1>${msg("audit.title")}</h1>
      <p class="muted">${msg("audit.intro")}</p>
      ${this.form()}
      ${problemView(entries.problem, () => void entries.more())}
      ${!entries.loaded ? (entries.problem === undefined ? loading() : nothing) : entries.items.length === 0 ? empty(msg("audit.empty")) : html`<ul class="items" aria-label=${msg("audit.caption")}>${
        entries.items.map((e) => this.row(e))
      }</ul>`}
      ${entries.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${entries.loading} @click=${() => void entries.more()}>${msg("share.manage.more")}</button></p>` : nothing}
    `
  }
}

adoptAdminStyles()
customElements.define("analytics-audit", AuditScreen)
