/**
 * The handlers of each group of the API: thin translations between the
 * contract and the core's use cases.
 *
 * @since 0.1.0
 */
import {
  AuditLog,
  type AnalyticsEngine,
  Answerer,
  Questions,
  BlobStore,
  Alerts,
  AlertStore,
  type Comment,
  Comments,
  CommentStore,
  Cursor,
  Dashboards,
  DashboardStore,
  type Dataset,
  Datasets,
  DatasetStore,
  Limiter,
  OperationLimits,
  type Pagination,
  Plan,
  Reports,
  ReportStore,
  type SqlCompiler,
  DeliveryStore,
  Deprovisioning,
  Directory,
  DocumentRenderers,
  DirectoryStore,
  EventPublisher,
  Events,
  ExportJob,
  Exports,
  type ExportSchedule,
  ExportSchedules,
  ExportScheduleStore,
  ExportStore,
  Grant,
  Grants,
  GrantStore,
  PasswordHasher,
  ShareTokens,
  SignedUrl,
  Invitation,
  Invitations,
  InvitationStore,
  Mailer,
  Policy,
  Principal,
  type Group,
  type Tenant,
  TenantDirectory,
  TenantStore,
  Tenants,
  TenantTokens,
  Transactor,
  type User,
  type Webhook,
  Webhooks,
  WebhookStore,
  type Workspace,
  WorkspaceStore,
  Workspaces
} from "@analytics/core"
import { Clock, Context, Duration, Effect, type Layer, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api, type Middleware, Problems } from "@analytics/api"
import * as AnswerStream from "./AnswerStream.ts"
import * as ExportRoutes from "./ExportRoutes.ts"
import * as JsonResponse from "./JsonResponse.ts"
import { type DomainError, toProblem } from "./ProblemMapping.ts"
import { ServiceInfo } from "./ServiceInfo.ts"
import * as SharedRoutes from "./SharedRoutes.ts"
import { pathOf } from "./Url.ts"

/**
 * Captures services when the handlers are built and provides them to each
 * request as overlays on its context: O(1) per service, where providing a
 * whole captured `Context` would copy the request's (large) context per call.
 */
const captured = <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
  Effect.map(
    Effect.context<Keys[number]["Identifier"]>(),
    (context) => {
      const services = keys.map((key) => [key, Context.get(context, key)] as const)
      return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Keys[number]["Identifier"]>> =>
        Effect.updateContext(effect, (requestContext: Context.Context<any>) => {
          let next = requestContext
          for (const [key, service] of services) next = Context.add(next, key, service)
          return next
        }) as any
    }
  )

/**
 * The caller of an operation, as the policy admits them (`Policy.authorize`):
 * the member it acts as, or a 403 problem. The finer checks of `granted` and
 * `owner` rules happen once the resource is read.
 */
const caller = (operation: Policy.MemberOperation) =>
  Effect.flatMap(Principal.CurrentPrincipal, (principal) => Effect.mapError(Policy.authorize(principal, operation), toProblem))

/** The operator, as the policy admits them. */
const operatorCaller = (operation: Policy.OperatorOperation) =>
  Effect.flatMap(Principal.CurrentPrincipal, (principal) => Effect.mapError(Policy.authorizeOperator(principal, operation), toProblem))

/**
 * What a list use case needs from the request: the path its cursor binds
 * (prefix-free), the raw query parameters, the caller's tenant (a cursor
 * continues its own tenant's list only, decision 0003), and the page size
 * and cursor.
 */
const listRequest = (query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(Principal.CurrentPrincipal, (principal) =>
      Effect.map(HttpServerRequest.ParsedSearchParams, (params) => ({
        endpoint: `${request.method} ${pathOf(request.url)}`,
        params,
        tenant: principal._tag === "Member" ? principal.tenantId : "operator",
        limit: query.limit,
        cursor: query.cursor
      }))))

/**
 * Every handler answers its success with the endpoint's compiled JSON encoder
 * (same body, status and content type as HttpApiBuilder's Schema encoding,
 * without walking the schema per response).
 */
const respond = JsonResponse.make(Api)

const workspaceJson = (w: Workspace.Workspace) => ({
  workspace_id: w.workspace_id,
  name: w.name,
  description: w.description,
  created_at: w.created_at
})

/** `GET /healthz` and `GET /api/config/public`. */
export const systemLayer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const health = { status: "ok", version: info.version } as const
    const publicConfig = {
      version: info.version,
      urls: {
        api: `${info.publicBaseUrl}/v1`,
        openapi: `${info.publicBaseUrl}/v1/openapi.json`,
        reference: `${info.publicBaseUrl}/v1/docs`
      },
      branding: {
        name: info.branding.name,
        logo_url: info.branding.logoUrl,
        primary_color: info.branding.primaryColor
      },
      features: info.features,
      webhooks: { egress_ips: info.webhookEgressAddresses }
    }
    return handlers
      .handle("health", ({ endpoint }) => Effect.sync(() => respond(endpoint, health)))
      .handle("publicConfig", ({ endpoint }) => Effect.sync(() => respond(endpoint, publicConfig)))
  }))

/** A tenant as the API shows it. */
const tenantJson = (tenant: Tenant.Tenant) => ({ ...tenant, limits: tenant.limits ?? null })

