/**
 * The directory (`/directory?tab=…`, tenant admins): users (invite by
 * e-mail, change roles, deprovision after a confirmation naming what ends,
 * personal tokens), teams and executive roles (create, rename, members
 * through the people picker), pending invitations (resend, revoke) and
 * SCIM tokens (a new one shown once). Each tab is its own address.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { live } from "lit/directives/live.js"
import { type ApiClient, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { dateWords } from "../../elements/Grants.ts"
import { type MessageKey, msg } from "../../i18n/msg.ts"
import { Pager } from "../Pager.ts"
import { Actions, noticeView } from "../Actions.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"
import { confirmDialog } from "../../elements/Confirm.ts"
import { adoptAdminStyles, notAvailable } from "./Admin.ts"

/** The directory's shapes, the contract's: a user, an invitation, a token as listed, someone the picker offers. */
type User = Json<typeof Groups.Users.UserJson>
/** A team or an executive role, as their lists show them (one row shape for both tabs). */
type Group = Json<typeof Groups.Teams.TeamJson> | Json<typeof Groups.ExecutiveRoles.ExecutiveRoleJson>
type Invitation = Json<typeof Groups.Invitations.InvitationJson>
type Token = Json<typeof Groups.Users.TokenJson>
type Person = Json<typeof Groups.Sharing.PersonJson>

/** Where a list of tokens is: a user's personal tokens, or the SCIM tokens. */
type TokensPath = `v1/users/${string}/tokens` | "v1/scim-tokens"

const tabs = ["users", "teams", "roles", "invitations", "scim"] as const
type Tab = (typeof tabs)[number]

const groupId = (g: Group): string => "team_id" in g ? g.team_id : g.role_id

