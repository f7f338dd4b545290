/**
 * What a public link's visitor and an embed's viewer see (decision 0014 rules
 * 1, 5, 6 and 8; 3.2): the shared report, read-only, through the grant
 * that shared it, decided again on every request so that revoking,
 * pausing or expiring the grant refuses the very next one.
 *
 * Who they are to row-level security: a link's visitor holds the role
 * `link` and no attributes; an embed's viewer holds the role `embed` and
 * the attributes its token carries. A dataset with policies shows them the
 * rows of the policies written for those roles, and none otherwise.
 *
 * A link or an embed made by a delegate (a member who is no admin) gives
 * at most what its maker holds at each request: the actions they still
 * hold, and never more rows than they see themselves (decision 0014).
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as Access from "./Access.ts"
import { memberOfUser } from "../auth/Principal.ts"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { EngineError, Row } from "../datasets/AnalyticsEngine.ts"
import { sha256Hex } from "../platform/Crypto.ts"
import * as Dashboards from "../reports/Dashboards.ts"
import type { DashboardStore } from "../reports/DashboardStore.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import { Forbidden, NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import type { Action, GrantId, StoredGrant } from "./Grant.ts"
import { GrantStore } from "./GrantStore.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import { PasswordHasher } from "../auth/PasswordHasher.ts"
import type { ReportFilterValues, Visual } from "../reports/Report.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import * as Reports from "../reports/Reports.ts"
import type { ReportStore } from "../reports/ReportStore.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import { type LockedParams, ShareTokens, type TokenRefusal } from "./ShareTokens.ts"
import * as Subjects from "./Subjects.ts"

/** The grant no longer opens: expired (403 `share/expired`), revoked, or a paused link. */
export class ShareClosed extends TaggedFailure("ShareClosed")<{
  readonly reason: "expired" | "revoked" | "paused"
}> {
  /** `share/expired`, `share/revoked` or `share/paused`, by reason. */
  get code(): "share/expired" | "share/revoked" | "share/paused" {
    return `share/${this.reason}`
  }
  /** The sentence its problem says. */
  get problemDetail(): string {
    return this.reason === "expired" ? "This share has expired" : this.reason === "paused" ? "This link is paused by its owner" : "This share was revoked"
  }
}

/** The link has a password and the visitor has no session for it. */
export class PasswordRequired extends TaggedFailure("PasswordRequired")<{}> {
  readonly code = "share/password-required" as const
  /** The sentence its problem says (an adapter may say how its requests send the password). */
  get problemDetail(): string {
    return "Send the link's password"
  }
}

/** The password given is not the link's. */
export class PasswordIncorrect extends TaggedFailure("PasswordIncorrect")<{}> {
  readonly code = "share/password-incorrect" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "That is not the link's password"
  }
}

/** The embed token is not one this service signed for an embed grant, or has run out. */
export class TokenRefused extends TaggedFailure("TokenRefused")<{
  readonly reason: TokenRefusal
}> {
  /** `share/token-expired` or `share/token-invalid`, by reason. */
  get code(): "share/token-expired" | "share/token-invalid" {
    return this.reason === "expired" ? "share/token-expired" : "share/token-invalid"
  }
  /** The sentence its problem says. */
  get problemDetail(): string {
    return this.reason === "expired" ? "The embed token has expired; the embedding app mints a new one" : "The embed token is not valid"
  }
}

/** Someone viewing shared content, through the grant that lets them. */
export interface Viewer {
  readonly grant: StoredGrant
  readonly security: SecurityContext
  /** Filters the viewer cannot lift (an embed's locked parameters). */
  readonly lockedFilters: ReadonlyArray<{ readonly member: string; readonly operator: "equals"; readonly values: ReadonlyArray<string | number | boolean> }>
  /** The text tiled across the view, or `null` without a watermark. */
  readonly watermark: string | null
  /** An embed's page origin from its token (decision 0027): the only one that may frame it. */
  readonly origin?: string | undefined
}

/** Whether the viewer may do `action` (decision 0014: with only view, no download and no comment). */
export const may = (viewer: Viewer, action: Action): boolean => viewer.grant.actions.includes(action)

/**
 * Whether the viewer may download rows (CSV): with `download`, and only
 * without a watermark, which rows cannot carry (a watermarked share
 * downloads PDF and PNG only, drawn with it).
 */
export const downloadsRows = (viewer: Viewer): boolean => may(viewer, "download") && viewer.watermark === null

/** A fingerprint of a link's password hash: sessions carry it, so a new password ends them. */
const passwordVersion = (hash: string) => Effect.map(sha256Hex(hash), (hex) => hex.slice(0, 16))