/** `POST /v1/tenants`, `PATCH /v1/tenants/{tenant_id}`. */
export const tenantsLayer = HttpApiBuilder.group(Api, "tenants", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantStore.TenantStore, Transactor.Transactor)
    return handlers
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          yield* operatorCaller("tenants.create")
          const { tenant, token } = yield* Effect.mapError(provide(Tenants.provision(payload)), toProblem)
          return respond(endpoint, { ...tenantJson(tenant), token })
        }))
      .handle("changePlan", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          yield* operatorCaller("tenants.changePlan")
          const tenant = yield* Effect.mapError(
            provide(Tenants.changePlan(params.tenant_id as Tenant.TenantId, payload)),
            toProblem
          )
          return respond(endpoint, tenantJson(tenant))
        }))
  }))

/** `GET|POST /v1/workspaces`. */
export const workspacesLayer = HttpApiBuilder.group(Api, "workspaces", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(WorkspaceStore.WorkspaceStore, Cursor.CursorCodec)
    return handlers
      .handle("list", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("workspaces.list")
          const list = yield* listRequest(request.query)
          const page = yield* Effect.mapError(
            provide(Workspaces.list(member.tenantId, { ...list, sort: request.query.sort })),
            toProblem
          )
          return respond(request.endpoint, { data: page.data.map(workspaceJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("workspaces.create")
          const workspace = yield* Effect.mapError(provide(Workspaces.create(member.tenantId, payload)), toProblem)
          return respond(endpoint, workspaceJson(workspace))
        }))
  }))

/** A webhook as the API shows it (never its secret). */
const webhookJson = (w: Webhook.Webhook, now: number) => ({
  webhook_id: w.webhook_id,
  url: w.url,
  events: w.events,
  workspace_id: w.workspace_id,
  description: w.description,
  enabled: w.enabled,
  disabled_reason: w.disabled_reason,
  previous_secret_expires_at: w.secrets.previous !== undefined && w.secrets.previous.until > now
    ? new Date(w.secrets.previous.until)
    : null,
  created_at: w.created_at,
  updated_at: w.updated_at
})

/** A delivery as the API shows it. */
const deliveryJson = (d: Webhook.Delivery) => ({
  delivery_id: d.delivery_id,
  webhook_id: d.webhook_id,
  event_id: d.event.id,
  event_type: d.event.type,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at,
  event: d.event,
  created_at: d.created_at,
  updated_at: d.updated_at
})

/** The event catalog, built once. */
const eventTypes = (() => {
  const schemas = Events.jsonSchemas()
  const data = Events.eventTypes.map((type) => ({ type, schema: schemas[type].schema }))
  return { data, page: { limit: data.length, next_cursor: null, has_more: false } }
})()

/** `/v1/webhooks...` and `/v1/event-types`. */
export const webhooksLayer = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      WebhookStore.WebhookStore,
      DeliveryStore.DeliveryStore,
      WorkspaceStore.WorkspaceStore,
      Transactor.Transactor,
      Cursor.CursorCodec
    )
    const directory = yield* TenantDirectory.TenantDirectory
    /** The caller as the webhook use cases need it: tenant, plan (for the firehose rule) and who owns what it registers. */
    const actor = (operation: Policy.MemberOperation) => Effect.gen(function*() {
      const member = yield* caller(operation)
      const tenant = yield* Effect.mapError(directory.get(member.tenantId), toProblem)
      // A token of a deleted tenant no longer authenticates; this is the same answer.
      if (tenant === undefined) return yield* new Problems.Forbidden({ detail: "The tenant no longer exists" })
      return { tenantId: member.tenantId, plan: tenant.plan, owner: { userId: member.userId, email: member.email } }
    })
    const now = Clock.currentTimeMillis
    return handlers
      .handle("eventTypes", ({ endpoint }) => Effect.as(caller("webhooks.eventTypes"), respond(endpoint, eventTypes)))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const { secret, webhook } = yield* Effect.mapError(provide(Webhooks.create(yield* actor("webhooks.create"), payload)), toProblem)
          return respond(endpoint, { ...webhookJson(webhook, yield* now), secret })
        }))
      .handle("list", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.list")
          const page = yield* Effect.mapError(
            provide(Webhooks.list(member.tenantId, yield* listRequest(request.query))),
            toProblem
          )
          const at = yield* now
          return respond(request.endpoint, { data: page.data.map((w) => webhookJson(w, at)), page: page.page })
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.get")
          const webhook = yield* Effect.mapError(provide(Webhooks.get(member.tenantId, params.webhook_id)), toProblem)
          return respond(endpoint, webhookJson(webhook, yield* now))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const webhook = yield* Effect.mapError(provide(Webhooks.update(yield* actor("webhooks.update"), params.webhook_id, payload)), toProblem)
          return respond(endpoint, webhookJson(webhook, yield* now))
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.remove")
          yield* Effect.mapError(provide(Webhooks.remove(member.tenantId, params.webhook_id)), toProblem)
        }))
      .handle("rotateSecret", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.rotateSecret")
          const { secret, webhook } = yield* Effect.mapError(
            provide(Webhooks.rotateSecret(member.tenantId, params.webhook_id, payload.secret)),
            toProblem
          )
          return respond(endpoint, { ...webhookJson(webhook, yield* now), secret })
        }))
      .handle("test", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.test")
          const delivery = yield* Effect.mapError(provide(Webhooks.sendTest(member.tenantId, params.webhook_id, payload.type)), toProblem)
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("deliveries", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.deliveries")
          const page = yield* Effect.mapError(
            provide(Webhooks.deliveries(
              member.tenantId,
              request.params.webhook_id,
              { status: request.query.status, eventType: request.query.event_type },
              yield* listRequest(request.query)
            )),
            toProblem
          )
          return respond(request.endpoint, { data: page.data.map(deliveryJson), page: page.page })
        }))
      .handle("delivery", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.delivery")
          const delivery = yield* Effect.mapError(
            provide(Webhooks.delivery(member.tenantId, params.webhook_id, params.delivery_id)),
            toProblem
          )
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("redeliver", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.redeliver")
          const delivery = yield* Effect.mapError(
            provide(Webhooks.redeliver(member.tenantId, params.webhook_id, params.delivery_id)),
            toProblem
          )
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("recover", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.recover")
          const recovered = yield* Effect.mapError(
            provide(Webhooks.recover(member.tenantId, params.webhook_id, { from: payload.since, to: payload.until })),
            toProblem
          )
          return respond(endpoint, { recovered })
        }))
  }))

