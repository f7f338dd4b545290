/**
 * The HTTP contract of the service, defined once: the server, the OpenAPI
 * 3.1 document and the typed client all derive from it.
 *
 * @since 0.1.0
 */
import { Alert, AuditLog, Comment, Dashboard, Dataset, DateRange, ExportJob, ExportSchedule, Grant, Grants, Report, Events, Group, Invitation, Plan, Principal, Questions, SemanticModel, SemanticQuery, SqlDialect, Tenant, User, Webhook, Workspace } from "@analytics/core"
import { Schema } from "effect"
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"
import * as Problems from "./Problems.ts"
import * as QueryParams from "./QueryParams.ts"
import { RateLimitClass } from "./RateLimiting.ts"

/** Bearer-token authentication; provides the caller as `CurrentPrincipal`. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: Principal.CurrentPrincipal
}>()("@analytics/adapter-http/Authentication", {
  security: { bearer: HttpApiSecurity.bearer },
  // Every /v1 request is counted at the edge (decision 0009); declared here so every authenticated endpoint documents its 429s.
  error: [Problems.Unauthenticated, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
}) {}

/** Idempotency-Key handling for a POST endpoint (replay, 409, 422). */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, {
  requires: Principal.CurrentPrincipal
}>()("@analytics/adapter-http/Idempotent", {
  error: [...Problems.idempotencyProblems, Problems.ServiceUnavailable]
}) {}

/** Renders request validation failures as `request/invalid` or `request/malformed-json` problems. */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@analytics/adapter-http/Validation", {
  error: [Problems.InvalidRequest, Problems.MalformedJson]
}) {}

/** The `Idempotency-Key` request header, documented on every POST. */
const idempotencyHeader = Schema.Struct({
  "idempotency-key": Schema.optionalKey(Schema.String.annotate({
    description:
      "Up to 255 printable ASCII characters. A retry with the same key and body replays the first response for 24 hours; another body answers 422; a retry while the first runs answers 409."
  }))
})

/** The list envelope of decision 0003. */
export const ListEnvelope = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    page: Schema.Struct({
      limit: Schema.Int,
      next_cursor: Schema.NullOr(Schema.String),
      has_more: Schema.Boolean
    })
  })

// ---------------------------------------------------------------------------
// system

/** The liveness answer. */
export const Health = Schema.Struct({ status: Schema.Literal("ok"), version: Schema.String })

/** Public runtime configuration read by a frontend at boot. */
export const PublicConfig = Schema.Struct({
  version: Schema.String,
  urls: Schema.Struct({
    api: Schema.String,
    openapi: Schema.String,
    reference: Schema.String
  }),
  branding: Schema.Struct({
    name: Schema.String,
    logo_url: Schema.NullOr(Schema.String),
    primary_color: Schema.String
  }),
  features: Schema.Record(Schema.String, Schema.Boolean),
  webhooks: Schema.Struct({
    egress_ips: Schema.Array(Schema.String).annotate({
      description: "The fixed addresses deliveries come from, for receivers' allowlists; empty when not fixed"
    })
  })
})

/** Health and public configuration; no token needed. */
export const SystemGroup = HttpApiGroup.make("system", { topLevel: true })
  .add(HttpApiEndpoint.get("health", "/healthz", { success: Health }).annotate(RateLimitClass, "read"))
  .add(HttpApiEndpoint.get("publicConfig", "/api/config/public", { success: PublicConfig }).annotate(RateLimitClass, "read"))
  .annotate(OpenApi.Description, "Liveness and public configuration; no token needed.")

// ---------------------------------------------------------------------------
// tenants (operator only)

/** A tenant as the API shows it. */
export const TenantJson = Schema.Struct({
  tenant_id: Tenant.TenantId,
  name: Tenant.Name,
  plan: Plan.Plan,
  limits: Schema.NullOr(Plan.NegotiatedLimits).annotate({
    description: "The custom plan's negotiated limits; null on other plans (their limits are the plan's)"
  }),
  created_at: Schema.Date
})

/** A plan, with negotiated limits when it is custom. */
const PlanChoice = {
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.NegotiatedLimits)
}

/** A provisioned tenant, with its admin token shown this once. */
export const ProvisionedTenant = Schema.Struct({
  ...TenantJson.fields,
  token: Schema.String.annotate({ description: "The tenant's admin API token; shown once, stored only as a hash" })
})