/** What opening a shared view reads: the grant, and its maker's grants and rows when a delegate made it. */
export type OpenServices = GrantStore | DirectoryStore | Subjects.Services

/**
 * A grant that opens now, as it opens: refused, saying why, when it does
 * not; made by a delegate, its actions narrowed to those its maker still
 * holds (watermarked if theirs is) and its rows to the maker's own
 * (`within`), or refused as revoked once the maker no longer holds `view`.
 */
const open = (grant: StoredGrant, audience: Access.Audience) =>
  Effect.gen(function*(): Effect.fn.Return<
    { readonly grant: StoredGrant; readonly within: SecurityContext | undefined },
    ShareClosed | Forbidden | StoreError,
    OpenServices
  > {
    if (grant.paused) return yield* new ShareClosed({ reason: "paused" })
    const now = new Date(yield* Clock.currentTimeMillis)
    const decision = Access.decide(audience, { type: grant.subject_type, id: grant.subject_id }, "view", [grant], now)
    if (decision._tag === "Deny") {
      return yield* decision.reason === "expired"
        ? new ShareClosed({ reason: "expired" })
        : decision.reason === "revoked"
        ? new ShareClosed({ reason: "revoked" })
        : new Forbidden({ detail: "This share does not allow viewing" })
    }
    const maker = yield* Access.makerOf(grant.tenant_id, grant.created_by)
    if (maker._tag === "Admin") return { grant, within: undefined }
    const subject = yield* Subjects.locate(grant.tenant_id, grant.subject_type, grant.subject_id).pipe(
      Effect.catchTag("NotFound", () => Effect.fail(new ShareClosed({ reason: "revoked" })))
    )
    const others = (yield* (yield* GrantStore).onSubjects(grant.tenant_id, [subject, ...subject.within])).filter((g) => g.grant_id !== grant.grant_id)
    const held = yield* Access.heldByMaker(grant.tenant_id, maker, subject, grant.actions, others, now)
    if (maker._tag === "Gone" || !held.actions.includes("view")) return yield* new ShareClosed({ reason: "revoked" })
    return {
      grant: { ...grant, actions: held.actions, watermark: grant.watermark || held.watermark },
      within: yield* Datasets.securityContext(memberOfUser(maker.user))
    }
  })

/**
 * Whether a link's or an embed's grant still opens now with `action`, as
 * `open` narrows it: what a file its visitor exported is checked against
 * at its signed URL, so revoking or pausing the share stops the file too.
 */
export const stillAllows = (grant: StoredGrant, action: Action): Effect.Effect<boolean, StoreError, OpenServices> =>
  open(grant, { _tag: grant.principal_type === "embed" ? "Embed" : "Link", grantId: grant.grant_id }).pipe(
    Effect.map((opened) => opened.grant.actions.includes(action)),
    Effect.catchTags({ ShareClosed: () => Effect.succeed(false), Forbidden: () => Effect.succeed(false) })
  )

/** A link's grant by its URL token, if it opens now, as it opens. */
const openLink = (slug: string) =>
  Effect.gen(function*() {
    const grant = yield* (yield* GrantStore).findBySlug(slug)
    if (grant === undefined || grant.principal_type !== "link") return yield* new NotFound({ resource: "link", id: slug })
    return yield* open(grant, { _tag: "Link", grantId: grant.grant_id })
  })

/**
 * The tenant of a link's grant, whatever its state (its refusal pages wear
 * the tenant's branding); `undefined` for a token that is no link.
 */
export const tenantOfLink = (slug: string): Effect.Effect<StoredGrant["tenant_id"] | undefined, StoreError, GrantStore> =>
  Effect.map(Effect.flatMap(GrantStore, (store) => store.findBySlug(slug)), (grant) => grant?.principal_type === "link" ? grant.tenant_id : undefined)

/** The tenant an embed token this service signed names, even expired (checked at time 0: only its signature counts); `undefined` for any other. */
export const tenantOfEmbed = (token: string): Effect.Effect<StoredGrant["tenant_id"] | undefined, never, ShareTokens> =>
  Effect.map(
    Effect.flatMap(ShareTokens, (tokens) => tokens.verifyEmbed(token, 0)),
    (verified) => verified._tag === "Success" ? verified.success.tenantId as StoredGrant["tenant_id"] : undefined
  )

/** The watermark of a link: its recipient's address, or else the link's own short name, which tells where a leak came from. */
const linkWatermark = (grant: StoredGrant) => grant.watermark ? grant.recipient_email ?? `Shared link ${grant.grant_id.slice(-12)}` : null