/** A user as the API shows it. */
const userJson = (u: User.User) => ({
  user_id: u.user_id,
  email: u.email,
  name: u.name,
  status: u.status,
  roles: u.roles,
  external_id: u.external_id,
  created_at: u.created_at,
  updated_at: u.updated_at
})

/** A team as the API shows it. */
const teamJson = (g: Group.Group) => ({
  team_id: g.group_id,
  name: g.name,
  source: g.source,
  external_id: g.external_id,
  created_at: g.created_at,
  updated_at: g.updated_at
})

/** An executive role as the API shows it. */
const executiveRoleJson = (g: Group.Group) => ({
  role_id: g.group_id,
  name: g.name,
  created_at: g.created_at,
  updated_at: g.updated_at
})

/** What every directory handler needs: the admin's tenant and the stores. */
const directoryTools = Effect.gen(function*() {
  const provide = yield* captured(
    DirectoryStore.DirectoryStore,
    TenantStore.TenantStore,
    Cursor.CursorCodec,
    Transactor.Transactor,
    WebhookStore.WebhookStore,
    DeliveryStore.DeliveryStore,
    ExportScheduleStore.ExportScheduleStore,
    WorkspaceStore.WorkspaceStore
  )
  /** Runs a use case for the calling admin's tenant, its errors as problems. */
  const asAdmin = <A, E extends DomainError>(
    operation: Policy.MemberOperation,
    f: (tenantId: Tenant.TenantId) => Effect.Effect<
      A,
      E,
      DirectoryStore.DirectoryStore | TenantStore.TenantStore | Cursor.CursorCodec | Transactor.Transactor | Deprovisioning.Services
    >
  ) => Effect.flatMap(caller(operation), (admin) => Effect.mapError(provide(f(admin.tenantId)), toProblem))
  return { asAdmin }
})

/** A token as listed. */
const tokenJson = (token: TenantTokens.Listed) => ({ token_id: token.tokenId, created_at: token.createdAt })

/** A token as issued, the token shown this once. */
const issuedTokenJson = (issued: TenantTokens.Issued) => ({ ...tokenJson(issued), token: issued.token })

/** `/v1/users...`: tenant admins only. */
export const usersLayer = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const { asAdmin } = yield* directoryTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin("users.list", (tenantId) => Directory.listUsers(tenantId, request))
          return respond(endpoint, { data: page.data.map(userJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.map(asAdmin("users.create", (tenantId) => Directory.createUser(tenantId, payload)), (user) => respond(endpoint, userJson(user))))
      .handle("get", ({ endpoint, params }) =>
        Effect.map(asAdmin("users.get", (tenantId) => Directory.getUser(tenantId, params.user_id)), (user) => respond(endpoint, userJson(user))))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.map(
          asAdmin("users.update", (tenantId) => Directory.updateUser(tenantId, params.user_id, payload)),
          (user) => respond(endpoint, userJson(user))
        ))
      .handle("issueToken", ({ endpoint, params }) =>
        Effect.map(
          asAdmin("users.issueToken", (tenantId) => TenantTokens.issueForUserId(tenantId, params.user_id)),
          (issued) => respond(endpoint, issuedTokenJson(issued))
        ))
      .handle("listTokens", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin("users.listTokens", (tenantId) =>
            Effect.andThen(
              Directory.getUser(tenantId, params.user_id),
              TenantTokens.listPage(tenantId, TenantTokens.userRole, request, params.user_id)
            ))
          return respond(endpoint, { data: page.data.map(tokenJson), page: page.page })
        }))
      .handle("revokeToken", ({ params }) =>
        Effect.gen(function*() {
          const revoked = yield* asAdmin("users.revokeToken", (tenantId) =>
            TenantTokens.revoke(tenantId, TenantTokens.userRole, params.token_id, params.user_id)
          )
          if (!revoked) return yield* new Problems.NotFound({ detail: `User ${params.user_id} has no token ${params.token_id}` })
        }))
  }))

/**
 * The handlers of one kind of group's endpoints (`/v1/teams`,
 * `/v1/executive-roles`): both groups have the same endpoints (see
 * `Api.groupEndpoints`), so one implementation serves them; the handler
 * builder's types do not follow a group name chosen by a type parameter,
 * hence the loose typing inside and the declared type outside.
 */
