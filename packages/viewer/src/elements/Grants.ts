/**
 * Sharing grants as the share dialog and the workspace's links screen show
 * them: the API's grant (`GET /v1/sharing/grants`), its state, audience,
 * actions and maker in words, the names of the people behind ids, and the
 * confirmation asked before a revocation.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import type { ApiClient } from "../client/ApiClient.ts"
import { currentSession, isAdmin } from "../client/Session.ts"
import { type MessageKey, msg } from "../i18n/msg.ts"
import { relative } from "../i18n/Time.ts"
import { confirmDialog } from "./Confirm.ts"

/** A grant as the API shows it (the contract's `sharing` group): who it reaches, what it allows, its state, label and openings. */
export type Grant = Json<typeof Groups.Sharing.GrantJson>

/** What a grant allows, as the API names it. */
export type Action = Grant["actions"][number]

/** Every action, in the order the dialog offers them. */
export const actions: ReadonlyArray<Action> = ["view", "download", "comment", "edit", "share"]

/** Whom a grant is made for, as the dialog asks it: people (users, teams, executive roles), anyone with a link, or an embed. */
export type Audience = "people" | "link" | "embed"

/** The actions an audience may be given: links and embeds open and export only. */
export const audienceActions = (audience: Audience): ReadonlyArray<Action> =>
  audience === "people" ? actions : ["view", "download"]

/** The longest label (of a link or an embed) the service keeps. */
export const labelMax = 100

/** What a grant's row is titled by: its label when it has one, else who it reaches. */
export const titleWords = (grant: Grant): string =>
  typeof grant.label === "string" && grant.label !== "" ? grant.label : whoWords(grant)

/**
 * When a link or an embed was last opened and how often, in words ("Last
 * opened 3 days ago · opened 12 times", "Never opened"); empty when the
 * service does not say (an older one) or for any other grant.
 */
export const openedWords = (grant: Grant, now: number = Date.now()): string => {
  if (grant.principal_type !== "link" && grant.principal_type !== "embed") return ""
  const count = grant.open_count
  if (typeof count !== "number") return ""
  const last = grant.last_opened_at ?? null
  if (count === 0 || last === null) return msg("share.opened.never")
  return [
    msg("share.opened.last", { when: relative(last, now) }),
    msg(count === 1 ? "share.opened.one" : "share.opened.count", { count: count.toLocaleString() })
  ].join(" · ")
}

/** A grant's state in words: a paused link is "Paused" while it stays active. */
export const stateWords = (grant: Grant): string =>
  grant.state === "active" && grant.paused ? msg("share.state.paused") : msg(`share.state.${grant.state}` as MessageKey)

/** The state's name for styling (`active`, `paused`, `expired`, `revoked`). */
export const stateName = (grant: Grant): string => grant.state === "active" && grant.paused ? "paused" : grant.state

/** The actions in words, short ("View, Download"). */
export const actionsWords = (grant: Grant): string =>
  grant.actions.map((a) => msg(`share.action.${a}` as MessageKey).split(":")[0]).join(", ")

/** Names of users, teams and executive roles by id, learnt from the picker or asked of the directory. */
const names = new Map<string, string>()

/** Remembers `name` for `id` (the picker's choices). */
export const rememberName = (id: string, name: string): void => {
  names.set(id, name)
}

/** Who a grant reaches, in words. */
export const whoWords = (grant: Grant): string => {
  switch (grant.principal_type) {
    case "link":
      return grant.email === null ? msg("share.grant.link") : msg("share.grant.link.for", { email: grant.email })
    case "embed":
      return msg("share.grant.embed")
    default:
      if (grant.principal_id === null) return msg("share.grant.invited", { email: grant.email ?? "" })
      return names.get(grant.principal_id) ?? grant.principal_id
  }
}

const directoryPath = { user: "v1/users/", team: "v1/teams/", executive_role: "v1/executive-roles/" } as const

