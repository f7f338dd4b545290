/**
 * Sharing grants and links (decision 0014).
 *
 * @since 0.1.0
 */
import { AuditLog, EmbedPreviews, Grant, Grants, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

/** An embed token with its URL and iframe snippet. */
export const EmbedJson = Schema.Struct({
  token: Schema.String.annotate({ description: "A JWS (HS256) naming the grant, the report and the locked parameters; see docs/sharing.md" }),
  expires_at: Schema.Date,
  embed_url: Schema.String,
  iframe: Schema.String.annotate({ description: "The HTML to put in the embedding page" })
})

/** A sharing grant as the API shows it (never its password or its hash). */
export const GrantJson = Schema.Struct({
  grant_id: Grant.GrantId,
  workspace_id: Workspace.WorkspaceId,
  subject_type: Grant.SubjectType,
  subject_id: Schema.String,
  principal_type: Grant.PrincipalType,
  principal_id: Schema.NullOr(Schema.String).annotate({ description: "The user, team or role; null for links, embeds and a user grant waiting for its invitation" }),
  email: Schema.NullOr(Schema.String).annotate({ description: "The invited address of a waiting user grant, or a link's recipient" }),
  invitation_id: Schema.NullOr(Schema.String),
  actions: Schema.Array(Grant.Action),
  watermark: Schema.Boolean,
  expires_at: Schema.NullOr(Schema.Date),
  state: Grant.State,
  revoked_at: Schema.NullOr(Schema.Date),
  paused: Schema.Boolean,
  password_protected: Schema.Boolean,
  link_url: Schema.NullOr(Schema.String).annotate({ description: "For links: the absolute URL to send" }),
  embed: Schema.optionalKey(EmbedJson.annotate({ description: "On creating an embed grant: its first token" })),
  label: Schema.NullOr(Schema.String).annotate({
    description: "A name for people (\"Newsletter March\", \"Customer portal\"), trimmed, 1 to 100 characters; null when none was given"
  }),
  last_opened_at: Schema.NullOr(Schema.Date).annotate({
    description: "For links and embeds: when its page was last opened (a link's /s/{token} page, an embed's page with a valid token); " +
      "null before its first open, and always for user, team and executive role grants"
  }),
  open_count: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
    description: "For links and embeds: how many times its page was opened (each page load is one; the data the page then reads, " +
      "downloads and exports are not, nor are refused visits); 0 for user, team and executive role grants"
  }),
  created_by: AuditLog.Actor,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const grantParams = { grant_id: Schema.String }
const grantProblems = [Problems.Forbidden, Problems.NotFound, Problems.GrantInvalid, Problems.GrantNotActive] as const

/** Someone the share dialog's picker offers: what a grant names them by, and how a person recognises them. */
export const PersonJson = Schema.Struct({
  type: Schema.Literals(["user", "team", "executive_role"]).annotate({ description: "The grant's principal_type to name them with" }),
  id: Schema.String.annotate({ description: "The grant's principal_id" }),
  name: Schema.String,
  email: Schema.NullOr(Schema.String).annotate({ description: "A user's address; null for a team or an executive role" })
})

const Scalar = Schema.Union([Schema.String, Schema.Number, Schema.Boolean])

/** What an embed would show (decision 0014, "Embeds in the console"). */
export const EmbedPreviewJson = Schema.Struct({
  visuals: Schema.Array(Schema.Struct({
    visual_id: Schema.String,
    title: Schema.NullOr(Schema.String),
    page: Schema.String,
    state: Schema.Literals(["rows", "no_rows", "hidden", "unavailable"]).annotate({
      description: "rows: it shows rows; no_rows: its query matches none; hidden: row-level security leaves none; unavailable: it cannot be shown"
    }),
    rows: Schema.Int.annotate({ description: "How many rows it would show (at most its query's limit)" })
  })),
  warnings: Schema.Array(Schema.Struct({
    kind: Schema.Literals(["attribute_missing", "no_policy", "no_rows"]),
    dataset_id: Schema.NullOr(Schema.String),
    detail: Schema.String.annotate({ description: "The problem and its fix, in words" })
  })),
  filters: Schema.Array(Schema.Struct({
    name: Schema.String,
    title: Schema.String,
    dimension: Schema.String.annotate({ description: "The key to lock it by in `params`" }),
    kind: Schema.Literals(["choice", "range"]).annotate({ description: "A choice is locked to one of `options`; a date range cannot be locked" }),
    options: Schema.Array(Scalar).annotate({ description: "The values the maker sees (at most 200)" })
  })),
  attributes: Schema.Array(Schema.Struct({
    name: Schema.String.annotate({ description: "An attribute row-level security policies for embeds read" }),
    title: Schema.String.annotate({ description: "The dimension it is compared with, in words" }),
    options: Schema.Array(Scalar).annotate({ description: "That dimension's values as the maker sees them (at most 200)" })
  }))
})

/** Sharing grants (decision 0014). */
export const SharingGroup = HttpApiGroup.make("sharing")
  .add(Endpoints.create("create", "/v1/sharing/grants", {
    payload: Grants.GrantCreate,
    success: GrantJson,
    error: [Problems.Forbidden, Problems.NotFound, Problems.GrantInvalid, Problems.ServiceUnavailable],
    description: "Shares a report, dashboard, dataset or workspace with a user (or an e-mail address, which is invited), a team, an executive role, a public link (`link_url`, optionally with a `password` and a watermark) or an embed (`embed`: a signed token and an iframe snippet). " +
      "A tenant admin may grant anything; anyone else only what they hold, and only holding share: what they hold watermarked they give watermarked, " +
      "what they give lasts only while they hold it, and their links and embeds see at most their own rows. Only an admin's grant invites an address that is no user (403 otherwise). " +
      "A grant is managed (read, changed, paused, revoked, its embed tokens) by its maker or an admin; to anyone else it is a 404. Written to the audit log; emits sharing.grant.created."
  }))
  .add(Endpoints.list("list", "/v1/sharing/grants", {
    query: {
      ...QueryParams.page,
      subject_type: Schema.optionalKey(Grant.SubjectType),
      subject_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100))),
      principal_type: Schema.optionalKey(Grant.PrincipalType),
      principal_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100))),
      workspace_id: Schema.optionalKey(Workspace.WorkspaceId),
      state: Schema.optionalKey(Grant.State)
    },
    item: GrantJson,
    error: [...Problems.cursorProblems, Problems.Forbidden],
    description: "Grants newest first, revoked and expired ones included (filter by `state`): every grant of the tenant for an admin, the caller's own for anyone else."
  }))
  .add(Endpoints.get("get", "/v1/sharing/grants/:grant_id", { params: grantParams, success: GrantJson, error: [Problems.Forbidden, Problems.NotFound] }))
  .add(Endpoints.update("update", "/v1/sharing/grants/:grant_id", {
    params: grantParams,
    payload: Grants.GrantUpdate,
    success: GrantJson,
    error: grantProblems,
    description: "Changes an active grant's actions, expiry, watermark, label or (a link's) password; `null` removes an expiry, a password or the label. " +
      "A new password ends the link's open sessions. Its opens (`open_count`, `last_opened_at`) are not changed: only visits count them."
  }))
  .add(Endpoints.remove("revoke", "/v1/sharing/grants/:grant_id", {
    params: grantParams,
    success: GrantJson,
    error: [Problems.Forbidden, Problems.NotFound, Problems.GrantNotActive],
    description: "Revokes an active grant from the next request on (its links, sessions and embed tokens included); the record stays for audit. Emits sharing.grant.revoked. " +
      "An expired or revoked grant is not changed: 409 grant/not-active (an expired grant stays expired)."
  }))
  .add(
    HttpApiEndpoint.post("pause", "/v1/sharing/grants/:grant_id/pause", { params: grantParams, success: GrantJson, error: grantProblems })
      .annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Pauses a link: it answers 403 share/paused until resumed; its URL stays.")
  )
  .add(
    HttpApiEndpoint.post("resume", "/v1/sharing/grants/:grant_id/resume", { params: grantParams, success: GrantJson, error: grantProblems })
      .annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("embedToken", "/v1/sharing/grants/:grant_id/embed-tokens", {
      params: grantParams,
      payload: Grants.EmbedTokenRequest,
      success: EmbedJson.pipe(HttpApiSchema.status(201)),
      error: grantProblems
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Mints an embed token for an embed grant: the embedding app's server calls this per page view, with the viewer's locked parameters and attributes."
    )
  )
  .add(
    HttpApiEndpoint.post("embedPreview", "/v1/sharing/embed-previews", {
      payload: EmbedPreviews.PreviewRequest,
      success: EmbedPreviewJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.GrantInvalid, Problems.ShareExpired]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "What an embed of a report would show, before it is made: each visual run as its viewer (the role `embed` with `attributes`, the locked `params`, at most a delegate's own rows) with how many rows it shows, " +
        "and a warning in words, with the fix, when row-level security or the locked values leave it none; also the filters one may lock (with their values) and the attributes the report's policies for embeds read. " +
        "Nothing is stored. For whoever may share the report; a locked value the data does not have is refused (400 grant/invalid), as the embed token refuses it."
    )
  )
  .add(Endpoints.list("links", "/v1/workspaces/:workspace_id/links", {
    params: { workspace_id: Workspace.WorkspaceId },
    query: { ...QueryParams.page, state: Schema.optionalKey(Grant.State) },
    item: GrantJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "Every public link and embed of a workspace, newest first, with its state and whether it is paused: the one place to pause or revoke them. Tenant admins only."
  }))
  .add(Endpoints.list("people", "/v1/directory/people", {
    query: {
      q: Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(100)).annotate({
        description: "Text found in a name or a user's address, case-insensitively; those starting with it come first"
      }),
      ...QueryParams.page
    },
    item: PersonJson,
    error: [...Problems.cursorProblems, Problems.Forbidden],
    description: "The share dialog's people picker: the tenant's active users, teams and executive roles matching `q`, at most 50 a page (a larger `limit` is cut to 50; `page.limit` says the size in effect), " +
      "those starting with it first, then by name. Paged like every list: `next_cursor` continues after the last person shown. " +
      "Any member may call it; it shows an id, a name and a user's address only (`GET /v1/users` stays for admins)."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Sharing grants to users, teams, executive roles, public links and embeds; every change is in the audit log.")