/**
 * The visitor of a link, given the session cookie they hold (if any): a
 * link with a password needs a session opened with its current password.
 */
export const viewLink = (
  slug: string,
  session: string | undefined
): Effect.Effect<Viewer, NotFound | ShareClosed | Forbidden | PasswordRequired | StoreError, OpenServices | ShareTokens> =>
  Effect.gen(function*() {
    const { grant, within } = yield* openLink(slug)
    if (grant.password_hash !== null) {
      const claims = session === undefined
        ? undefined
        : yield* (yield* ShareTokens).verifySession(session, yield* Clock.currentTimeMillis)
      const version = yield* passwordVersion(grant.password_hash)
      if (claims === undefined || claims._tag === "Failure" || claims.success.grantId !== grant.grant_id || claims.success.passwordVersion !== version) {
        return yield* new PasswordRequired()
      }
    }
    return { grant, security: { roles: ["link"], attributes: {}, within }, lockedFilters: [], watermark: linkWatermark(grant) }
  })

/**
 * Checks a link's password, counting failures per client address
 * (decision 0009: 5 per 5 minutes, then 429), and opens a session bound to the grant
 * and its password. A link without a password needs none: `undefined`.
 */
export const unlock = (
  slug: string,
  password: string,
  clientIp: string
): Effect.Effect<
  { readonly session: string; readonly maxAgeSeconds: number } | undefined,
  NotFound | ShareClosed | Forbidden | PasswordIncorrect | RateLimitedWith<"rate-limit/password-attempts-exceeded"> | StoreError,
  OpenServices | ShareTokens | PasswordHasher | Limiter
> =>
  Effect.gen(function*() {
    const { grant } = yield* openLink(slug)
    const hash = grant.password_hash
    if (hash === null) return undefined
    const hasher = yield* PasswordHasher
    const right = yield* (yield* Limiter).attempt(OperationLimits.passwordAttempts(clientIp), hasher.verify(hash, password))
    if (!right) return yield* new PasswordIncorrect()
    const now = yield* Clock.currentTimeMillis
    const session = yield* (yield* ShareTokens).signSession({ grantId: grant.grant_id, passwordVersion: yield* passwordVersion(hash) }, now)
    // Never past the grant's expiry.
    const untilExpiry = grant.expires_at === null ? Infinity : Math.floor((grant.expires_at.getTime() - now) / 1000)
    return { session, maxAgeSeconds: Math.max(1, Math.min(3600, untilExpiry)) }
  })

/** The viewer of an embed, from the token in its URL. */
export const viewEmbed = (token: string): Effect.Effect<Viewer, TokenRefused | ShareClosed | Forbidden | StoreError, OpenServices | ShareTokens> =>
  Effect.gen(function*() {
    const verified = yield* (yield* ShareTokens).verifyEmbed(token, yield* Clock.currentTimeMillis)
    if (verified._tag === "Failure") return yield* new TokenRefused({ reason: verified.failure })
    const claims = verified.success
    const stored = yield* (yield* GrantStore).find(claims.tenantId as StoredGrant["tenant_id"], claims.grantId as GrantId)
    if (
      stored === undefined || stored.principal_type !== "embed" ||
      stored.subject_type !== claims.resource.type || stored.subject_id !== claims.resource.id
    ) return yield* new TokenRefused({ reason: "invalid" })
    const { grant, within } = yield* open(stored, { _tag: "Embed", grantId: stored.grant_id })
    const email = claims.attributes.email
    return {
      grant,
      security: { roles: ["embed"], attributes: claims.attributes, within },
      lockedFilters: lockedFilters(claims.params),
      watermark: grant.watermark ? typeof email === "string" ? email : `Embedded view ${grant.grant_id.slice(-12)}` : null,
      origin: claims.origin
    }
  })

/**
 * Counts one open of the viewer's link or embed (decision 0014, "Labels and
 * opens"): its page loaded, not each request the page makes. One write,
 * waited for; a store that fails it is logged and fails nothing, the page
 * is answered all the same.
 */
export const countOpen = (viewer: Viewer): Effect.Effect<void, never, GrantStore> =>
  Effect.gen(function*() {
    const at = new Date(yield* Clock.currentTimeMillis)
    yield* (yield* GrantStore).recordOpen(viewer.grant.tenant_id, viewer.grant.grant_id, at)
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning("A share's open was not counted", { grant_id: viewer.grant.grant_id, operation: error.operation }, error.cause)
    )
  )