/** The directory screen. */
export class DirectoryScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    secret: { state: true },
    open: { state: true },
    found: { state: true }
  }
  /** A token just made, shown this once. */
  declare secret: { readonly token: string; readonly url?: string } | undefined
  /** The group (or user, for tokens) whose members are open. */
  declare open: string | undefined
  /** The people picker's matches. */
  declare found: ReadonlyArray<Person>
  private list: Pager<any> | undefined
  private members: Pager<User> | undefined
  private tokens: Pager<Token> | undefined
  private searchTimer: ReturnType<typeof setTimeout> | undefined

  /** The changes to the directory: busy meanwhile, then focus on their notice or problem. */
  private readonly actions = new Actions(this, (failed) => failed ? ".problem" : ".directory-notice")

  constructor() {
    super()
    this.found = []
  }

  private get tab(): Tab {
    const tab = this.context.match.query.get("tab")
    return (tabs as ReadonlyArray<string>).includes(tab ?? "") ? tab as Tab : "users"
  }

  private get client(): ApiClient {
    return this.context.client
  }

  private get groupPath(): "v1/teams" | "v1/executive-roles" {
    return this.tab === "teams" ? "v1/teams" : "v1/executive-roles"
  }

  override connectedCallback() {
    super.connectedCallback()
    if (!isAdmin(currentSession())) return
    const path = ({ users: "v1/users", teams: "v1/teams", roles: "v1/executive-roles", invitations: "v1/invitations", scim: "v1/scim-tokens" } as const)[this.tab]
    this.list ??= new Pager<any>((cursor) => this.client.list(`${path}?limit=50`, cursor), () => this.requestUpdate())
    if (!this.list.loaded) void this.list.more()
  }


  private replace<A>(key: (a: A) => string, changed: A) {
    const list = this.list!
    list.items = list.items.map((item) => key(item) === key(changed) ? changed : item)
    this.requestUpdate()
  }

  // Users

  private async invite(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const email = String(data.get("email") ?? "").trim()
    const name = String(data.get("name") ?? "").trim()
    const made = await this.actions.run(
      () => this.client.post("v1/invitations", name === "" ? { email } : { email, name }),
      (i) => msg("directory.invited", { email: i.email }),
      form
    )
    if (made !== undefined) form.reset()
  }

  /** Changes a user's role; making an admin asks first (it hands over the whole tenant), and a "no" puts the menu back. */
  private async setRole(user: User, role: "admin" | "member") {
    if (role === "admin") {
      const ok = await confirmDialog(this, {
        title: msg("directory.promote.title", { name: user.name }),
        text: msg("directory.promote.text", { name: user.name }),
        yes: msg("directory.promote.yes"),
        no: msg("directory.deprovision.no")
      })
      // The menu shows the role the user has (its `.value` is live): a render puts it back.
      if (!ok) return this.requestUpdate()
    }
    const changed = await this.actions.run(
      () => this.client.patch(`v1/users/${encodeURIComponent(user.user_id)}`, { roles: [role] }),
      (u) => msg("directory.roleChanged", { name: u.name, role: msg(`directory.role.${role}`) })
    )
    if (changed !== undefined) this.replace((u: User) => u.user_id, changed)
  }

  private async deprovision(user: User) {
    const ok = await confirmDialog(this, {
      title: msg("directory.deprovision.title", { name: user.name }),
      text: msg("directory.deprovision.text", { name: user.name }),
      yes: msg("directory.deprovision.yes"),
      no: msg("directory.deprovision.no")
    })
    if (!ok) return
    const changed = await this.actions.run(
      () => this.client.patch(`v1/users/${encodeURIComponent(user.user_id)}`, { status: "deprovisioned" }),
      (u) => msg("directory.deprovisioned", { name: u.name })
    )
    if (changed !== undefined) this.replace((u: User) => u.user_id, changed)
  }

  private showTokens(user: User) {
    if (this.open === user.user_id) return void (this.open = undefined)
    this.open = user.user_id
    this.tokens = new Pager((cursor) => this.client.list(`v1/users/${encodeURIComponent(user.user_id)}/tokens?limit=50`, cursor), () => this.requestUpdate())
    void this.tokens.more()
  }

  private async revokeToken(path: TokensPath, token: Token, pager: Pager<Token>) {
    const ok = await confirmDialog(this, {
      title: msg("directory.token.revoke.title"),
      text: msg("directory.token.revoke.text", { date: dateWords(token.created_at) }),
      yes: msg("directory.token.revoke.yes"),
      no: msg("directory.deprovision.no")
    })
    if (!ok) return
    const done = await this.actions.run(() => this.client.delete(`${path}/${encodeURIComponent(token.token_id)}`).then(() => true), () => msg("directory.token.revoked"))
    if (done === true) {
      pager.items = pager.items.filter((t) => t.token_id !== token.token_id)
      this.requestUpdate()
    }
  }

  private tokenList(path: TokensPath, pager: Pager<Token>, label: string): TemplateResult {
    return html`${problemView(pager.problem)}
      ${!pager.loaded ? (pager.problem === undefined ? loading() : nothing) : pager.items.length === 0 ? html`<p class="muted">${msg("directory.token.none")}</p>` : html`<ul class="items" aria-label=${label}>${
        pager.items.map((t) => html`<li><span>${msg("directory.token.made", { date: dateWords(t.created_at), id: t.token_id })}</span>
          <div class="row"><button type="button" class="danger secondary" ?disabled=${this.actions.busy}
            aria-label="${msg("directory.token.revoke")}: ${t.token_id}" @click=${() => void this.revokeToken(path, t, pager)}>${msg("directory.token.revoke")}</button></div></li>`)
      }</ul>`}`
  }

  private userRow(user: User): TemplateResult {
    const role = user.roles.includes("admin") ? "admin" : "member"
    const active = user.status === "active"
    const self = currentSession()?.user.user_id === user.user_id
    return html`<li>
      <div><strong>${user.name}</strong> <span class="badge ${active ? "active" : "revoked"}">${msg(`directory.status.${user.status}`)}</span></div>
      <span class="muted">${user.email} · ${msg("directory.since", { date: dateWords(user.created_at) })}</span>
      ${active ? html`<div class="row">
        <label>${msg("directory.role")}
          <select ?disabled=${this.actions.busy || self} aria-label="${msg("directory.role")}: ${user.name}" .value=${live(role)}
            @change=${(e: Event) => void this.setRole(user, (e.target as HTMLSelectElement).value as "admin" | "member")}>
            <option value="member" ?selected=${role === "member"}>${msg("directory.role.member")}</option>
            <option value="admin" ?selected=${role === "admin"}>${msg("directory.role.admin")}</option>
          </select></label>
        <button type="button" class="secondary" aria-expanded=${this.open === user.user_id ? "true" : "false"}
          aria-label="${msg("directory.tokens")}: ${user.name}" @click=${() => this.showTokens(user)}>${msg("directory.tokens")}</button>
        ${self ? nothing : html`<button type="button" class="danger secondary" ?disabled=${this.actions.busy}
          aria-label="${msg("directory.deprovision")}: ${user.name}" @click=${() => void this.deprovision(user)}>${msg("directory.deprovision")}</button>`}
      </div>` : nothing}
      ${this.open === user.user_id && this.tokens !== undefined
        ? this.tokenList(`v1/users/${encodeURIComponent(user.user_id)}/tokens`, this.tokens, msg("directory.tokens.of", { name: user.name }))
        : nothing}
    </li>`
  }

  private users(): TemplateResult {
    return html`
      <form class="stack" @submit=${this.invite} aria-labelledby="directory-invite">
        <h2 id="directory-invite">${msg("directory.invite")}</h2>
        <div class="row">
          <label>${msg("directory.invite.email")} <input name="email" type="email" required autocomplete="off"></label>
          <label>${msg("directory.invite.name")} <input name="name" autocomplete="off"></label>
          <button type="submit" ?disabled=${this.actions.busy}>${msg("directory.invite.send")}</button>
        </div>
      </form>
      <h2>${msg("directory.tab.users")}</h2>
      ${this.items((u: User) => this.userRow(u), msg("directory.users.empty"), msg("directory.tab.users"))}`
  }

  // Teams and executive roles

  private async createGroup(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const name = String(new FormData(form).get("name") ?? "").trim()
    const made = await this.actions.run(() => this.client.post(this.groupPath, { name }), (g) => msg("directory.group.created", { name: g.name }), form)
    if (made !== undefined) {
      this.list!.prepend(made)
      form.reset()
    }
  }

  private async rename(group: Group, event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const name = String(new FormData(form).get("name") ?? "").trim()
    const changed = await this.actions.run(
      () => this.client.patch(`${this.groupPath}/${encodeURIComponent(groupId(group))}`, { name }),
      (g) => msg("directory.group.renamed", { name: g.name }),
      form
    )
    if (changed !== undefined) this.replace(groupId, changed)
  }

  private showMembers(group: Group) {
    const id = groupId(group)
    this.found = []
    if (this.open === id) return void (this.open = undefined)
    this.open = id
    this.members = new Pager((cursor) => this.client.list(`${this.groupPath}/${encodeURIComponent(id)}/members?limit=100`, cursor), () => this.requestUpdate())
    void this.members.more()
  }

  private search(event: Event) {
    const q = (event.target as HTMLInputElement).value.trim()
    clearTimeout(this.searchTimer)
    if (q === "") return void (this.found = [])
    // A pause in typing before asking, as the share dialog's picker does.
    this.searchTimer = setTimeout(async () => {
      try {
        const page = await this.client.list(`v1/directory/people?q=${encodeURIComponent(q)}&limit=10`)
        this.found = page.data.filter((p) => p.type === "user")
      } catch (error) {
        this.actions.problem = problemIn(error)
      }
    }, 250)
  }

  private async addMember(group: Group, person: Person) {
    const added = await this.actions.run(
      () => this.client.post(`${this.groupPath}/${encodeURIComponent(groupId(group))}/members`, { user_id: person.id }),
      () => msg("directory.member.added", { name: person.name, group: group.name })
    )
    if (added !== undefined && this.members !== undefined && !this.members.items.some((u) => u.user_id === added.user_id)) this.members.prepend(added)
    this.found = []
    const search = this.querySelector<HTMLInputElement>("input[type=search]")
    if (added !== undefined && search !== null) search.value = ""
  }

  private async removeMember(group: Group, user: User) {
    const done = await this.actions.run(
      () => this.client.delete(`${this.groupPath}/${encodeURIComponent(groupId(group))}/members/${encodeURIComponent(user.user_id)}`).then(() => true),
      () => msg("directory.member.removed", { name: user.name, group: group.name })
    )
    if (done === true && this.members !== undefined) {
      this.members.items = this.members.items.filter((u) => u.user_id !== user.user_id)
      this.requestUpdate()
    }
  }

  private groupRow(group: Group): TemplateResult {
    const id = groupId(group)
    const managed = "source" in group && group.source === "scim"
    const open = this.open === id
    const members = this.members
    return html`<li>
      <div><strong>${group.name}</strong>${managed ? html` <span class="badge">${msg("directory.group.scim")}</span>` : nothing}</div>
      <div class="row">
        <button type="button" class="secondary" aria-expanded=${open ? "true" : "false"} aria-label="${msg("directory.members")}: ${group.name}"
          @click=${() => this.showMembers(group)}>${msg("directory.members")}</button>
      </div>
      ${open && members !== undefined ? html`<div class="stack">
        ${managed ? nothing : html`<form class="row" @submit=${(e: SubmitEvent) => void this.rename(group, e)}>
          <label>${msg("directory.group.name")} <input name="name" required .value=${group.name} autocomplete="off"></label>
          <button type="submit" class="secondary" ?disabled=${this.actions.busy}>${msg("directory.group.rename")}</button>
        </form>
        <label>${msg("directory.member.add")} <input type="search" autocomplete="off" @input=${this.search}
          placeholder=${msg("directory.member.search")}></label>
        ${this.found.length === 0 ? nothing : html`<ul class="items" aria-label=${msg("directory.member.found")}>${
          this.found.map((p) => html`<li><span>${p.name}${p.email === null ? "" : ` · ${p.email}`}</span>
            <div class="row"><button type="button" ?disabled=${this.actions.busy} aria-label="${msg("directory.member.addOne")}: ${p.name}"
              @click=${() => void this.addMember(group, p)}>${msg("directory.member.addOne")}</button></div></li>`)
        }</ul>`}`}
        ${problemView(members.problem)}
        ${!members.loaded ? loading() : members.items.length === 0 ? html`<p class="muted">${msg("directory.members.none")}</p>` : html`<ul class="items" aria-label=${msg("directory.members.of", { name: group.name })}>${
          members.items.map((u) => html`<li><span>${u.name} · ${u.email}</span>${managed ? nothing : html`<div class="row">
            <button type="button" class="secondary" ?disabled=${this.actions.busy} aria-label="${msg("directory.member.remove")}: ${u.name}"
              @click=${() => void this.removeMember(group, u)}>${msg("directory.member.remove")}</button></div>`}</li>`)
        }</ul>`}
      </div>` : nothing}
    </li>`
  }

  private groups(): TemplateResult {
    const kind = this.tab === "teams" ? "team" : "role"
    return html`
      <form class="row" @submit=${this.createGroup} aria-label=${msg(`directory.${kind}.create`)}>
        <label>${msg(`directory.${kind}.name`)} <input name="name" required autocomplete="off"></label>
        <button type="submit" ?disabled=${this.actions.busy}>${msg(`directory.${kind}.create`)}</button>
      </form>
      ${this.items((g: Group) => this.groupRow(g), msg(`directory.${kind}.empty`), msg(`directory.tab.${this.tab}` as MessageKey))}`
  }

  // Invitations

  private async invitationChange(invitation: Invitation, how: "resend" | "revoke") {
    const path = `v1/invitations/${encodeURIComponent(invitation.invitation_id)}` as const
    const changed = await this.actions.run(
      () => how === "resend" ? this.client.post(`${path}/resend`) : this.client.delete(path),
      (i) => msg(how === "resend" ? "directory.invitation.resent" : "directory.invitation.revoked", { email: i.email })
    )
    if (changed !== undefined) this.replace((i: Invitation) => i.invitation_id, changed)
  }

  private invitationRow(invitation: Invitation): TemplateResult {
    const pending = invitation.status === "pending"
    const who = invitation.name === null ? invitation.email : `${invitation.name} · ${invitation.email}`
    return html`<li>
      <div><strong>${who}</strong> <span class="badge ${pending ? "active" : "revoked"}">${msg(`directory.invitation.state.${invitation.status}`)}</span></div>
      <span class="muted">${msg("directory.invitation.expires", { date: dateWords(invitation.expires_at) })}</span>
      ${pending ? html`<div class="row">
        <button type="button" class="secondary" ?disabled=${this.actions.busy} aria-label="${msg("directory.invitation.resend")}: ${invitation.email}"
          @click=${() => void this.invitationChange(invitation, "resend")}>${msg("directory.invitation.resend")}</button>
        <button type="button" class="danger secondary" ?disabled=${this.actions.busy} aria-label="${msg("directory.invitation.revoke")}: ${invitation.email}"
          @click=${() => void this.invitationChange(invitation, "revoke")}>${msg("directory.invitation.revoke")}</button>
      </div>` : nothing}
    </li>`
  }

  // SCIM tokens

  private async createScim() {
    const made = await this.actions.run(
      () => this.client.post("v1/scim-tokens"),
      () => msg("directory.scim.created")
    )
    if (made !== undefined) {
      this.secret = { token: made.token, url: made.scim_url }
      this.list!.prepend({ token_id: made.token_id, created_at: made.created_at })
    }
  }

  private async copy(text: string) {
    try {
      await navigator.clipboard.writeText(text)
      this.actions.notice = msg("share.copied")
    } catch {
      this.actions.notice = msg("share.copy.failed")
    }
  }

  private scim(): TemplateResult {
    const secret = this.secret
    return html`
      <p class="muted">${msg("directory.scim.intro")}</p>
      <p><button type="button" ?disabled=${this.actions.busy} @click=${() => void this.createScim()}>${msg("directory.scim.create")}</button></p>
      ${secret === undefined ? nothing : html`<div class="notice stack secret">
        <strong>${msg("directory.scim.once")}</strong>
        <label>${msg("directory.scim.token")} <input readonly class="mono" .value=${secret.token}></label>
        <div class="row"><button type="button" class="secondary" @click=${() => void this.copy(secret.token)}>${msg("share.copy")}</button></div>
        ${secret.url === undefined ? nothing : html`<label>${msg("directory.scim.url")} <input readonly class="mono" .value=${secret.url}></label>`}
      </div>`}
      ${this.list!.loaded ? this.tokenList("v1/scim-tokens", this.list as Pager<Token>, msg("directory.tab.scim")) : loading()}`
  }

  // The frame

  private items<A>(row: (a: A) => TemplateResult, none: string, label: string): TemplateResult {
    const list = this.list!
    return html`${problemView(list.problem, () => void list.more())}
      ${!list.loaded ? (list.problem === undefined ? loading() : nothing) : list.items.length === 0 ? empty(none) : html`<ul class="items" aria-label=${label}>${
        list.items.map((a: A) => row(a))
      }</ul>`}
      ${list.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${list.loading} @click=${() => void list.more()}>${msg("share.manage.more")}</button></p>` : nothing}`
  }

  override render() {
    if (this.list === undefined) {
      this.ready(msg("admin.notAvailable.title"))
      return notAvailable()
    }
    const list = this.list
    if (list.loaded || list.problem !== undefined) this.ready(msg("directory.title"))
    const tab = this.tab
    const body = tab === "users" ? this.users()
      : tab === "teams" || tab === "roles" ? this.groups()
      : tab === "invitations" ? this.items((i: Invitation) => this.invitationRow(i), msg("directory.invitations.empty"), msg("directory.tab.invitations"))
      : this.scim()
    return html`
      <h1>${msg("directory.title")}</h1>
      <nav aria-label=${msg("directory.sections")}><ul class="tabs-nav row">${
        tabs.map((t) => html`<li><a href="directory?tab=${t}" aria-current=${t === tab ? "page" : "false"}>${msg(`directory.tab.${t}`)}</a></li>`)
      }</ul></nav>
      ${noticeView(this.actions.notice, "directory-notice")}
      ${problemView(this.actions.problem)}
      ${body}
    `
  }
}

adoptAdminStyles()
customElements.define("analytics-directory", DirectoryScreen)