const groupLayer = <Name extends "teams" | "executiveRoles">(
  name: Name,
  kind: Group.GroupKind,
  toJson: (group: Group.Group) => unknown
): Layer.Layer<
  HttpApiGroup.Service<"analytics", Name>,
  never,
  Cursor.CursorCodec | DirectoryStore.DirectoryStore | Middleware.Authentication | Middleware.Idempotent | Middleware.Validation
> =>
  HttpApiBuilder.group(Api, name, (handlers: any) =>
    Effect.gen(function*() {
      const { asAdmin } = yield* directoryTools
      return handlers
        .handle("list", ({ endpoint, query }: any) =>
          Effect.gen(function*() {
            const request = yield* listRequest(query)
            const page = yield* asAdmin(`${name}.list` as Policy.MemberOperation, (tenantId) => Directory.listGroups(tenantId, kind, request))
            return respond(endpoint, { data: page.data.map(toJson), page: page.page })
          }))
        .handle("create", ({ endpoint, payload }: any) =>
          Effect.map(asAdmin(`${name}.create` as Policy.MemberOperation, (tenantId) => Directory.createGroup(tenantId, kind, payload)), (group) => respond(endpoint, toJson(group))))
        .handle("get", ({ endpoint, params }: any) =>
          Effect.map(asAdmin(`${name}.get` as Policy.MemberOperation, (tenantId) => Directory.getGroup(tenantId, kind, params.id)), (group) => respond(endpoint, toJson(group))))
        .handle("rename", ({ endpoint, params, payload }: any) =>
          Effect.map(
            asAdmin(`${name}.rename` as Policy.MemberOperation, (tenantId) => Directory.renameGroup(tenantId, kind, params.id, payload)),
            (group) => respond(endpoint, toJson(group))
          ))
        .handle("delete", ({ params }: any) => asAdmin(`${name}.delete` as Policy.MemberOperation, (tenantId) => Directory.deleteGroup(tenantId, kind, params.id)))
        .handle("listMembers", ({ endpoint, params, query }: any) =>
          Effect.gen(function*() {
            const request = yield* listRequest(query)
            const page = yield* asAdmin(`${name}.listMembers` as Policy.MemberOperation, (tenantId) => Directory.listMembers(tenantId, kind, params.id, request))
            return respond(endpoint, { data: page.data.map(userJson), page: page.page })
          }))
        .handle("addMember", ({ endpoint, params, payload }: any) =>
          Effect.map(
            asAdmin(`${name}.addMember` as Policy.MemberOperation, (tenantId) => Directory.addMember(tenantId, kind, params.id, payload.user_id)),
            (user) => respond(endpoint, userJson(user))
          ))
        .handle("removeMember", ({ params }: any) =>
          asAdmin(`${name}.removeMember` as Policy.MemberOperation, (tenantId) => Directory.removeMember(tenantId, kind, params.id, params.user_id)))
    })) as any

/** `/v1/teams...`: tenant admins only. */
export const teamsLayer = groupLayer("teams", "team", teamJson)

/** `/v1/executive-roles...`: tenant admins only. */
export const executiveRolesLayer = groupLayer("executiveRoles", "executive_role", executiveRoleJson)

/** `POST /v1/scim-tokens`: tenant admins only. */
export const scimTokensLayer = HttpApiBuilder.group(Api, "scimTokens", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantStore.TenantStore, Cursor.CursorCodec)
    const info = yield* ServiceInfo
    return handlers
      .handle("create", ({ endpoint }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.create")
          const issued = yield* Effect.mapError(provide(TenantTokens.issueScim(admin.tenantId)), toProblem)
          return respond(endpoint, { ...issuedTokenJson(issued), scim_url: `${info.publicBaseUrl}/scim/v2` })
        }))
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.list")
          const request = yield* listRequest(query)
          const page = yield* Effect.mapError(provide(TenantTokens.listPage(admin.tenantId, TenantTokens.scimRole, request)), toProblem)
          return respond(endpoint, { data: page.data.map(tokenJson), page: page.page })
        }))
      .handle("revoke", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.revoke")
          const revoked = yield* Effect.mapError(provide(TenantTokens.revoke(admin.tenantId, TenantTokens.scimRole, params.token_id)), toProblem)
          if (!revoked) return yield* new Problems.NotFound({ detail: `No SCIM token ${params.token_id}` })
        }))
  }))

/** An invitation as the API shows it. */
const invitationJson = (i: Invitation.Invitation, now: number) => ({
  invitation_id: i.invitation_id,
  email: i.email,
  name: i.name,
  status: Invitation.statusAt(i, now),
  expires_at: i.expires_at,
  user_id: i.user_id,
  created_at: i.created_at,
  updated_at: i.updated_at
})

/** Where invitation e-mails send people: the page a frontend serves at the public base URL, which posts the token to accept. */
const invitationLinks = (publicBaseUrl: string): Invitations.Links => ({
  acceptUrl: (token) => `${publicBaseUrl}/invitations/accept?token=${encodeURIComponent(token)}`
})