/** Provisioning tenants: the operator token only. */
export const TenantsGroup = HttpApiGroup.make("tenants")
  .add(
    HttpApiEndpoint.post("create", "/v1/tenants", {
      headers: idempotencyHeader,
      payload: Schema.Struct({ name: Tenant.Name, ...PlanChoice }),
      success: ProvisionedTenant.pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.patch("changePlan", "/v1/tenants/:tenant_id", {
      params: { tenant_id: Schema.String },
      payload: Schema.Struct(PlanChoice),
      success: TenantJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Moves a tenant to another plan; its limits apply from its next request. Negotiated limits go with the custom plan only."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Tenant provisioning and plans, for the service operator's token only.")

// ---------------------------------------------------------------------------
// workspaces

/** A workspace as the API shows it. */
export const WorkspaceJson = Schema.Struct({
  workspace_id: Workspace.WorkspaceId,
  name: Tenant.Name,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

/** Workspaces of the caller's tenant. */
export const WorkspacesGroup = HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.get("list", "/v1/workspaces", {
      query: {
        limit: QueryParams.limit,
        cursor: QueryParams.cursor,
        sort: QueryParams.sort(Workspace.workspaceSortFields)
      },
      success: ListEnvelope(WorkspaceJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/workspaces", {
      headers: idempotencyHeader,
      payload: Workspace.WorkspaceCreate,
      success: WorkspaceJson.pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Workspaces of the caller's tenant.")

// ---------------------------------------------------------------------------
// webhooks

/** A webhook as the API shows it: never its secret (shown once, at creation and rotation). */
export const WebhookJson = Schema.Struct({
  webhook_id: Webhook.WebhookId,
  url: Schema.String,
  events: Schema.Array(Events.EventType),
  workspace_id: Schema.NullOr(Schema.String).annotate({ description: "Only this workspace's events; null: every workspace" }),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String).annotate({
    description: "Why it is disabled: by a member, or its receiver answered 404/410 (its owner was e-mailed)"
  }),
  previous_secret_expires_at: Schema.NullOr(Schema.Date).annotate({
    description: "After a rotation: until when deliveries are also signed with the previous secret"
  }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** A webhook with its secret, shown once. */
export const WebhookWithSecret = Schema.Struct({
  ...WebhookJson.fields,
  secret: Schema.String.annotate({ description: "The signing secret; shown this once" })
})

/** One attempt of a delivery. */
export const AttemptJson = Schema.Struct({
  attempted_at: Schema.Date,
  status_code: Schema.NullOr(Schema.Int).annotate({ description: "The receiver's status; null when it did not answer" }),
  latency_ms: Schema.Int,
  error: Schema.NullOr(Schema.String)
})

/** A delivery as the API shows it, with every attempt. */
export const DeliveryJson = Schema.Struct({
  delivery_id: Webhook.DeliveryId,
  webhook_id: Webhook.WebhookId,
  event_id: Schema.String,
  event_type: Events.EventType,
  status: Webhook.DeliveryStatus,
  attempts: Schema.Array(AttemptJson),
  next_attempt_at: Schema.NullOr(Schema.Date),
  event: Schema.Unknown.annotate({ description: "The envelope delivered as the body" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** One type of the event catalog. */
export const EventTypeJson = Schema.Struct({
  type: Events.EventType,
  schema: Schema.Unknown.annotate({ description: "JSON Schema (draft 2020-12) of the envelope of this type" })
})

const webhookParams = { webhook_id: Schema.String }
const deliveryParams = { webhook_id: Schema.String, delivery_id: Schema.String }

/** Webhooks of the caller's tenant, their deliveries, and the event catalog. */
export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("eventTypes", "/v1/event-types", {
      success: ListEnvelope(EventTypeJson),
      error: Problems.Forbidden
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The event catalog, each type with its JSON Schema.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/webhooks", {
      headers: idempotencyHeader,
      payload: Webhook.WebhookCreate,
      success: WebhookWithSecret.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.SchemeNotAllowed, Problems.FirehoseNotInPlan]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Registers an https:// URL for event types; the secret (generated when omitted) is returned this once."
    )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/webhooks", {
      query: { limit: QueryParams.limit, cursor: QueryParams.cursor },
      success: ListEnvelope(WebhookJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/webhooks/:webhook_id", {
      params: webhookParams,
      success: WebhookJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/webhooks/:webhook_id", {
      params: webhookParams,
      payload: Webhook.WebhookUpdate,
      success: WebhookJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.SchemeNotAllowed, Problems.FirehoseNotInPlan]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes the url, events, description or state. Disabling fails the unfinished deliveries; recover them after enabling."
    )
  )
  .add(
    HttpApiEndpoint.delete("remove", "/v1/webhooks/:webhook_id", {
      params: webhookParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/v1/webhooks/:webhook_id/rotate-secret", {
      params: webhookParams,
      headers: idempotencyHeader,
      payload: Schema.Struct({ secret: Schema.optionalKey(Webhook.Secret) }),
      success: WebhookWithSecret,
      error: [Problems.Forbidden, Problems.NotFound]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Replaces the secret (returned this once); for 24 hours every delivery is signed with both, one v1= each."
    )
  )
  .add(
    HttpApiEndpoint.post("test", "/v1/webhooks/:webhook_id/test", {
      params: webhookParams,
      headers: idempotencyHeader,
      payload: Schema.Struct({ type: Events.EventType }),
      success: DeliveryJson.pipe(HttpApiSchema.status(202)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Sends an example event of the type through the normal pipeline (signed, retried, logged)."
    )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/v1/webhooks/:webhook_id/deliveries", {
      params: webhookParams,
      query: {
        limit: QueryParams.limit,
        cursor: QueryParams.cursor,
        status: Schema.optionalKey(Webhook.DeliveryStatus),
        event_type: Schema.optionalKey(Events.EventType)
      },
      success: ListEnvelope(DeliveryJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The deliveries log, newest first, with every attempt.")
  )
  .add(
    HttpApiEndpoint.get("delivery", "/v1/webhooks/:webhook_id/deliveries/:delivery_id", {
      params: deliveryParams,
      success: DeliveryJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", {
      params: deliveryParams,
      headers: idempotencyHeader,
      success: DeliveryJson.pipe(HttpApiSchema.status(202)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled, Problems.DeliveryInProgress]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Delivers a finished delivery again: same delivery and event id, back to pending with a fresh retry schedule; earlier attempts stay in its log."
    )
  )
  .add(
    HttpApiEndpoint.post("recover", "/v1/webhooks/:webhook_id/recover", {
      params: webhookParams,
      headers: idempotencyHeader,
      payload: Schema.Struct({
        since: Schema.Date.annotate({ description: "Failed deliveries created at or after this instant" }),
        until: Schema.optionalKey(Schema.Date.annotate({ description: "…and before this one (default: now)" }))
      }),
      success: Schema.Struct({ recovered: Schema.Int }).pipe(HttpApiSchema.status(202)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Delivers again every failed delivery created in the range, each as a re-delivery."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Webhooks: registration, secret rotation, test sends, the deliveries log and recovery.")

// ---------------------------------------------------------------------------
// directory

/** A user as the API shows it. */
export const UserJson = Schema.Struct({
  user_id: User.UserId,
  email: Schema.String,
  name: Schema.String,
  status: User.UserStatus,
  roles: Schema.Array(User.ServiceRole),
  external_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** A team as the API shows it. */
export const TeamJson = Schema.Struct({
  team_id: Group.GroupId,
  name: Schema.String,
  source: Group.GroupSource.annotate({ description: "manual: made here; scim: the identity provider's group, changed there only" }),
  external_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** An executive role as the API shows it. */
export const ExecutiveRoleJson = Schema.Struct({
  role_id: Group.GroupId,
  name: Schema.String,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const pageQuery = { limit: QueryParams.limit, cursor: QueryParams.cursor }
const userParams = { user_id: Schema.String }
const groupParams = { id: Schema.String }

/** The tenant's users. Tenant admins only. */
/** A bearer token as listed: never the token itself. */
const TokenJson = Schema.Struct({ token_id: Schema.String, created_at: Schema.Date })

/** The tokens of a holder, newest first, a page at a time like every list. */
const TokenList = ListEnvelope(TokenJson)

/** A bearer token as issued, the token shown this once. */
const IssuedTokenJson = Schema.Struct({
  token_id: Schema.String,
  token: Schema.String.annotate({ description: "Shown this once; stored only as a hash" }),
  created_at: Schema.Date
})

export const UsersGroup = HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.get("list", "/v1/users", {
      query: pageQuery,
      success: ListEnvelope(UserJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/users", {
      headers: idempotencyHeader,
      payload: User.UserCreate,
      success: UserJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.EmailTaken]
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/users/:user_id", {
      params: userParams,
      success: UserJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/users/:user_id", {
      params: userParams,
      payload: User.UserUpdate,
      success: UserJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes a user's name, service roles or status; a deprovisioned user has no access from their next request."
    )
  )
  .add(
    HttpApiEndpoint.post("issueToken", "/v1/users/:user_id/tokens", {
      params: userParams,
      headers: idempotencyHeader,
      success: IssuedTokenJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.UserDeprovisioned]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Issues a personal API token of an active user, shown this once. It acts as the user as the directory has them at each request: their service roles, and no access once deprovisioned."
    )
  )
  .add(
    HttpApiEndpoint.get("listTokens", "/v1/users/:user_id/tokens", {
      params: userParams,
      query: pageQuery,
      success: TokenList,
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "A user's personal tokens (ids and dates, never the tokens), newest first.")
  )
  .add(
    HttpApiEndpoint.delete("revokeToken", "/v1/users/:user_id/tokens/:token_id", {
      params: { user_id: Schema.String, token_id: Schema.String },
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Revokes a user's token; it is refused from the next request.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The tenant's users and their personal tokens. Tenant admins only.")

/** The endpoints of one kind of group (teams, executive roles): the same contract under its own path. */
const groupEndpoints = <const Name extends string, const Path extends `/${string}`, S extends Schema.Top>(
  name: Name,
  path: Path,
  json: S,
  description: string
) =>
  HttpApiGroup.make(name)
    .add(
      HttpApiEndpoint.get("list", path, {
        query: pageQuery,
        success: ListEnvelope(json),
        error: [...Problems.cursorProblems, Problems.Forbidden]
      }).annotate(RateLimitClass, "read")
    )
    .add(
      HttpApiEndpoint.post("create", path, {
        headers: idempotencyHeader,
        payload: Group.GroupInput,
        success: json.pipe(HttpApiSchema.status(201)),
        error: Problems.Forbidden
      }).middleware(Idempotent).annotate(RateLimitClass, "write")
    )
    .add(
      HttpApiEndpoint.get("get", `${path}/:id`, {
        params: groupParams,
        success: json,
        error: [Problems.Forbidden, Problems.NotFound]
      }).annotate(RateLimitClass, "read")
    )
    .add(
      HttpApiEndpoint.patch("rename", `${path}/:id`, {
        params: groupParams,
        payload: Group.GroupInput,
        success: json,
        error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
      }).annotate(RateLimitClass, "write")
    )
    .add(
      HttpApiEndpoint.delete("delete", `${path}/:id`, {
        params: groupParams,
        success: HttpApiSchema.NoContent,
        error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
      }).annotate(RateLimitClass, "write")
    )
    .add(
      HttpApiEndpoint.get("listMembers", `${path}/:id/members`, {
        params: groupParams,
        query: pageQuery,
        success: ListEnvelope(UserJson),
        error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
      }).annotate(RateLimitClass, "read")
    )
    .add(
      HttpApiEndpoint.post("addMember", `${path}/:id/members`, {
        params: groupParams,
        headers: idempotencyHeader,
        payload: Schema.Struct({ user_id: Schema.String }),
        success: UserJson.pipe(HttpApiSchema.status(201)),
        error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
      }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
        OpenApi.Description,
        "Adds a user (adding them again changes nothing); grants to the group reach them from their next request."
      )
    )
    .add(
      HttpApiEndpoint.delete("removeMember", `${path}/:id/members/:user_id`, {
        params: { id: Schema.String, user_id: Schema.String },
        success: HttpApiSchema.NoContent,
        error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
      }).annotate(RateLimitClass, "write")
    )
    .middleware(Authentication)
    .annotate(OpenApi.Description, description)

/** Teams (decision 0014): made here or synced over SCIM. Tenant admins only. */
export const TeamsGroup = groupEndpoints(
  "teams",
  "/v1/teams",
  TeamJson,
  "Teams: made here, or the identity provider's groups synced over SCIM (changed there only). Tenant admins only."
)

/** Executive roles (decision 0014): grants to a role reach whoever holds it when access is decided. Tenant admins only. */
export const ExecutiveRolesGroup = groupEndpoints(
  "executiveRoles",
  "/v1/executive-roles",
  ExecutiveRoleJson,
  "Executive roles (CFO, VP Sales…) and who holds them; a grant to a role reaches its holders as they are when access is decided. Tenant admins only."
)

/** An invitation as the API shows it (never its token, which only the e-mail carries). */
export const InvitationJson = Schema.Struct({
  invitation_id: Invitation.InvitationId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  status: Invitation.InvitationStatus,
  expires_at: Schema.Date,
  user_id: Schema.NullOr(Schema.String).annotate({ description: "The user made by accepting it" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const invitationParams = { id: Schema.String }

/** Invitations by e-mail (decision 0014). Tenant admins only. */
export const InvitationsGroup = HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.get("list", "/v1/invitations", {
      query: pageQuery,
      success: ListEnvelope(InvitationJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/invitations", {
      headers: idempotencyHeader,
      payload: Invitation.InvitationCreate,
      success: InvitationJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.EmailTaken]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Invites an address that is no user yet and e-mails the invitation (valid 7 days); a pending one of the same address is renewed."
    )
  )
  .add(
    HttpApiEndpoint.post("resend", "/v1/invitations/:id/resend", {
      params: invitationParams,
      headers: idempotencyHeader,
      success: InvitationJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.InvitationClosed]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Sends the invitation again with a new link, valid 7 days from now; the previous link stops working."
    )
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/v1/invitations/:id", {
      params: invitationParams,
      success: InvitationJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.InvitationClosed]
    }).annotate(RateLimitClass, "write")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Invitations by e-mail. Tenant admins only.")

/** Accepting an invitation: its token is the credential. */
export const InvitationAcceptanceGroup = HttpApiGroup.make("invitationAcceptance")
  .add(
    HttpApiEndpoint.post("accept", "/v1/invitations/accept", {
      payload: Invitation.InvitationAccept,
      success: Schema.Struct({
        user: UserJson,
        tenant_id: Schema.String,
        token: Schema.String.annotate({ description: "The new user's personal API token, shown this once" })
      }).pipe(HttpApiSchema.status(201)),
      // Counted by client address, as every /v1 request without a credential (decision 0009).
      error: [Problems.InvitationNotFound, Problems.InvitationClosed, Problems.EmailTaken, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Accepts an invitation with the token from its e-mail (no bearer token): the user is made, active, with a personal API token, and the invitation is used."
    )
  )

/** Tokens for the tenant's identity provider to provision over SCIM 2.0 at `/scim/v2`. Tenant admins only. */
export const ScimTokensGroup = HttpApiGroup.make("scimTokens")
  .add(
    HttpApiEndpoint.post("create", "/v1/scim-tokens", {
      headers: idempotencyHeader,
      success: Schema.Struct({
        ...IssuedTokenJson.fields,
        scim_url: Schema.String.annotate({ description: "The SCIM 2.0 base URL to configure in the identity provider" })
      }).pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/scim-tokens", {
      query: pageQuery,
      success: TokenList,
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The tenant's SCIM tokens (ids and dates, never the tokens), newest first.")
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/v1/scim-tokens/:token_id", {
      params: { token_id: Schema.String },
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Revokes a SCIM token; it is refused from its next use.")
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "SCIM 2.0 provisioning (RFC 7643/7644) at /scim/v2: Users, Groups (synced as teams), ServiceProviderConfig, ResourceTypes, Schemas. A SCIM token serves /scim/v2 only."
  )

// ---------------------------------------------------------------------------
// datasets

/** A dataset as the API shows it. */
export const DatasetJson = Schema.Struct({
  dataset_id: Dataset.DatasetId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  source: Dataset.DatasetSource,
  model: SemanticModel.Model,
  columns: Schema.Array(Schema.Struct({
    name: Schema.String,
    type: SemanticModel.DimensionType.annotate({ description: "The dimension type the column suggests" }),
    engine_type: Schema.String
  })).annotate({ description: "The columns of the rows as last loaded; empty before any" }),
  row_count: Schema.NullOr(Schema.Number),
  refreshed_at: Schema.NullOr(Schema.Date).annotate({ description: "When the rows were last loaded (or the table first read)" }),
  refresh_cron: Schema.NullOr(Schema.String).annotate({ description: "A PostgreSQL dataset's refresh schedule (cron, UTC)" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const datasetParams = { id: Schema.String }

/** What running a semantic query may answer besides its result (a dataset's, a visual's, a tile's, an alert's check). */
const queryProblems = [
  Problems.Forbidden,
  Problems.NotFound,
  Problems.QueryInvalid,
  Problems.NotLoaded,
  Problems.EngineUnavailable,
  Problems.ModelInvalid,
  Problems.QueryTimedOut,
  Problems.QueryConcurrency,
  Problems.ServiceUnavailable
] as const

/** A value of a result row. */
const CellJson = Schema.NullOr(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))

/** The answer to a semantic query. */
export const QueryResultJson = Schema.Struct({
  columns: Schema.Array(Schema.Struct({
    name: Schema.String,
    member: Schema.String,
    kind: Schema.Literals(["dimension", "time_dimension", "measure"]),
    type: SemanticModel.DimensionType,
    granularity: Schema.optionalKey(Schema.Literals(DateRange.granularities)),
    format: Schema.optionalKey(SemanticModel.MeasureFormat.annotate({ description: "A measure's display format, as its model declares it" }))
  })),
  data: Schema.Array(Schema.Record(Schema.String, CellJson)).annotate({
    description: "One object per row, keyed by column name; times as \"YYYY-MM-DD HH:MM:SS\" UTC"
  }),
  row_count: Schema.Number
})

/** Datasets of the tenant's workspaces and their semantic queries. */
export const DatasetsGroup = HttpApiGroup.make("datasets")
  .add(
    HttpApiEndpoint.get("list", "/v1/datasets", {
      query: { workspace_id: Workspace.WorkspaceId, ...pageQuery },
      success: ListEnvelope(DatasetJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The datasets of a workspace (required), newest first.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/datasets", {
      headers: idempotencyHeader,
      payload: Dataset.DatasetCreate,
      success: DatasetJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.ModelInvalid, Problems.SourceInvalid, Problems.EngineUnavailable]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates a dataset in a workspace: an upload (PUT its file to /v1/datasets/{id}/data) or a table of the operator's PostgreSQL. Without a model, one is suggested from the columns. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/datasets/:id", {
      params: datasetParams,
      success: DatasetJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/datasets/:id", {
      params: datasetParams,
      payload: Dataset.DatasetUpdate,
      success: DatasetJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.ModelInvalid]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Renames or describes a dataset: its semantic model (dimensions, measures, row-level security) is checked against its columns. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/datasets/:id", {
      params: datasetParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("refresh", "/v1/datasets/:id/refresh", {
      params: datasetParams,
      headers: idempotencyHeader,
      success: DatasetJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.RefreshNeedsFile, Problems.SourceInvalid, Problems.EngineUnavailable, Problems.ModelInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Reads a PostgreSQL dataset's table again (columns, row count), with the dataset.refresh.* events; an upload dataset is refreshed by PUTting its file again. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.post("query", "/v1/datasets/:id/query", {
      params: datasetParams,
      headers: idempotencyHeader,
      payload: SemanticQuery.Query,
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Runs a semantic query (measures, dimensions, time_dimensions, filters, order, limit) for the caller: row-level security applies, evaluated now. At most the plan's concurrent queries per workspace (429 rate-limit/query-concurrency)."
    )
  )
  .add(
    HttpApiEndpoint.post("sql", "/v1/datasets/:id/sql", {
      params: datasetParams,
      payload: SemanticQuery.Query,
      success: Schema.Struct({
        dialect: Schema.Literals(SqlDialect.dialectNames),
        sql: Schema.String,
        params: Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))
      }),
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.NotLoaded, Problems.EngineUnavailable, Problems.ModelInvalid]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The SQL a query compiles to for the dataset's engine, with its bound parameters (a dry run: nothing is executed)."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Datasets queried through a semantic layer. Members query; tenant admins create and describe.")

// ---------------------------------------------------------------------------
// reports

/** A report as the API shows it. */
export const ReportJson = Schema.Struct({
  report_id: Report.ReportId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  pages: Schema.Array(Report.Page),
  filters: Schema.Array(Report.ReportFilter),
  settings: Report.Settings,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const reportParams = { id: Schema.String }

/** Reports of the tenant's workspaces: pages of visuals over datasets. */
export const ReportsGroup = HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.get("list", "/v1/reports", {
      query: { workspace_id: Workspace.WorkspaceId, ...pageQuery },
      success: ListEnvelope(ReportJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The reports of a workspace (required), newest first.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/reports", {
      headers: idempotencyHeader,
      payload: Report.ReportCreate,
      success: ReportJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.ReportInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates a report: named pages of visuals, each a semantic query of a dataset of the same workspace and an encoding of its columns. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/reports/:id", {
      params: reportParams,
      success: ReportJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/reports/:id", {
      params: reportParams,
      payload: Report.ReportUpdate,
      success: ReportJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ReportInvalid]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes a report; `pages` replaces every page. Tenant admins, and whoever a grant gives edit on the report or its workspace (as a user, or through a team or executive role they hold now)."
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/reports/:id", {
      params: reportParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("visualData", "/v1/reports/:id/visuals/:visual_id/query", {
      params: { id: Schema.String, visual_id: Schema.String },
      headers: idempotencyHeader,
      payload: Schema.Struct({ filters: Schema.optionalKey(SemanticQuery.Query.fields.filters) }),
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Runs one visual's query for the caller (row-level security applies), with extra `filters` if given, cancelled after the report's query_timeout_seconds."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Reports: named pages of visuals. Members read them and run their visuals; tenant admins write them.")

// ---------------------------------------------------------------------------
// dashboards

/** A dashboard as the API shows it. */
export const DashboardJson = Schema.Struct({
  dashboard_id: Dashboard.DashboardId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  tiles: Schema.Array(Dashboard.Tile),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const dashboardParams = { id: Schema.String }

/** Dashboards: visuals pinned from reports. */
export const DashboardsGroup = HttpApiGroup.make("dashboards")
  .add(
    HttpApiEndpoint.get("list", "/v1/dashboards", {
      query: { workspace_id: Workspace.WorkspaceId, ...pageQuery },
      success: ListEnvelope(DashboardJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/dashboards", {
      headers: idempotencyHeader,
      payload: Dashboard.DashboardCreate,
      success: DashboardJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates a dashboard of tiles, each pinning a visual of a report of the same workspace on a 24-column grid. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/dashboards/:id", { params: dashboardParams, success: DashboardJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/dashboards/:id", {
      params: dashboardParams,
      payload: Dashboard.DashboardUpdate,
      success: DashboardJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/dashboards/:id", {
      params: dashboardParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("tileData", "/v1/dashboards/:id/tiles/:tile_id/query", {
      params: { id: Schema.String, tile_id: Schema.String },
      headers: idempotencyHeader,
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Runs a tile's report visual for the caller.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Dashboards: visuals pinned from reports. Members read them; tenant admins write them.")

// ---------------------------------------------------------------------------
// audit log

/** An audit log entry as the API shows it. */
export const AuditEntryJson = Schema.Struct({
  entry_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  action: Schema.String,
  actor: AuditLog.Actor,
  target: Schema.Struct({ type: Schema.String, id: Schema.String }),
  detail: Schema.Record(Schema.String, Schema.Unknown),
  created_at: Schema.Date
})

const Filter = Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(200))

/** The audit log: read only, for tenant admins. */
export const AuditLogGroup = HttpApiGroup.make("auditLog")
  .add(
    HttpApiEndpoint.get("list", "/v1/audit-log", {
      query: {
        ...pageQuery,
        action: Schema.optionalKey(Filter),
        target_type: Schema.optionalKey(Filter),
        target_id: Schema.optionalKey(Filter),
        actor_id: Schema.optionalKey(Filter)
      },
      success: ListEnvelope(AuditEntryJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Every grant create, update and revoke with its actor, time and full payload (never a secret), newest first. Append-only: nothing changes or deletes an entry. Tenant admins only."
  )

// ---------------------------------------------------------------------------
// sharing

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
  created_by: AuditLog.Actor,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const grantParams = { grant_id: Schema.String }
const grantProblems = [Problems.Forbidden, Problems.NotFound, Problems.GrantInvalid, Problems.GrantNotActive] as const

/** Sharing grants (decision 0014). */
export const SharingGroup = HttpApiGroup.make("sharing")
  .add(
    HttpApiEndpoint.post("create", "/v1/sharing/grants", {
      headers: idempotencyHeader,
      payload: Grants.GrantCreate,
      success: GrantJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.GrantInvalid, Problems.ServiceUnavailable]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Shares a report, dashboard, dataset or workspace with a user (or an e-mail address, which is invited), a team, an executive role, a public link (`link_url`, optionally with a `password` and a watermark) or an embed (`embed`: a signed token and an iframe snippet). " +
        "A tenant admin may grant anything; anyone else only what they hold, and only holding share. Written to the audit log; emits sharing.grant.created."
    )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/sharing/grants", {
      query: {
        ...pageQuery,
        subject_type: Schema.optionalKey(Grant.SubjectType),
        subject_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100))),
        principal_type: Schema.optionalKey(Grant.PrincipalType),
        principal_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100))),
        workspace_id: Schema.optionalKey(Workspace.WorkspaceId),
        state: Schema.optionalKey(Grant.State)
      },
      success: ListEnvelope(GrantJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Grants newest first, revoked and expired ones included (filter by `state`): every grant of the tenant for an admin, the caller's own for anyone else."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/sharing/grants/:grant_id", { params: grantParams, success: GrantJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/sharing/grants/:grant_id", {
      params: grantParams,
      payload: Grants.GrantUpdate,
      success: GrantJson,
      error: grantProblems
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes an active grant's actions, expiry, watermark or (a link's) password; `null` removes an expiry or a password. A new password ends the link's open sessions."
    )
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/v1/sharing/grants/:grant_id", {
      params: grantParams,
      success: GrantJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.GrantNotActive]
    })
      .annotate(RateLimitClass, "write").annotate(
        OpenApi.Description,
        "Revokes an active grant from the next request on (its links, sessions and embed tokens included); the record stays for audit. Emits sharing.grant.revoked. " +
          "An expired or revoked grant is not changed: 409 grant/not-active (an expired grant stays expired)."
      )
  )
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
    HttpApiEndpoint.get("links", "/v1/workspaces/:workspace_id/links", {
      params: { workspace_id: Workspace.WorkspaceId },
      query: { ...pageQuery, state: Schema.optionalKey(Grant.State) },
      success: ListEnvelope(GrantJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Every public link of a workspace, newest first, with its state and whether it is paused: the one place to pause or revoke them. Tenant admins only."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Sharing grants to users, teams, executive roles, public links and embeds; every change is in the audit log.")

// ---------------------------------------------------------------------------
// exports

/** An export job as the API shows it. */
export const JobJson = Schema.Struct({
  job_id: ExportJob.JobId,
  report_id: Schema.String,
  workspace_id: Schema.String,
  format: ExportJob.Format,
  request: ExportJob.ExportRequest,
  status: ExportJob.Status,
  percent_complete: Schema.Int,
  attempts: Schema.Int,
  error: Schema.NullOr(Schema.Struct({ kind: Schema.Literals(["transient", "permanent"]), detail: Schema.String })).annotate({
    description: "Why the last run failed: transient (it is tried again, up to 3 runs) or permanent"
  }),
  result: Schema.NullOr(Schema.Struct({ filename: Schema.String, content_type: Schema.String, bytes: Schema.Int, warnings: Schema.Array(Schema.String) })),
  created_at: Schema.Date,
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  updated_at: Schema.Date
})

const jobParams = { job_id: Schema.String }

/** Export jobs (decision 0015). */
export const ExportsGroup = HttpApiGroup.make("exports")
  .add(
    HttpApiEndpoint.post("export", "/v1/reports/:id/export", {
      params: reportParams,
      headers: idempotencyHeader,
      payload: ExportJob.ExportRequest,
      success: JobJson.pipe(HttpApiSchema.status(202)),
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ExportsExceeded]
    }).middleware(Idempotent).annotate(RateLimitClass, "export").annotate(
      OpenApi.Description,
      "Queues an export of a report as the caller (their row-level security), who needs download on it. Answers 202 with the job; poll GET /v1/jobs/{job_id}. " +
        "Formats: pdf, xlsx and pptx (the report or its chosen `pages`, with the deployment's document renderers); png (one visual's image), csv, json and parquet (one visual's rows; parquet from the DuckDB engine's own writer) and sql (its compiled SQL, in `dialect`): these name `visual_id`."
    )
  )
  .add(
    HttpApiEndpoint.get("job", "/v1/jobs/:job_id", { params: jobParams, success: JobJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read").annotate(
        OpenApi.Description,
        "A job's status; while it is queued or running, `Retry-After` says when to poll again. Its requester's and tenant admins' only: another member's job is a 404."
      )
  )
  .add(
    HttpApiEndpoint.get("result", "/v1/jobs/:job_id/result", {
      params: jobParams,
      success: Schema.Struct({ url: Schema.String, expires_at: Schema.Date, filename: Schema.String, content_type: Schema.String, bytes: Schema.Int }),
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ResultNotReady]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "A signed URL to the job's file, valid for 1 hour; anyone holding it may fetch the file until then. Only the job's requester (while they may still download the report) and tenant admins get one; another member's job is a 404."
    )
  )
  .add(
    HttpApiEndpoint.delete("cancel", "/v1/jobs/:job_id", { params: jobParams, success: JobJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Cancels a queued or running job; a finished one is answered as it is.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Asynchronous exports of reports, and their jobs.")

// ---------------------------------------------------------------------------
// export schedules

/** A recipient's part of a run: their job, or why they got none. */
export const RecipientDeliveryJson = Schema.Union([
  Schema.Struct({ recipient: Schema.String, job_id: ExportJob.JobId }),
  Schema.Struct({ recipient: Schema.String, skipped: Schema.String })
])

/** An export schedule as the API shows it: its timing, its export (as POST /v1/reports/{id}/export takes it) and its recipients. */
export const ScheduleJson = Schema.Struct({
  schedule_id: ExportSchedule.ScheduleId,
  workspace_id: Workspace.WorkspaceId,
  report_id: Schema.String,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  ...ExportJob.ExportRequest.fields,
  recipients: Schema.Array(Schema.String),
  run_as: Schema.NullOr(Schema.String).annotate({ description: "Whose view recipients who are no users of the tenant get; null: none named" }),
  enabled: Schema.Boolean,
  created_by: AuditLog.Actor,
  next_run_at: Schema.NullOr(Schema.Date).annotate({ description: "When it runs next; null while disabled" }),
  last_run: Schema.NullOr(Schema.Struct({
    at: Schema.Date,
    trigger: Schema.Literals(["schedule", "send_now"]),
    deliveries: Schema.Array(RecipientDeliveryJson)
  })),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** A run as `send-now` answers it. */
export const RunJson = ScheduleJson.fields.last_run.members[0]

const scheduleParams = { id: Schema.String }

/** Scheduled exports (decision 0015). */
export const ExportSchedulesGroup = HttpApiGroup.make("exportSchedules")
  .add(
    HttpApiEndpoint.get("list", "/v1/export-schedules", {
      query: { workspace_id: Workspace.WorkspaceId, ...pageQuery },
      success: ListEnvelope(ScheduleJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "A workspace's export schedules, newest first. Tenant admins only; members read theirs by id.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/export-schedules", {
      headers: idempotencyHeader,
      payload: ExportSchedule.ScheduleCreate,
      success: ScheduleJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ScheduleInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Schedules an export of a report on a five-field cron in a time zone, e-mailed to `recipients` (users of the tenant). " +
        "Each run queues one job per recipient, run as that recipient: each gets the data they would see live. Needs download on the report."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/export-schedules/:id", { params: scheduleParams, success: ScheduleJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/export-schedules/:id", {
      params: scheduleParams,
      payload: ExportSchedule.ScheduleUpdate,
      success: ScheduleJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ScheduleInvalid]
    }).annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Changes a schedule; `null` removes `pages`, `visual_id` or `dialect`; `enabled: false` pauses it.")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/export-schedules/:id", {
      params: scheduleParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("sendNow", "/v1/export-schedules/:id/send-now", {
      params: scheduleParams,
      headers: idempotencyHeader,
      success: RunJson.pipe(HttpApiSchema.status(202)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.ExportsExceeded]
    }).middleware(Idempotent).annotate(RateLimitClass, "export").annotate(
      OpenApi.Description,
      "Runs the schedule now (a test send): its jobs, one per recipient, are queued at once; its next scheduled run stays as it was."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Exports made on a schedule and e-mailed to a distribution list, each recipient's as they would see it.")

// ---------------------------------------------------------------------------
// alerts

/** An alert as the API shows it. */
export const AlertJson = Schema.Struct({
  alert_id: Alert.AlertId,
  workspace_id: Workspace.WorkspaceId,
  dataset_id: Dataset.DatasetId,
  name: Schema.String,
  measure: Schema.String,
  filters: Alert.AlertCreate.fields.filters,
  condition: Alert.Condition,
  threshold: Schema.Number,
  schedule: Alert.Schedule,
  state: Schema.Literals(["ok", "firing"]),
  last_value: Schema.NullOr(Schema.Number),
  last_checked_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const alertParams = { id: Schema.String }

/** Alerts on datasets' measures. */
export const AlertsGroup = HttpApiGroup.make("alerts")
  .add(
    HttpApiEndpoint.get("list", "/v1/alerts", {
      query: { workspace_id: Workspace.WorkspaceId, ...pageQuery },
      success: ListEnvelope(AlertJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/alerts", {
      headers: idempotencyHeader,
      payload: Alert.AlertCreate,
      success: AlertJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates an alert on a measure of a dataset: alert.fire when `measure condition threshold` starts to hold, alert.resolve when it stops. Checked after each refresh of the dataset and/or on `schedule.cron` (UTC). Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/alerts/:id", { params: alertParams, success: AlertJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/alerts/:id", {
      params: alertParams,
      payload: Alert.AlertUpdate,
      success: AlertJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/alerts/:id", {
      params: alertParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("check", "/v1/alerts/:id/check", {
      params: alertParams,
      headers: idempotencyHeader,
      success: AlertJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Checks the alert now (firing or resolving it as its condition says).")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Alerts on datasets' measures. Members read them; tenant admins write and check them.")

// ---------------------------------------------------------------------------
// comments

/** A comment as the API shows it. */
export const CommentJson = Schema.Struct({
  comment_id: Comment.CommentId,
  report_id: Schema.String,
  workspace_id: Workspace.WorkspaceId,
  visual_id: Schema.NullOr(Schema.String).annotate({ description: "The visual whose thread it is in; null for the report's own thread" }),
  parent_id: Schema.NullOr(Comment.CommentId).annotate({ description: "The thread's first comment it replies to; null when it starts a thread" }),
  author: AuditLog.Actor,
  text: Schema.String.annotate({ description: "Empty once deleted" }),
  deleted: Schema.Boolean.annotate({ description: "Deleted while it had replies: kept, without its text, so its thread still reads" }),
  edited_at: Schema.NullOr(Schema.Date).annotate({ description: "When its author last changed the text; null if never" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const commentParams = { id: Schema.String }

/** Threaded comments on reports (the sharing action `comment`, decision 0019). */
export const CommentsGroup = HttpApiGroup.make("comments")
  .add(
    HttpApiEndpoint.get("list", "/v1/reports/:id/comments", {
      params: reportParams,
      query: {
        visual_id: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(100)).annotate({ description: "Only this visual's thread" })),
        ...pageQuery,
        sort: Schema.optionalKey(Schema.Literals(["created_at", "-created_at"]).annotate({
          description: "created_at: oldest first (a thread reads as a conversation); -created_at: newest first. Ties are broken by id ascending",
          default: "created_at"
        }))
      },
      success: ListEnvelope(CommentJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "A report's comments: its own thread and each visual's, first comments and their replies (each names its `parent_id`), oldest first by default. " +
        "Deleted comments that have replies are listed as tombstones (`deleted: true`, no text). Open to every member who may read the report."
    )
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/reports/:id/comments", {
      params: reportParams,
      headers: idempotencyHeader,
      payload: Comment.CommentCreate,
      success: CommentJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.CommentInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Comments on the report, on one of its visuals (`visual_id`), or replies to a thread's first comment (`parent_id`; replies are one level deep). " +
        "Needs comment on the report or its workspace; tenant admins always may."
    )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/comments/:id", {
      params: commentParams,
      payload: Comment.CommentUpdate,
      success: CommentJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.CommentDeleted]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes a comment's text: its author only, while they still hold comment on the report. Another member's comment is a 404 to them; an admin is refused (403): admins delete, they do not edit."
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/comments/:id", {
      params: commentParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Deletes a comment: its author, or a tenant admin (moderation). One with replies becomes a tombstone (no text, `deleted: true`); any other is removed. Another member's comment is a 404 to them."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Threaded comments on reports and their visuals; every change is in the audit log.")

/** The OpenAPI 3.1 `webhooks` section: one entry per event type, its body the type's envelope. */
export const documentWebhooks = (spec: Record<string, any>): Record<string, any> => {
  const schemas = Events.jsonSchemas()
  spec.webhooks = Object.fromEntries(Events.eventTypes.map((type) => [type, {
    post: {
      summary: type,
      description: "Signed with X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">; X-Service-Event and X-Service-Delivery name the type and the delivery.",
      requestBody: { required: true, content: { "application/json": { schema: schemas[type].schema } } },
      responses: { "200": { description: "Any 2xx within 5 seconds acknowledges the delivery" } }
    }
  }]))
  return spec
}

// ---------------------------------------------------------------------------
// AI questions

/** The SQL a query ran as, with its bound values (as POST /v1/datasets/{id}/sql shows it). */
export const SqlTextJson = Schema.Struct({
  dialect: Schema.Literals(SqlDialect.dialectNames),
  sql: Schema.String,
  params: Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))
})

/** A visual suggested for an answer: a report visual's type and encoding over the result's columns. */
export const SuggestedVisualJson = Schema.Struct({ type: Report.VisualType, encoding: Report.Encoding })

/** The answer to a question (and the `data` of the stream's `done` event). */
export const AnswerJson = Schema.Struct({
  status: Schema.Literals(["answered", "cannot_answer", "query_refused"]).annotate({
    description: "answered: from the rows of `query`; cannot_answer: the answerer could not tell what to query (`text` says why and what the dataset can answer); query_refused: the query it proposed did not pass the service's checks and nothing ran"
  }),
  text: Schema.String.annotate({ description: "The answer in words, made from the rows; or why there is none" }),
  dataset_id: Schema.String,
  query: Schema.NullOr(SemanticQuery.Query).annotate({ description: "The semantic query that ran, as POST /v1/datasets/{id}/query takes it" }),
  sql: Schema.NullOr(SqlTextJson),
  result: Schema.NullOr(QueryResultJson).annotate({ description: `The rows, as POST /v1/datasets/{id}/query answers them (at most ${Questions.maxAnswerRows})` }),
  visual: Schema.NullOr(SuggestedVisualJson)
})

/** How the stream of `Accept: text/event-stream` is documented on the operation. */
const eventStream = (operation: Record<string, any>) => {
  const ok = operation.responses?.["200"]
  if (ok !== undefined) {
    ok.content = {
      ...ok.content,
      "text/event-stream": {
        schema: {
          type: "string",
          description:
            "Server-sent events, each `event: <name>` and `data: <JSON>`, in this order: `progress` ({stage, message}, several), " +
            "`query` ({query, sql}), `rows` ({columns, data, row_count}), `answer` ({text}: pieces of the answer, several), " +
            "then `done` (the whole answer, as the JSON response). A failure after the stream began is an `error` event whose data is a problem (RFC 9457) and ends the stream."
        }
      }
    }
  }
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: "accept",
      in: "header",
      required: false,
      description: "text/event-stream for a stream of server-sent events; anything else for one JSON answer",
      schema: { type: "string" }
    }
  ]
  return operation
}

/** Questions about datasets, answered from their semantic layer (decision 0016). */
export const AiGroup = HttpApiGroup.make("ai")
  .add(
    HttpApiEndpoint.post("ask", "/v1/ai/ask", {
      headers: idempotencyHeader,
      payload: Questions.AskRequest,
      success: AnswerJson,
      error: [
        Problems.NotFound,
        Problems.Forbidden,
        Problems.NotLoaded,
        Problems.EngineUnavailable,
        Problems.ModelInvalid,
        Problems.QueryInvalid,
        Problems.QueryTimedOut,
        Problems.QueryConcurrency,
        Problems.AiQuestionsExceeded,
        Problems.ServiceUnavailable
      ]
    }).middleware(Idempotent).annotate(RateLimitClass, "ai").annotate(
      OpenApi.Description,
      "Answers a question about a dataset (dataset_id) or a report (report_id, optionally visual_id) from its semantic layer: the answerer proposes a semantic query, " +
        "which the service checks and runs as the caller (their row-level security; a slot of the workspace's concurrent queries), then words the answer from the rows. " +
        "The answer carries the query, its SQL, the rows and a suggested visual. With `Accept: text/event-stream` the answer streams as server-sent events " +
        "(progress, query, rows, answer, done; error); a client that disconnects cancels the work. " +
        "At most 30 questions a minute per user and 500 an hour per workspace (429 rate-limit/ai-questions-exceeded); a stream counts once. " +
        "An Idempotency-Key replays a JSON answer; a streamed one is not kept."
    ).annotate(OpenApi.Transform, eventStream)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Questions in words about datasets, answered with numbers from their semantic layer.")

// ---------------------------------------------------------------------------

/** The whole API. */
export const Api = HttpApi.make("analytics")
  .add(SystemGroup)
  .add(TenantsGroup)
  .add(WorkspacesGroup)
  .add(WebhooksGroup)
  .add(UsersGroup)
  .add(TeamsGroup)
  .add(ExecutiveRolesGroup)
  .add(ScimTokensGroup)
  .add(InvitationsGroup)
  .add(InvitationAcceptanceGroup)
  .add(DatasetsGroup)
  .add(ReportsGroup)
  .add(AlertsGroup)
  .add(CommentsGroup)
  .add(DashboardsGroup)
  .add(AuditLogGroup)
  .add(SharingGroup)
  .add(ExportsGroup)
  .add(ExportSchedulesGroup)
  .add(AiGroup)
  .middleware(Validation)
  .annotate(HttpApi.ParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotate(HttpApi.HeadersParseOptions, { errors: "all" })
  // Responses are built from values the domain already validated: re-checking every row costs more than it catches.
  .annotate(HttpApi.SuccessParseOptions, { disableChecks: true })
  .annotate(OpenApi.Title, "Analytics Service API")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(
    OpenApi.Description,
    "Multi-tenant analytics: workspaces, datasets, reports, exports, sharing, webhooks. Errors are RFC 9457 problem+json with a `code` member."
  )
  .annotate(OpenApi.Transform, (spec) => documentWebhooks(QueryParams.documentQueryParams(spec)))