/**
 * Asks the directory for the names behind the grants' ids not known yet (a
 * tenant admin may read them; anyone else keeps the ids), then `changed()`.
 */
export const learnNames = async (client: ApiClient, grants: ReadonlyArray<Grant>, changed: () => void): Promise<void> => {
  // The directory is the tenant admins' to read: anyone else would only collect refusals.
  if (!isAdmin(currentSession())) return
  const wanted = new Map<string, `${(typeof directoryPath)[keyof typeof directoryPath]}${string}`>()
  for (const grant of grants) {
    if (grant.principal_id !== null && grant.principal_type in directoryPath && !names.has(grant.principal_id)) {
      wanted.set(grant.principal_id, `${directoryPath[grant.principal_type as keyof typeof directoryPath]}${encodeURIComponent(grant.principal_id)}`)
    }
    if (grant.created_by.type === "user" && !names.has(grant.created_by.id) && !grant.created_by.id.startsWith("admin@")) wanted.set(grant.created_by.id, `${directoryPath.user}${encodeURIComponent(grant.created_by.id)}`)
  }
  if (wanted.size === 0) return
  await Promise.all([...wanted].map(async ([id, path]) => {
    try {
      const found = await client.get(path)
      if (typeof found.name === "string") names.set(id, "email" in found ? `${found.name} (${found.email})` : found.name)
    } catch {
      // Not an admin, or gone from the directory: the id stands for them.
    }
  }))
  changed()
}

/** Who made a grant, in words. */
export const makerWords = (grant: Grant): string => {
  const by = grant.created_by
  if (by.type === "api_token") return msg("share.by.token")
  if (by.type === "scim") return msg("share.by.scim")
  if (by.type === "system") return msg("share.by.system")
  if (by.type === "grant") return msg("share.by.grant")
  const session = currentSession()
  if (by.id === session?.user.user_id) return msg("share.by.you")
  // The token a tenant is provisioned with acts as `admin@{tenant_id}`, no directory user.
  if (session !== null && by.id === `admin@${session.tenant.tenant_id}`) return msg("share.by.tenantToken")
  return names.get(by.id) ?? by.id
}

/** An expiry in words: "Expires 31 Dec 2099", or "No expiry". */
export const expiryWords = (iso: string | null): string =>
  iso === null ? msg("share.expiry.none") : msg("share.expiry.on", { date: dateWords(iso) })

/** Active grants (paused ones too) first, the rest after, each group in the API's order (newest first). */
export const activeFirst = (grants: ReadonlyArray<Grant>): ReadonlyArray<Grant> =>
  [...grants.filter((g) => g.state === "active"), ...grants.filter((g) => g.state !== "active")]

/** A date (ISO 8601) in the reader's words, or `none`. */
export const dateWords = (iso: string | null, none = "—"): string =>
  iso === null ? none : new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" })

/** The end of the day `day` (`yyyy-mm-dd`, the reader's time zone), as ISO 8601. */
export const endOfDay = (day: string): string => new Date(`${day}T23:59:59`).toISOString()

/** The day (`yyyy-mm-dd`, the reader's time zone) of an ISO 8601 time, for a date field. */
export const dayOf = (iso: string | null): string => {
  if (iso === null) return ""
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/** Today (`yyyy-mm-dd`), the earliest expiry a date field offers. */
export const today = (): string => dayOf(new Date().toISOString())

/**
 * Asks, in a modal `<dialog>` placed in `root`, whether to revoke `who`'s
 * access; true when confirmed. Escape or "Keep access" answers false.
 */
export const confirmRevoke = (root: Node & ParentNode, who: string): Promise<boolean> =>
  confirmDialog(root, {
    title: msg("share.revoke.title"),
    text: msg("share.revoke.confirm", { who }),
    yes: msg("share.revoke.yes"),
    no: msg("share.revoke.no")
  })