/** `/v1/invitations...`: tenant admins only. */
export const invitationsLayer = HttpApiBuilder.group(Api, "invitations", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(InvitationStore.InvitationStore, DirectoryStore.DirectoryStore, Mailer.Mailer, Cursor.CursorCodec)
    const links = invitationLinks((yield* ServiceInfo).publicBaseUrl)
    const now = Clock.currentTimeMillis
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.list")
          const page = yield* Effect.mapError(provide(Invitations.list(admin.tenantId, yield* listRequest(query))), toProblem)
          const at = yield* now
          return respond(endpoint, { data: page.data.map((i) => invitationJson(i, at)), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.create")
          const invitation = yield* Effect.mapError(provide(Invitations.invite(admin.tenantId, admin.userId, payload, links)), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
      .handle("resend", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.resend")
          const invitation = yield* Effect.mapError(provide(Invitations.resend(admin.tenantId, params.id, links)), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
      .handle("revoke", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.revoke")
          const invitation = yield* Effect.mapError(provide(Invitations.revoke(admin.tenantId, params.id)), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
  }))

/** `POST /v1/invitations/accept`: the token is the credential. */
export const invitationAcceptanceLayer = HttpApiBuilder.group(Api, "invitationAcceptance", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      InvitationStore.InvitationStore,
      DirectoryStore.DirectoryStore,
      TenantStore.TenantStore,
      GrantStore.GrantStore,
      Transactor.Transactor
    )
    return handlers.handle("accept", ({ endpoint, payload }) =>
      Effect.gen(function*() {
        const { user, token } = yield* Effect.mapError(provide(Invitations.accept(payload)), toProblem)
        return respond(endpoint, { user: userJson(user), tenant_id: user.tenant_id, token: token.token })
      }))
  }))

/** A dataset as the API shows it. */
export const datasetJson = (d: Dataset.Dataset) => ({
  dataset_id: d.dataset_id,
  workspace_id: d.workspace_id,
  name: d.name,
  description: d.description,
  source: d.source,
  model: d.model,
  columns: d.columns.map((c) => ({ name: c.name, type: c.type, engine_type: c.engineType })),
  row_count: d.row_count,
  refreshed_at: d.refreshed_at,
  refresh_cron: d.refresh_cron,
  created_at: d.created_at,
  updated_at: d.updated_at
})

/** A workspace record (report, dashboard, alert) as the API shows it: as stored, without its tenant. */
const withoutTenant = <A extends { readonly tenant_id: unknown }>({ tenant_id: _, ...record }: A): Omit<A, "tenant_id"> => record

/** What the dataset and report handlers need: the stores and engines, and the per-workspace query slots. */
const analyticsTools = Effect.gen(function*() {
  const provide = yield* captured(
    DatasetStore.DatasetStore,
    ReportStore.ReportStore,
    AlertStore.AlertStore,
    DashboardStore.DashboardStore,
    Transactor.Transactor,
    WorkspaceStore.WorkspaceStore,
    DirectoryStore.DirectoryStore,
    GrantStore.GrantStore,
    Datasets.Engines,
    EventPublisher.EventPublisher,
    Cursor.CursorCodec
  )
  const tenants = yield* TenantDirectory.TenantDirectory
  const limiter = yield* Limiter.Limiter
  type Services =
    | DatasetStore.DatasetStore
    | ReportStore.ReportStore
    | AlertStore.AlertStore
    | DashboardStore.DashboardStore
    | Transactor.Transactor
    | WorkspaceStore.WorkspaceStore
    | DirectoryStore.DirectoryStore
    | GrantStore.GrantStore
    | Datasets.Engines
    | EventPublisher.EventPublisher
    | Cursor.CursorCodec
  /** Runs a use case, its errors as problems. */
  const run = <A, E extends DomainError>(effect: Effect.Effect<A, E, Services>) => Effect.mapError(provide(effect), toProblem)
  // A query's slot outlives its timeout only if the process dies holding it.
  const slotLease = Duration.toMillis(Datasets.defaultQueryTimeout) + 30_000
  /**
   * Runs a query (a dataset's, a visual's, a tile's) in a slot of its
   * workspace, at most the tenant's plan's concurrent queries (decision 0009);
   * answers its columns and rows.
   */
  const queryResult = <E>(
    tenantId: Tenant.TenantId,
    workspaceId: string,
    query: Effect.Effect<{ readonly compiled: SqlCompiler.Compiled; readonly rows: ReadonlyArray<AnalyticsEngine.Row> }, E>
  ) =>
    Effect.gen(function*() {
      const tenant = yield* run(tenants.get(tenantId))
      const capacity = tenant === undefined ? 1 : Plan.limitsFor(tenant.plan, tenant.limits).queryConcurrency
      const { compiled, rows } = yield* limiter.withSlot(OperationLimits.queryConcurrency(workspaceId, capacity), slotLease)(query).pipe(
        Effect.mapError((error): E | Problems.QueryConcurrency =>
          error instanceof Limiter.RateLimited
            ? toProblem(error as Limiter.RateLimitedWith<"rate-limit/query-concurrency">)
            : error as E
        )
      )
      return { columns: compiled.columns, data: rows, row_count: rows.length }
    })
  return { run, queryResult }
})

/** `/v1/datasets...`: members list, read and query; tenant admins create, describe and delete. */
export const datasetsLayer = HttpApiBuilder.group(Api, "datasets", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.list")
          const request = yield* listRequest(query)
          const page = yield* run(Datasets.list(member.tenantId, query.workspace_id, request))
          return respond(endpoint, { data: page.data.map(datasetJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.create")
          return respond(endpoint, datasetJson(yield* run(Datasets.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.get")
          return respond(endpoint, datasetJson(yield* run(Datasets.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.update")
          return respond(endpoint, datasetJson(yield* run(Datasets.update(admin.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.delete")
          yield* run(Datasets.remove(admin.tenantId, params.id))
        }))
      .handle("refresh", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.refresh")
          const dataset = yield* run(Datasets.refresh(admin.tenantId, params.id))
          yield* run(Alerts.afterRefresh(admin.tenantId, dataset.dataset_id))
          return respond(endpoint, datasetJson(dataset))
        }))
      .handle("query", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.query")
          const dataset = yield* run(Datasets.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          return respond(endpoint, yield* queryResult(member.tenantId, dataset.workspace_id, run(Datasets.query(member.tenantId, params.id, payload, security))))
        }))
      .handle("sql", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.sql")
          const security = yield* run(Datasets.securityContext(member))
          const { compiled, dialect } = yield* run(Datasets.compile(member.tenantId, params.id, payload, security))
          return respond(endpoint, { dialect, sql: compiled.sql, params: compiled.params })
        }))
  }))


/** The problem an answering failure is: the answerer's own as 503, the rest as the query endpoints answer them. */
const answerProblem = (error: Questions.AnswerError) =>
  error._tag === "AnswererError"
    ? new Problems.ServiceUnavailable({ detail: `The answerer could not answer: ${error.detail}` })
    : toProblem(error)

/**
 * `POST /v1/ai/ask`: one JSON answer, or server-sent events for a client
 * that accepts `text/event-stream` (the request is checked and the question
 * counted before the stream begins, so refusals are problem+json).
 */
export const aiLayer = HttpApiBuilder.group(Api, "ai", (handlers) =>
  Effect.gen(function*() {
    const services = yield* Effect.context<Questions.Services>()
    const provide = yield* captured(
      Answerer.Answerer,
      Limiter.Limiter,
      TenantDirectory.TenantDirectory,
      DatasetStore.DatasetStore,
      ReportStore.ReportStore,
      DirectoryStore.DirectoryStore,
      Datasets.Engines
    )
    return handlers.handle("ask", ({ endpoint, payload }) =>
      Effect.gen(function*() {
        const member = yield* caller("ai.ask")
        const events = yield* provide(Questions.ask(member, payload)).pipe(
          Effect.mapError((error) =>
            error._tag === "AskInvalid"
              ? new Problems.InvalidRequest({ detail: error.detail, errors: [{ path: ["payload", error.field], message: error.detail }] })
              : toProblem(error)
          )
        )
        // The stream is read after this handler returns (and outside an idempotency transaction): it carries its own services.
        const stream = Stream.provideContext(events, services)
        const request = yield* HttpServerRequest.HttpServerRequest
        if (AnswerStream.wantsEventStream(request.headers.accept)) return AnswerStream.eventStream(stream, answerProblem)
        const answer = yield* Effect.mapError(Questions.collect(stream), answerProblem)
        return respond(endpoint, AnswerStream.answerJson(answer))
      }))
  }))

/** `/v1/reports...`: members list, read and run visuals; tenant admins write. */
export const reportsLayer = HttpApiBuilder.group(Api, "reports", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.list")
          const request = yield* listRequest(query)
          const page = yield* run(Reports.list(member.tenantId, query.workspace_id, request))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("reports.create")
          return respond(endpoint, withoutTenant(yield* run(Reports.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.get")
          return respond(endpoint, withoutTenant(yield* run(Reports.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.update")
          yield* run(Grants.authorize(member, "report", params.id, "edit"))
          return respond(endpoint, withoutTenant(yield* run(Reports.update(member.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("reports.delete")
          yield* run(Reports.remove(admin.tenantId, params.id))
        }))
      .handle("visualData", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.visualData")
          const report = yield* run(Reports.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const visual = run(Reports.queryVisual(member.tenantId, params.id, params.visual_id, security, payload.filters ?? []))
          return respond(endpoint, yield* queryResult(member.tenantId, report.workspace_id, visual))
        }))
  }))


/** `/v1/alerts...`: members read; tenant admins write and check. */
export const alertsLayer = HttpApiBuilder.group(Api, "alerts", (handlers) =>
  Effect.gen(function*() {
    const { run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("alerts.list")
          const page = yield* run(Alerts.list(member.tenantId, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.create")
          return respond(endpoint, withoutTenant(yield* run(Alerts.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("alerts.get")
          return respond(endpoint, withoutTenant(yield* run(Alerts.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.update")
          return respond(endpoint, withoutTenant(yield* run(Alerts.update(admin.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.delete")
          yield* run(Alerts.remove(admin.tenantId, params.id))
        }))
      .handle("check", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.check")
          return respond(endpoint, withoutTenant(yield* run(Alerts.checkNow(admin.tenantId, params.id))))
        }))
  }))


/** A comment as the API shows it: as stored, without its tenant. */
const commentJson = (comment: Comment.Comment) => withoutTenant(comment)

/** `/v1/reports/{id}/comments` and `/v1/comments/{id}`: members read; holders of comment post; authors edit; authors and admins delete. */
export const commentsLayer = HttpApiBuilder.group(Api, "comments", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      CommentStore.CommentStore,
      ReportStore.ReportStore,
      GrantStore.GrantStore,
      DirectoryStore.DirectoryStore,
      WorkspaceStore.WorkspaceStore,
      DashboardStore.DashboardStore,
      DatasetStore.DatasetStore,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor,
      Cursor.CursorCodec
    )
    const run = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(provide(effect), toProblem)
    return handlers
      .handle("list", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.list")
          const request = { ...(yield* listRequest(query)), sort: query.sort }
          const page = yield* run(Comments.list(member, params.id, { visualId: query.visual_id }, request))
          return respond(endpoint, { data: page.data.map(commentJson), page: page.page })
        }))
      .handle("create", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.create")
          return respond(endpoint, commentJson(yield* run(Comments.create(member, params.id, payload))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.update")
          return respond(endpoint, commentJson(yield* run(Comments.update(member, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.delete")
          yield* run(Comments.remove(member, params.id))
        }))
  }))

/** `/v1/dashboards...`: members read and run tiles; tenant admins write. */
export const dashboardsLayer = HttpApiBuilder.group(Api, "dashboards", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.list")
          const page = yield* run(Dashboards.list(member.tenantId, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.create")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.get")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.update")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.update(admin.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.delete")
          yield* run(Dashboards.remove(admin.tenantId, params.id))
        }))
      .handle("tileData", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.tileData")
          const dashboard = yield* run(Dashboards.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const tile = run(Dashboards.queryTile(member.tenantId, params.id, params.tile_id, security))
          return respond(endpoint, yield* queryResult(member.tenantId, dashboard.workspace_id, tile))
        }))
  }))

/** `GET /v1/audit-log`: tenant admins only. */
export const auditLogLayer = HttpApiBuilder.group(Api, "auditLog", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(AuditLog.AuditStore, Cursor.CursorCodec)
    return handlers.handle("list", ({ endpoint, query }) =>
      Effect.gen(function*() {
        const admin = yield* caller("auditLog.list")
        const filter = { action: query.action, targetType: query.target_type, targetId: query.target_id, actorId: query.actor_id }
        const page = yield* Effect.mapError(provide(AuditLog.list(admin.tenantId, filter, yield* listRequest(query))), toProblem)
        return respond(endpoint, {
          data: page.data.map((e) => ({
            entry_id: e.entry_id,
            workspace_id: e.workspace_id,
            action: e.action,
            actor: e.actor,
            target: e.target,
            detail: e.detail,
            created_at: e.created_at
          })),
          page: page.page
        })
      }))
  }))

/** A grant as the API shows it: its state now, its absolute `link_url`; never its password, hash or an embed token. */
const grantJson = (grant: Grant.StoredGrant, now: Date, publicBaseUrl: string) => ({
  grant_id: grant.grant_id,
  workspace_id: grant.workspace_id as Workspace.Workspace["workspace_id"],
  subject_type: grant.subject_type,
  subject_id: grant.subject_id,
  principal_type: grant.principal_type,
  principal_id: grant.principal_id,
  email: grant.recipient_email,
  invitation_id: grant.invitation_id,
  actions: grant.actions,
  watermark: grant.watermark,
  expires_at: grant.expires_at,
  state: Grant.stateAt(grant, now),
  revoked_at: grant.revoked_at,
  paused: grant.paused,
  password_protected: grant.password_hash !== null,
  link_url: grant.link_slug === null ? null : SharedRoutes.linkUrl(publicBaseUrl, grant.link_slug),
  created_by: grant.created_by,
  created_at: grant.created_at,
  updated_at: grant.updated_at
})

/** `/v1/sharing/grants...` and `/v1/workspaces/{id}/links`. */
export const sharingLayer = HttpApiBuilder.group(Api, "sharing", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      GrantStore.GrantStore,
      DirectoryStore.DirectoryStore,
      WorkspaceStore.WorkspaceStore,
      ReportStore.ReportStore,
      DashboardStore.DashboardStore,
      DatasetStore.DatasetStore,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor,
      PasswordHasher.PasswordHasher,
      InvitationStore.InvitationStore,
      Mailer.Mailer,
      ShareTokens.ShareTokens,
      Cursor.CursorCodec
    )
    const { publicBaseUrl } = yield* ServiceInfo
    const links = invitationLinks(publicBaseUrl)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const json = (grant: Grant.StoredGrant) => Effect.map(now, (at) => grantJson(grant, at, publicBaseUrl))
    /** A page of grants, each with its state now. */
    const pageJson = (page: Pagination.Page<Grant.StoredGrant>) =>
      Effect.map(now, (at) => ({ data: page.data.map((g) => grantJson(g, at, publicBaseUrl)), page: page.page }))
    const embedJson = (token: { readonly token: string; readonly expires_at: Date }, title: string) => {
      const url = SharedRoutes.embedUrl(publicBaseUrl, token.token)
      return { ...token, embed_url: url, iframe: SharedRoutes.iframeSnippet(url, title) }
    }
    /** Runs a use case on one grant and answers it as JSON. */
    const onGrant = <E extends DomainError>(
      endpoint: Parameters<typeof respond>[0],
      operation: Policy.MemberOperation,
      useCase: (member: Principal.Member) => Effect.Effect<Grant.StoredGrant, E, Grants.Services | PasswordHasher.PasswordHasher>
    ) =>
      Effect.gen(function*() {
        const member = yield* caller(operation)
        const grant = yield* Effect.mapError(provide(useCase(member)), toProblem)
        return respond(endpoint, yield* json(grant))
      })
    return handlers
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.create")
          const grant = yield* Effect.mapError(provide(Grants.create(member, payload, links)), toProblem)
          const body = yield* json(grant)
          if (grant.principal_type !== "embed") return respond(endpoint, body)
          const token = yield* provide(Grants.firstEmbedToken(grant))
          return respond(endpoint, { ...body, embed: embedJson(token, "Shared report") })
        }))
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.list")
          const filter = {
            subjectType: query.subject_type,
            subjectId: query.subject_id,
            principalType: query.principal_type,
            principalId: query.principal_id,
            workspaceId: query.workspace_id,
            state: query.state
          }
          const page = yield* Effect.mapError(provide(Grants.list(member, filter, yield* listRequest(query))), toProblem)
          return respond(endpoint, yield* pageJson(page))
        }))
      .handle("get", ({ endpoint, params }) => onGrant(endpoint, "sharing.get", (member) => Grants.get(member, params.grant_id)))
      .handle("update", ({ endpoint, params, payload }) => onGrant(endpoint, "sharing.update", (member) => Grants.update(member, params.grant_id, payload)))
      .handle("revoke", ({ endpoint, params }) => onGrant(endpoint, "sharing.revoke", (member) => Grants.revoke(member, params.grant_id)))
      .handle("pause", ({ endpoint, params }) => onGrant(endpoint, "sharing.pause", (member) => Grants.setPaused(member, params.grant_id, true)))
      .handle("resume", ({ endpoint, params }) => onGrant(endpoint, "sharing.resume", (member) => Grants.setPaused(member, params.grant_id, false)))
      .handle("embedToken", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.embedToken")
          const token = yield* Effect.mapError(provide(Grants.embedToken(member, params.grant_id, payload)), toProblem)
          return respond(endpoint, embedJson(token, "Shared report"))
        }))
      .handle("links", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("sharing.links")
          yield* Effect.mapError(provide(Workspaces.ensureExists(admin.tenantId, params.workspace_id)), toProblem)
          const filter = { principalType: "link", workspaceId: params.workspace_id, state: query.state } as const
          const page = yield* Effect.mapError(provide(Grants.list(admin, filter, yield* listRequest(query))), toProblem)
          return respond(endpoint, yield* pageJson(page))
        }))
  }))