const lockedFilters = (params: LockedParams): Viewer["lockedFilters"] =>
  Object.entries(params).map(([member, value]) => ({ member, operator: "equals", values: [value] }))

/** Values given to the report's filters that the viewer may not set (ReportViews' refusal, which every view shares). */
export const FiltersRefused = ReportViews.FiltersRefused
/** Values given to the report's filters that the viewer may not set. */
export type FiltersRefused = ReportViews.FiltersRefused

/**
 * The report of a viewer's grant, every visual run with its locked filters
 * and row-level security, and with `values` of the report's filters the
 * viewer chose. A value for a dimension the viewer's embed locks is
 * refused, not ignored: the page shows that control as set by the app.
 */
export const render = (
  viewer: Viewer,
  values: ReportFilterValues = {}
): Effect.Effect<ReportViews.ReportView, NotFound | FiltersRefused | StoreError, ReportViews.Services> =>
  ReportViews.renderWithValues({
    tenantId: viewer.grant.tenant_id,
    reportId: viewer.grant.subject_id,
    security: viewer.security,
    values,
    locked: viewer.lockedFilters
  })

/** One of the report's filters as a viewer's control shows it. */
export type FilterControl = ReportViews.FilterControl

/** The report's filters as the viewer's controls (`ReportViews.filterControls`); none for a share of anything but a report. */
export const filterControls = (
  viewer: Viewer
): Effect.Effect<ReadonlyArray<FilterControl>, NotFound | StoreError, ReportViews.Services> =>
  viewer.grant.subject_type !== "report" ? Effect.succeed([]) : ReportViews.filterControls({
    tenantId: viewer.grant.tenant_id,
    reportId: viewer.grant.subject_id,
    security: viewer.security,
    locked: viewer.lockedFilters
  })

/** One visual's rows for download, if the grant allows `download`. */
export const download = (
  viewer: Viewer,
  visualId: string,
  values: ReportFilterValues = {}
): Effect.Effect<
  { readonly visual: Visual; readonly columns: ReadonlyArray<string>; readonly rows: ReadonlyArray<Row> },
  Forbidden | NotFound | ReportViews.FiltersRefused | StoreError | Datasets.QueryError | Datasets.QueryTimedOut | EngineError,
  ReportStore | DatasetStore | DashboardStore | Datasets.Engines
> =>
  Effect.gen(function*() {
    if (!may(viewer, "download")) return yield* new Forbidden({ detail: "This share allows viewing only" })
    // Rows download from a shared report's visuals and a shared dashboard's tiles only (decision 0014).
    if (viewer.grant.subject_type !== "report" && viewer.grant.subject_type !== "dashboard") {
      return yield* new Forbidden({ detail: `Downloads are of a shared report's visuals or a shared dashboard's tiles; this share is of a ${viewer.grant.subject_type}` })
    }
    if (!downloadsRows(viewer)) {
      return yield* new Forbidden({ detail: "This share is watermarked: it downloads as a PDF or PNG, which carry the watermark, not as rows" })
    }
    const tenantId = viewer.grant.tenant_id
    // A dashboard's download is named by its tile: the tile's report visual, run as the page runs it.
    const tile = viewer.grant.subject_type === "dashboard"
      ? (yield* Dashboards.get(tenantId, viewer.grant.subject_id)).tiles.find((t) => t.id === visualId)
      : undefined
    if (viewer.grant.subject_type === "dashboard" && tile === undefined) return yield* new NotFound({ resource: "tile", id: visualId })
    // A report's visual downloads with the filters on screen (the page's per-visual menu, decision 0014), checked as the view checks them.
    if (tile === undefined && Object.keys(values).length > 0) {
      const report = yield* Reports.get(tenantId, viewer.grant.subject_id)
      const reason = yield* ReportViews.refusedValues(report, values, viewer.lockedFilters)
      if (reason !== undefined) return yield* new ReportViews.FiltersRefused({ detail: reason })
      const filtered = yield* Reports.queryVisual(tenantId, report, visualId, viewer.security, values, [...viewer.lockedFilters])
      return { visual: filtered.visual, columns: filtered.compiled.columns.map((c) => c.name), rows: filtered.rows }
    }
    const result = tile === undefined
      ? yield* Reports.queryVisual(tenantId, viewer.grant.subject_id, visualId, viewer.security, [...viewer.lockedFilters])
      : yield* Reports.queryVisual(tenantId, tile.report_id, tile.visual_id, viewer.security, [...viewer.lockedFilters])
    return { visual: result.visual, columns: result.compiled.columns.map((c) => c.name), rows: result.rows }
  })