/** A job as the API shows it: never its requester's security context or where its file is kept. */
const jobJson = (job: ExportJob.ExportJob) => ({
  job_id: job.job_id,
  report_id: job.report_id,
  workspace_id: job.workspace_id,
  format: job.request.format,
  request: job.request,
  status: job.status,
  percent_complete: job.percent_complete,
  attempts: job.attempts,
  error: job.failure,
  result: job.result === null
    ? null
    : { filename: job.result.filename, content_type: job.result.contentType, bytes: job.result.bytes, warnings: job.result.warnings },
  created_at: job.created_at,
  started_at: job.started_at,
  finished_at: job.finished_at,
  updated_at: job.updated_at
})

/** What asking for exports reads: the queue, the report and who may download it, the engines and renderers, the limits. */
const exportServices = [
  ExportStore.ExportStore,
  ReportStore.ReportStore,
  GrantStore.GrantStore,
  DirectoryStore.DirectoryStore,
  WorkspaceStore.WorkspaceStore,
  DashboardStore.DashboardStore,
  DatasetStore.DatasetStore,
  Datasets.Engines,
  DocumentRenderers.DocumentRenderers,
  Limiter.Limiter
] as const

/** `POST /v1/reports/{id}/export` and `/v1/jobs...`. */
export const exportsLayer = HttpApiBuilder.group(Api, "exports", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(...exportServices)
    const links = ExportRoutes.resultLinks((yield* ServiceInfo).publicBaseUrl, yield* SignedUrl.UrlSigner, yield* BlobStore.BlobStore)
    return handlers
      .handle("export", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.export")
          const job = yield* Effect.mapError(provide(Exports.request(member, params.id, payload)), toProblem)
          return respond(endpoint, jobJson(job))
        }))
      .handle("job", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.job")
          const job = yield* Effect.mapError(provide(Exports.get(member, params.job_id)), toProblem)
          const response = respond(endpoint, jobJson(job))
          // Polls come back when there may be news: soon for a running job, a little later for a queued one.
          return ExportJob.isFinal(job.status) ? response : HttpServerResponse.setHeader(response, "retry-after", job.status === "running" ? "1" : "2")
        }))
      .handle("result", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.result")
          const { expires_at, job, url } = yield* Effect.mapError(provide(Exports.resultUrl(member, params.job_id, links)), toProblem)
          return respond(endpoint, { url, expires_at, filename: job.result!.filename, content_type: job.result!.contentType, bytes: job.result!.bytes })
        }))
      .handle("cancel", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.cancel")
          return respond(endpoint, jobJson(yield* Effect.mapError(provide(Exports.cancel(member, params.job_id)), toProblem)))
        }))
  }))

/** A schedule as the API shows it: its export's fields beside its timing. */
const scheduleJson = ({ request, tenant_id: _, ...schedule }: ExportSchedule.ExportSchedule) => ({ ...schedule, ...request })

/** `/v1/export-schedules...`: tenant admins, and members with download on the report for their own. */
export const exportSchedulesLayer = HttpApiBuilder.group(Api, "exportSchedules", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(...exportServices, ExportScheduleStore.ExportScheduleStore, Transactor.Transactor, Cursor.CursorCodec)
    const run = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(provide(effect), toProblem)
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("exportSchedules.list")
          const page = yield* run(ExportSchedules.list(admin, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(scheduleJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.create")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.create(member, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.get")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.get(member, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.update")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.update(member, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.delete")
          yield* run(ExportSchedules.remove(member, params.id))
        }))
      .handle("sendNow", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.sendNow")
          return respond(endpoint, yield* run(ExportSchedules.sendNow(member, params.id)))
        }))
  }))
