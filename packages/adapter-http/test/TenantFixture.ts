/**
 * One tenant with one of everything, arranged over HTTP on a real server
 * (DuckDB in memory for the rows, an in-memory blob store and mailer, the
 * export worker run in the test): a workspace, a dataset with rows, a
 * report with a visual, a dashboard with a tile, an alert, a webhook with a
 * delivery, a member (provisioned over SCIM) with a personal token, a team and an executive role
 * holding them, an invitation, a SCIM token, grants (a link, an embed, the
 * member's), an export job run to its file, an export job through the link,
 * an export schedule, a comment on the report's visual. The isolation
 * matrix and the bad-input suite share it, with `addresses`: how every
 * operation of the OpenAPI document is called validly with a tenant's ids.
 */
import { RateLimit } from "@analytics/core"
import { assert } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { OpenApi } from "effect/http-api"
import { Api } from "@analytics/api"
import * as App from "../src/App.ts"
import * as DatasetUploads from "../src/routes/DatasetUploads.ts"
import * as ExportRoutes from "../src/routes/ExportRoutes.ts"
import * as ScimRoutes from "../src/routes/ScimRoutes.ts"
import * as SharedRoutes from "../src/routes/SharedRoutes.ts"
import type { TestServer } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

/** Limits no test reaches: these suites send thousands of requests and must see the answers, not 429s. */
const unlimited: RateLimit.Limits = { burst: RateLimit.bucket(1e9), sustained: RateLimit.window(1e9) }

/** The kinds of thing a path, query or body names by id. */
export type Kind =
  | "tenant"
  | "workspace"
  | "dataset"
  | "report"
  | "dashboard"
  | "alert"
  | "webhook"
  | "delivery"
  | "user"
  | "userToken"
  | "team"
  | "role"
  | "invitation"
  | "scimToken"
  | "linkGrant"
  | "embedGrant"
  | "job"
  | "shareJob"
  | "schedule"
  | "comment"

/** Names that live inside a report or dashboard (a visual's, a tile's id): not ids of a tenant. */
export type Scoped = "visual" | "tile"

/** A tenant arranged by `arrange`. */
export interface FixtureTenant {
  readonly tenantId: string
  /** The tenant admin's token. */
  readonly admin: string
  /** A member (no admin role) with a grant of view and download on the workspace. */
  readonly member: string
  readonly memberEmail: string
  readonly ids: Readonly<Record<Kind, string>>
  readonly visualId: string
  readonly tileId: string
  /** The link's slug (its `link_url`'s last segment). */
  readonly slug: string
  readonly embedToken: string
  /** A link to the workspace and an embed token of the workspace: the reports and dashboards within a share open through them. */
  readonly workspaceSlug: string
  readonly workspaceEmbedToken: string
  readonly scimToken: string
  /** The export job's signed result URL, as a path on the test server. */
  readonly fileUrl: string
}

/** A server with an engine, a blob store, a mailer and the export worker, for these suites. */
export interface FixtureServer {
  readonly server: TestServer
  /** Runs every due export job once. */
  readonly worker: Effect.Effect<number>
}

/** Starts the server on `stores` with unlimited rate limits (tenants, anonymous, operator); `127.0.0.1` is a trusted proxy, so `X-Forwarded-For` names the client. */
export const serve = <E>(stores: Layer.Layer<App.Stores, E>): Effect.Effect<FixtureServer, unknown, Scope.Scope> =>
  Effect.map(
    ExportFixture.serve({
      stores,
      server: { rateLimits: () => unlimited, edgeRateLimits: { anonymous: unlimited, operator: unlimited }, trustedProxies: ["127.0.0.1/32"] }
    }),
    ({ server, worker }) => ({ server, worker: Effect.orDie(worker) })
  )

/** Provisions a tenant and arranges one of everything in it over HTTP; `label` keeps its names apart from another tenant's. */
export const arrange = (fixture: FixtureServer, label: string): Effect.Effect<FixtureTenant> =>
  Effect.gen(function*() {
    const { server, worker } = fixture
    const { tenantId, token: admin } = yield* server.tenant()
    const ok = (method: string, path: string, body?: unknown, options: { readonly token?: string; readonly headers?: Record<string, string> } = {}) =>
      Effect.map(server.request(method, path, { token: options.token ?? admin, body, headers: options.headers }), (r) => {
        assert.isBelow(r.status, 300, `${label}: ${method} ${path}: ${r.text}`)
        return r.body
      })
    const workspace = (yield* ok("POST", "/v1/workspaces", { name: `Sales ${label}` })).workspace_id as string
    const dataset = (yield* ok("POST", "/v1/datasets", { workspace_id: workspace, name: "Orders", source: { type: "upload" } })).dataset_id as string
    const loaded = yield* server.request("PUT", `/v1/datasets/${dataset}/data`, { token: admin, body: ExportFixture.orders, headers: { "content-type": "text/csv" } })
    assert.strictEqual(loaded.status, 200, loaded.text)
    const model = (yield* ok("GET", `/v1/datasets/${dataset}`)).model
    yield* ok("PATCH", `/v1/datasets/${dataset}`, { model: { ...model, row_level_security: [{ roles: ["admin", "member", "link", "embed"], all_rows: true }] } })
    const visualId = "by_region"
    const report = (yield* ok("POST", "/v1/reports", {
      workspace_id: workspace,
      name: "Sales overview",
      pages: [{ name: "Overview", visuals: [ExportFixture.byRegion(dataset)] }]
    })).report_id as string
    const tileId = "regions"
    const dashboard = (yield* ok("POST", "/v1/dashboards", {
      workspace_id: workspace,
      name: "Executive",
      tiles: [{ id: tileId, report_id: report, visual_id: visualId, x: 0, y: 0, width: 12, height: 6 }]
    })).dashboard_id as string
    const alert = (yield* ok("POST", "/v1/alerts", { dataset_id: dataset, name: "Huge", measure: "total_amount", condition: "gt", threshold: 1e12 })).alert_id as string
    const webhook = (yield* ok("POST", "/v1/webhooks", { url: `https://hooks.example.com/${label}`, events: ["export.succeeded"] })).webhook_id as string
    const delivery = (yield* ok("POST", `/v1/webhooks/${webhook}/test`, { type: "export.succeeded" })).delivery_id as string
    const memberEmail = `member-${label}@example.com`
    // The member is the identity provider's (provisioned over SCIM): the only users SCIM sees (decision 0012).
    const scim = yield* ok("POST", "/v1/scim-tokens")
    const provisioned = yield* server.request("POST", "/scim/v2/Users", {
      token: scim.token,
      body: { userName: memberEmail, displayName: `Member ${label}` },
      headers: { "content-type": "application/scim+json" }
    })
    assert.strictEqual(provisioned.status, 201, `${label}: ${provisioned.text}`)
    const user = provisioned.body.id as string
    const issued = yield* ok("POST", `/v1/users/${user}/tokens`)
    const team = (yield* ok("POST", "/v1/teams", { name: `Finance ${label}` })).team_id as string
    yield* ok("POST", `/v1/teams/${team}/members`, { user_id: user })
    const role = (yield* ok("POST", "/v1/executive-roles", { name: `CFO ${label}` })).role_id as string
    yield* ok("POST", `/v1/executive-roles/${role}/members`, { user_id: user })
    const invitation = (yield* ok("POST", "/v1/invitations", { email: `guest-${label}@example.com` })).invitation_id as string
    yield* ok("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspace, principal_type: "user", principal_id: user, actions: ["view", "download"] })
    const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: report, principal_type: "link", actions: ["view", "download"] })
    const embed = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: report, principal_type: "embed", actions: ["view", "download"] })
    const slug = (link.link_url as string).split("/").pop()!
    const workspaceLink = yield* ok("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspace, principal_type: "link", actions: ["view"] })
    const workspaceEmbed = yield* ok("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspace, principal_type: "embed", actions: ["view"] })
    const job = (yield* ok("POST", `/v1/reports/${report}/export`, { format: "csv", visual_id: visualId })).job_id as string
    const shareJob = (yield* ok("POST", `/s/${slug}/export`, { format: "csv", visual_id: visualId }, { headers: { accept: "application/json" } })).job_id as string
    assert.isAtLeast(yield* worker, 2)
    const result = yield* ok("GET", `/v1/jobs/${job}/result`)
    const schedule = (yield* ok("POST", "/v1/export-schedules", {
      report_id: report,
      name: "Weekly",
      cron: "0 8 * * 1",
      timezone: "UTC",
      format: "csv",
      visual_id: visualId,
      recipients: [memberEmail]
    })).schedule_id as string
    const comment = (yield* ok("POST", `/v1/reports/${report}/comments`, { text: "Why is APAC so low?", visual_id: visualId })).comment_id as string
    return {
      tenantId,
      admin,
      member: issued.token as string,
      memberEmail,
      ids: {
        tenant: tenantId,
        workspace,
        dataset,
        report,
        dashboard,
        alert,
        webhook,
        delivery,
        user,
        userToken: issued.token_id as string,
        team,
        role,
        invitation,
        scimToken: scim.token_id as string,
        linkGrant: link.grant_id as string,
        embedGrant: embed.grant_id as string,
        job,
        shareJob,
        schedule,
        comment
      },
      visualId,
      tileId,
      slug,
      embedToken: embed.embed.token as string,
      workspaceSlug: (workspaceLink.link_url as string).split("/").pop()!,
      workspaceEmbedToken: workspaceEmbed.embed.token as string,
      scimToken: scim.token as string,
      fileUrl: (result.url as string).replace("http://127.0.0.1", "")
    }
  })

// ---------------------------------------------------------------------------
// every operation, addressed

/** An operation of the OpenAPI document, as the suites see it. */
export interface Operation {
  readonly id: string
  readonly method: string
  /** The path template, `{name}` for parameters. */
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<{ readonly name: string; readonly required: boolean; readonly schema: any }>
  readonly headerParams: ReadonlyArray<string>
  /** The JSON request body's schema ($refs resolved on use), when it takes one. */
  readonly bodySchema: any
  readonly bodyRequired: boolean
  readonly secured: boolean
}

/** The document the service serves, and its operations. */
export const document: any = OpenApi.fromApi(Api)

export const operations: ReadonlyArray<Operation> = Object.entries<any>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, op]): Operation => {
    const parameters: Array<any> = op.parameters ?? []
    return {
      id: op.operationId,
      method: method.toUpperCase(),
      path,
      pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
      queryParams: parameters.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: p.required === true, schema: p.schema })),
      headerParams: parameters.filter((p) => p.in === "header").map((p) => p.name),
      bodySchema: op.requestBody?.content?.["application/json"]?.schema,
      bodyRequired: op.requestBody?.required === true,
      secured: (op.security ?? []).length > 0
    }
  })
)

/** Resolves a `$ref` of the document. */
export const resolve = (schema: any): any => {
  let s = schema
  while (s !== undefined && typeof s.$ref === "string") {
    s = s.$ref.replace(/^#\//, "").split("/").reduce((node: any, key: string) => node?.[key], document)
  }
  return s
}

/**
 * How an operation is called validly as a tenant: what each path parameter
 * names, the query it needs, a valid body, and what its id-bearing query
 * parameters and body fields name. Body fields are dotted paths, `[]` for
 * every item of an array (`tiles[].report_id`).
 */
export interface Address {
  readonly params?: Readonly<Record<string, Kind | Scoped>>
  readonly query?: (t: FixtureTenant) => Record<string, string>
  /** What id-bearing query parameters name (a scoped name, as a visual's id, is no tenant's id: isolation leaves it out). */
  readonly queryIds?: Readonly<Record<string, Kind | Scoped>>
  readonly body?: (t: FixtureTenant) => unknown
  readonly bodyIds?: Readonly<Record<string, Kind | Scoped | "email" | "free">>
  /** Whether a valid call changes or removes what it names (the isolation matrix sends these last). */
  readonly destructive?: boolean
  /** Who may call it: the operator only (its answers to a tenant's admin are 403). */
  readonly operatorOnly?: boolean
}

const visual = (t: FixtureTenant) => ({
  id: t.visualId,
  type: "bar",
  dataset_id: t.ids.dataset,
  query: { measures: ["total_amount"], dimensions: ["region"] },
  encoding: { x: "region", y: ["total_amount"] }
})
const tile = (t: FixtureTenant) => ({ id: t.tileId, report_id: t.ids.report, visual_id: t.visualId, x: 0, y: 0, width: 12, height: 6 })
const schedule = (t: FixtureTenant) => ({
  report_id: t.ids.report,
  name: "Daily",
  cron: "0 9 * * *",
  timezone: "UTC",
  format: "csv",
  visual_id: t.visualId,
  recipients: [t.memberEmail]
})
const group = { body: () => ({ name: "Group" }) }

/**
 * Every operation of the document by its operationId. A new operation
 * without an entry fails both suites, naming it: add its entry here.
 */
export const addresses: Readonly<Record<string, Address>> = {
  "health": {},
  "publicConfig": {},
  "tenants.create": { body: () => ({ name: "Another", plan: "growth" }), operatorOnly: true },
  "tenants.changePlan": { params: { tenant_id: "tenant" }, body: () => ({ plan: "growth" }), operatorOnly: true },
  "workspaces.list": {},
  "workspaces.create": { body: () => ({ name: "Marketing" }) },
  "workspaces.get": { params: { workspace_id: "workspace" } },
  "webhooks.eventTypes": {},
  "webhooks.create": {
    body: (t) => ({ url: "https://hooks.example.com/new", events: ["export.succeeded"], workspace_id: t.ids.workspace }),
    bodyIds: { workspace_id: "workspace" }
  },
  "webhooks.list": {},
  "webhooks.get": { params: { webhook_id: "webhook" } },
  "webhooks.update": { params: { webhook_id: "webhook" }, body: () => ({ description: "Changed" }), destructive: true },
  "webhooks.remove": { params: { webhook_id: "webhook" }, destructive: true },
  "webhooks.rotateSecret": { params: { webhook_id: "webhook" }, body: () => ({}), destructive: true },
  "webhooks.secret": { params: { webhook_id: "webhook" } },
  "webhooks.successRate": { params: { webhook_id: "webhook" } },
  "webhooks.test": { params: { webhook_id: "webhook" }, body: () => ({ type: "export.succeeded" }) },
  "webhooks.deliveries": { params: { webhook_id: "webhook" } },
  "webhooks.delivery": { params: { webhook_id: "webhook", delivery_id: "delivery" } },
  "webhooks.redeliver": { params: { webhook_id: "webhook", delivery_id: "delivery" } },
  "webhooks.recover": { params: { webhook_id: "webhook" }, body: () => ({ since: "2020-01-01T00:00:00.000Z" }) },
  "users.list": {},
  "users.create": { body: () => ({ email: "new@example.com", name: "New" }), bodyIds: { external_id: "free", email: "free" } },
  "users.get": { params: { user_id: "user" } },
  "users.update": { params: { user_id: "user" }, body: () => ({ name: "Renamed" }), destructive: true },
  "users.issueToken": { params: { user_id: "user" } },
  "users.listTokens": { params: { user_id: "user" } },
  "users.revokeToken": { params: { user_id: "user", token_id: "userToken" }, destructive: true },
  "teams.list": {},
  "teams.create": group,
  "teams.get": { params: { id: "team" } },
  "teams.rename": { params: { id: "team" }, ...group, destructive: true },
  "teams.delete": { params: { id: "team" }, destructive: true },
  "teams.listMembers": { params: { id: "team" } },
  "teams.addMember": { params: { id: "team" }, body: (t) => ({ user_id: t.ids.user }), bodyIds: { user_id: "user" } },
  "teams.removeMember": { params: { id: "team", user_id: "user" }, destructive: true },
  "executiveRoles.list": {},
  "executiveRoles.create": group,
  "executiveRoles.get": { params: { id: "role" } },
  "executiveRoles.rename": { params: { id: "role" }, ...group, destructive: true },
  "executiveRoles.delete": { params: { id: "role" }, destructive: true },
  "executiveRoles.listMembers": { params: { id: "role" } },
  "executiveRoles.addMember": { params: { id: "role" }, body: (t) => ({ user_id: t.ids.user }), bodyIds: { user_id: "user" } },
  "executiveRoles.removeMember": { params: { id: "role", user_id: "user" }, destructive: true },
  "branding.get": {},
  "branding.update": { body: () => ({ name: "Acme Corp", accent_color: "#0f766e" }), destructive: true },
  "scimTokens.create": {},
  "scimTokens.list": {},
  "scimTokens.revoke": { params: { token_id: "scimToken" }, destructive: true },
  "invitations.list": {},
  "invitations.create": { body: () => ({ email: "invitee@example.com" }), bodyIds: { email: "free" } },
  "invitations.resend": { params: { id: "invitation" }, destructive: true },
  "invitations.revoke": { params: { id: "invitation" }, destructive: true },
  "invitationAcceptance.accept": { body: () => ({ token: "x".repeat(43), name: "Guest" }) },
  "session.requestSignInLink": {
    // A fresh address each time the body is sent: one address gets 5 links in 15 minutes, and the suites send it more often.
    body: () => ({
      get email() {
        return `someone-${crypto.randomUUID()}@example.com`
      }
    }),
    // Any address gets the same answer: it names nothing of a tenant's.
    bodyIds: { email: "free" }
  },
  "session.signInWithLink": { body: () => ({ link_token: "x".repeat(43) }) },
  "session.signInWithToken": { body: () => ({ api_token: "ast_not-a-token" }) },
  "session.signInWithInvitation": { body: () => ({ token: "x".repeat(43), name: "Guest" }) },
  "session.current": {},
  "session.signOut": {},
  "datasets.list": { query: (t) => ({ workspace_id: t.ids.workspace }), queryIds: { workspace_id: "workspace" } },
  "datasets.create": {
    body: (t) => ({ workspace_id: t.ids.workspace, name: "More", source: { type: "upload" } }),
    bodyIds: { workspace_id: "workspace" }
  },
  "datasets.get": { params: { id: "dataset" } },
  "datasets.update": { params: { id: "dataset" }, body: () => ({ description: "Changed" }), destructive: true },
  "datasets.delete": { params: { id: "dataset" }, destructive: true },
  "datasets.refresh": { params: { id: "dataset" } },
  "datasets.refreshes": { params: { id: "dataset" } },
  "datasets.query": { params: { id: "dataset" }, body: () => ({ measures: ["total_amount"] }) },
  "datasets.sql": { params: { id: "dataset" }, body: () => ({ measures: ["total_amount"] }) },
  "reports.list": { query: (t) => ({ workspace_id: t.ids.workspace }), queryIds: { workspace_id: "workspace" } },
  "reports.create": {
    body: (t) => ({ workspace_id: t.ids.workspace, name: "More", pages: [{ name: "One", visuals: [visual(t)] }] }),
    bodyIds: { workspace_id: "workspace", "pages[].visuals[].dataset_id": "dataset", "pages[].visuals[].id": "visual" }
  },
  "reports.get": { params: { id: "report" } },
  "reports.update": {
    params: { id: "report" },
    body: (t) => ({ pages: [{ name: "One", visuals: [visual(t)] }] }),
    bodyIds: { "pages[].visuals[].dataset_id": "dataset", "pages[].visuals[].id": "visual" },
    destructive: true
  },
  "reports.delete": { params: { id: "report" }, destructive: true },
  "reports.visualData": { params: { id: "report", visual_id: "visual" }, body: () => ({}) },
  "reports.view": { params: { id: "report" } },
  "alerts.list": { query: (t) => ({ workspace_id: t.ids.workspace }), queryIds: { workspace_id: "workspace" } },
  "alerts.create": {
    body: (t) => ({ dataset_id: t.ids.dataset, name: "Low", measure: "total_amount", condition: "lt", threshold: 1 }),
    bodyIds: { dataset_id: "dataset" }
  },
  "alerts.get": { params: { id: "alert" } },
  "alerts.update": { params: { id: "alert" }, body: () => ({ name: "Renamed" }), destructive: true },
  "alerts.delete": { params: { id: "alert" }, destructive: true },
  "alerts.check": { params: { id: "alert" }, destructive: true },
  "alerts.history": { params: { id: "alert" } },
  "dashboards.list": { query: (t) => ({ workspace_id: t.ids.workspace }), queryIds: { workspace_id: "workspace" } },
  "dashboards.create": {
    body: (t) => ({ workspace_id: t.ids.workspace, name: "More", tiles: [tile(t)] }),
    bodyIds: { workspace_id: "workspace", "tiles[].report_id": "report", "tiles[].id": "tile", "tiles[].visual_id": "visual" }
  },
  "dashboards.get": { params: { id: "dashboard" } },
  "dashboards.update": {
    params: { id: "dashboard" },
    body: (t) => ({ tiles: [tile(t)] }),
    bodyIds: { "tiles[].report_id": "report", "tiles[].id": "tile", "tiles[].visual_id": "visual" },
    destructive: true
  },
  "dashboards.delete": { params: { id: "dashboard" }, destructive: true },
  "dashboards.tileData": { params: { id: "dashboard", tile_id: "tile" } },
  "dashboards.view": { params: { id: "dashboard" } },
  "auditLog.list": {
    query: () => ({}),
    // Free-text filters: another tenant's id matches nothing, as any text would.
    queryIds: { target_id: "report", actor_id: "user" }
  },
  "auditLog.csv": {
    query: () => ({}),
    queryIds: { target_id: "report", actor_id: "user" }
  },
  "sharing.create": {
    body: (t) => ({ subject_type: "report", subject_id: t.ids.report, principal_type: "team", principal_id: t.ids.team, actions: ["view"] }),
    // An address is no id: granting to another tenant's member's address invites that address here (checked by hand).
    bodyIds: { subject_id: "report", principal_id: "team", email: "free" }
  },
  "sharing.list": { queryIds: { subject_id: "report", principal_id: "team", workspace_id: "workspace" } },
  "sharing.get": { params: { grant_id: "linkGrant" } },
  "sharing.update": { params: { grant_id: "linkGrant" }, body: () => ({ watermark: true }), destructive: true },
  "sharing.revoke": { params: { grant_id: "linkGrant" }, destructive: true },
  "sharing.pause": { params: { grant_id: "linkGrant" }, destructive: true },
  "sharing.resume": { params: { grant_id: "linkGrant" }, destructive: true },
  "sharing.embedToken": { params: { grant_id: "embedGrant" }, body: () => ({}) },
  "sharing.embedPreview": {
    body: (t) => ({ subject_type: "report", subject_id: t.ids.report, attributes: { region: "EU" } }),
    bodyIds: { subject_id: "report" }
  },
  "sharing.links": { params: { workspace_id: "workspace" } },
  "sharing.people": { query: () => ({ q: "member" }) },
  "exports.export": { params: { id: "report" }, body: (t) => ({ format: "csv", visual_id: t.visualId }), bodyIds: { visual_id: "visual" } },
  "exports.job": { params: { job_id: "job" } },
  "exports.result": { params: { job_id: "job" } },
  "exports.cancel": { params: { job_id: "job" }, destructive: true },
  "exportSchedules.list": { query: (t) => ({ workspace_id: t.ids.workspace }), queryIds: { workspace_id: "workspace" } },
  "exportSchedules.create": { body: schedule, bodyIds: { report_id: "report", visual_id: "visual", "recipients[]": "email" } },
  "exportSchedules.get": { params: { id: "schedule" } },
  "exportSchedules.update": {
    params: { id: "schedule" },
    body: (t) => ({ recipients: [t.memberEmail] }),
    bodyIds: { "recipients[]": "email", visual_id: "visual" },
    destructive: true
  },
  "exportSchedules.delete": { params: { id: "schedule" }, destructive: true },
  "exportSchedules.sendNow": { params: { id: "schedule" } },
  "exportSchedules.runs": { params: { id: "schedule" } },
  "comments.list": { params: { id: "report" }, queryIds: { visual_id: "visual" } },
  "comments.create": {
    params: { id: "report" },
    body: (t) => ({ text: "Agreed", visual_id: t.visualId, parent_id: t.ids.comment }),
    bodyIds: { visual_id: "visual", parent_id: "comment" }
  },
  "comments.update": { params: { id: "comment" }, body: () => ({ text: "Why is APAC so low this quarter?" }), destructive: true },
  "comments.delete": { params: { id: "comment" }, destructive: true },
  "ai.ask": {
    body: (t) => ({ question: "What is the total amount by region?", dataset_id: t.ids.dataset }),
    bodyIds: { dataset_id: "dataset", report_id: "report", visual_id: "visual" }
  }
}

/** The operations the table lacks or cannot address: each a sentence naming the operation and what is missing. */
export const unaddressed = (): Array<string> => {
  const problems: Array<string> = []
  for (const op of operations) {
    const address = addresses[op.id]
    if (address === undefined) {
      problems.push(`${op.id} (${op.method} ${op.path}) has no entry in TenantFixture.addresses`)
      continue
    }
    for (const param of op.pathParams) {
      if (address.params?.[param] === undefined) problems.push(`${op.id}: path parameter ${param} names no kind`)
    }
    for (const q of op.queryParams) {
      if (q.name.endsWith("_id") && address.queryIds?.[q.name] === undefined) problems.push(`${op.id}: query parameter ${q.name} names no kind`)
      if (q.required && address.query === undefined) problems.push(`${op.id}: required query parameter ${q.name} has no value`)
    }
    if (op.bodySchema !== undefined && address.body === undefined) problems.push(`${op.id}: no valid body`)
    if (op.bodySchema !== undefined) {
      for (const field of idFields(op.bodySchema)) {
        if (address.bodyIds?.[field] === undefined) problems.push(`${op.id}: body field ${field} names no kind`)
      }
    }
  }
  return problems
}

/** The body fields that name something by id (`…_id`, `id`) or address (`email`, `recipients`), as dotted paths. */
export const idFields = (schema: any, prefix = "", depth = 0): Array<string> => {
  const s = resolve(schema)
  if (s === undefined || depth > 8) return []
  const out: Array<string> = []
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) out.push(...idFields(alt, prefix, depth + 1))
  if (s.items !== undefined) out.push(...idFields(s.items, `${prefix}[]`, depth + 1))
  for (const [name, sub] of Object.entries<any>(s.properties ?? {})) {
    const path = prefix === "" ? name : `${prefix}.${name}`
    if (/(^|_)id$/.test(name) || name === "email" || name === "recipients") {
      const r = resolve(sub)
      out.push(r?.type === "array" || r?.items !== undefined ? `${path}[]` : path)
    } else {
      out.push(...idFields(sub, path, depth + 1))
    }
  }
  return [...new Set(out)]
}

/** A template filled with values: `/v1/reports/{id}` and `{ id: "…" }`. */
export const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? `<${name}>`))

/** The value a tenant has for a kind (or a scoped name). */
export const valueOf = (t: FixtureTenant, kind: Kind | Scoped): string =>
  kind === "visual" ? t.visualId : kind === "tile" ? t.tileId : t.ids[kind]

/** The path parameter values of an operation for a tenant. */
export const paramsOf = (t: FixtureTenant, op: Operation): Record<string, string> =>
  Object.fromEntries(op.pathParams.map((p) => [p, valueOf(t, addresses[op.id]!.params![p]!)]))

/** The query string (with `?`) of a valid call, or "". */
export const queryOf = (t: FixtureTenant, op: Operation, extra: Record<string, string> = {}) => {
  const entries = { ...(addresses[op.id]?.query?.(t) ?? {}), ...extra }
  const text = new URLSearchParams(entries).toString()
  return text === "" ? "" : `?${text}`
}

/** Sets a dotted body path (`tiles[].report_id`: every item's) in a copy of `body`. */
export const setAt = (body: unknown, path: string, value: unknown): unknown => {
  const [head, ...rest] = path.split(".")
  const tail = rest.join(".")
  const array = head!.endsWith("[]")
  const key = array ? head!.slice(0, -2) : head!
  const record = { ...(body as Record<string, unknown>) }
  if (key === "" && array) {
    return (body as Array<unknown>).map((item) => (tail === "" ? value : setAt(item, tail, value)))
  }
  if (array) {
    const items = (record[key] as Array<unknown> | undefined) ?? []
    record[key] = items.map((item) => (tail === "" ? value : setAt(item, tail, value)))
  } else {
    record[key] = tail === "" ? value : setAt(record[key], tail, value)
  }
  return record
}

/** Whether a dotted path is present in `body` (an array field counts when it has an item). */
export const hasPath = (body: unknown, path: string): boolean => {
  const [head, ...rest] = path.split(".")
  const array = head!.endsWith("[]")
  const key = array ? head!.slice(0, -2) : head!
  const value = (body as Record<string, unknown> | undefined)?.[key]
  if (value === undefined) return false
  if (!array) return rest.length === 0 || hasPath(value, rest.join("."))
  const items = value as Array<unknown>
  return items.length > 0 && (rest.length === 0 || hasPath(items[0], rest.join(".")))
}

/**
 * Everything of the tenant that its admin can read, as read now: every
 * list (each page) and every arranged resource by id. Two snapshots are
 * equal when nothing changed.
 */
export const snapshot = (server: TestServer, t: FixtureTenant): Effect.Effect<Record<string, unknown>> =>
  Effect.gen(function*() {
    const read = (path: string) =>
      Effect.map(server.request("GET", path, { token: t.admin }), (r) => ({ status: r.status, body: r.body }))
    const all = (path: string) =>
      Effect.gen(function*() {
        const items: Array<unknown> = []
        let cursor: string | null = null
        for (;;) {
          const sep = path.includes("?") ? "&" : "?"
          const page: { readonly status: number; readonly body: any } = yield* read(`${path}${sep}limit=500${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
          if (page.status !== 200) return page
          items.push(...(page.body.data as Array<unknown>))
          cursor = page.body.page.next_cursor
          if (cursor === null) return items
        }
      })
    const w = `workspace_id=${t.ids.workspace}`
    const lists: Record<string, string> = {
      workspaces: "/v1/workspaces",
      datasets: `/v1/datasets?${w}`,
      reports: `/v1/reports?${w}`,
      dashboards: `/v1/dashboards?${w}`,
      alerts: `/v1/alerts?${w}`,
      webhooks: "/v1/webhooks",
      deliveries: `/v1/webhooks/${t.ids.webhook}/deliveries`,
      users: "/v1/users",
      teams: "/v1/teams",
      teamMembers: `/v1/teams/${t.ids.team}/members`,
      roles: "/v1/executive-roles",
      roleMembers: `/v1/executive-roles/${t.ids.role}/members`,
      invitations: "/v1/invitations",
      grants: "/v1/sharing/grants",
      links: `/v1/workspaces/${t.ids.workspace}/links`,
      schedules: `/v1/export-schedules?${w}`,
      comments: `/v1/reports/${t.ids.report}/comments`,
      auditLog: "/v1/audit-log"
    }
    const out: Record<string, unknown> = {}
    for (const [name, path] of Object.entries(lists)) out[name] = yield* all(path)
    out.userTokens = yield* read(`/v1/users/${t.ids.user}/tokens`)
    out.scimTokens = yield* read("/v1/scim-tokens")
    out.job = yield* read(`/v1/jobs/${t.ids.job}`)
    out.shareJob = yield* read(`/v1/jobs/${t.ids.shareJob}`)
    out.tenantDatasetRows = yield* Effect.map(
      server.request("POST", `/v1/datasets/${t.ids.dataset}/query`, { token: t.admin, body: { measures: ["total_amount"], dimensions: ["region"] } }),
      (r) => ({ status: r.status, body: r.body })
    )
    return out
  })

// ---------------------------------------------------------------------------
// the routes beside the contract

/** How a route beside the contract (uploads, result files, shares, SCIM) is called validly as a tenant. */
export interface ExtraAddress {
  readonly params?: Readonly<Record<string, Kind | Scoped | "slug" | "workspaceSlug">>
  readonly query?: (t: FixtureTenant) => Record<string, string>
  readonly body?: (t: FixtureTenant) => unknown
  /** The body's media type (JSON by default). */
  readonly contentType?: string
  /** Whose credential it carries: the admin's token, the SCIM token, or none (shares and signed URLs are their own credential). */
  readonly credential: "admin" | "scim" | "none"
}

const scimUser = (t: FixtureTenant) => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: t.memberEmail, name: { givenName: "M", familyName: "B" }, active: true })
const scimGroup = (t: FixtureTenant) => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Synced", members: [{ value: t.ids.user }] })
const scimPatch = (t: FixtureTenant) => ({
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: [{ op: "add", path: "members", value: [{ value: t.ids.user }] }]
})
const fileQuery = (t: FixtureTenant) => Object.fromEntries(new URL(t.fileUrl, "http://x").searchParams)
const embedQuery = (t: FixtureTenant) => ({ token: t.embedToken })
const workspaceEmbedQuery = (t: FixtureTenant) => ({ token: t.workspaceEmbedToken })
const shareExport = (t: FixtureTenant) => ({ format: "csv", visual_id: t.visualId })

/** Every route beside the contract, `METHOD path` as its module lists it. A new one without an entry fails both suites. */
export const extraAddresses: Readonly<Record<string, ExtraAddress>> = {
  "GET /v1/openapi.json": { credential: "none" },
  "GET /v1/docs": { credential: "none" },
  "PUT /v1/datasets/:id/data": { params: { id: "dataset" }, body: () => ExportFixture.orders, contentType: "text/csv", credential: "admin" },
  "GET /v1/jobs/:job_id/file": { params: { job_id: "job" }, query: fileQuery, credential: "none" },
  "GET /s/:slug": { params: { slug: "slug" }, credential: "none" },
  "POST /s/:slug": { params: { slug: "slug" }, body: () => ({ password: "not the password" }), credential: "none" },
  "GET /s/:slug/download/:visual_id": { params: { slug: "slug", visual_id: "visual" }, credential: "none" },
  "POST /s/:slug/export": { params: { slug: "slug" }, body: shareExport, credential: "none" },
  "GET /s/:slug/jobs/:job_id": { params: { slug: "slug", job_id: "shareJob" }, credential: "none" },
  "GET /embed": { query: embedQuery, credential: "none" },
  "GET /embed/download/:visual_id": { params: { visual_id: "visual" }, query: embedQuery, credential: "none" },
  "POST /embed/export": { query: embedQuery, body: shareExport, credential: "none" },
  "GET /embed/jobs/:job_id": { params: { job_id: "shareJob" }, query: embedQuery, credential: "none" },
  // Within a workspace share (decision 0014).
  "GET /s/:slug/reports/:report_id": { params: { slug: "workspaceSlug", report_id: "report" }, credential: "none" },
  "GET /s/:slug/dashboards/:dashboard_id": { params: { slug: "workspaceSlug", dashboard_id: "dashboard" }, credential: "none" },
  "GET /embed/reports/:report_id": { params: { report_id: "report" }, query: workspaceEmbedQuery, credential: "none" },
  "GET /embed/dashboards/:dashboard_id": { params: { dashboard_id: "dashboard" }, query: workspaceEmbedQuery, credential: "none" },
  // Discovery documents are public (RFC 7644 §4).
  "GET /scim/v2/ServiceProviderConfig": { credential: "none" },
  "GET /scim/v2/ResourceTypes": { credential: "none" },
  "GET /scim/v2/Schemas": { credential: "none" },
  "GET /scim/v2/Users": { query: (t) => ({ filter: `userName eq "${t.memberEmail}"` }), credential: "scim" },
  "POST /scim/v2/Users": { body: scimUser, contentType: "application/scim+json", credential: "scim" },
  "GET /scim/v2/Users/:id": { params: { id: "user" }, credential: "scim" },
  "PUT /scim/v2/Users/:id": { params: { id: "user" }, body: scimUser, contentType: "application/scim+json", credential: "scim" },
  "PATCH /scim/v2/Users/:id": {
    params: { id: "user" },
    body: () => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] }),
    contentType: "application/scim+json",
    credential: "scim"
  },
  "DELETE /scim/v2/Users/:id": { params: { id: "user" }, credential: "scim" },
  "GET /scim/v2/Groups": { credential: "scim" },
  "POST /scim/v2/Groups": { body: scimGroup, contentType: "application/scim+json", credential: "scim" },
  "GET /scim/v2/Groups/:id": { params: { id: "team" }, credential: "scim" },
  "PUT /scim/v2/Groups/:id": { params: { id: "team" }, body: scimGroup, contentType: "application/scim+json", credential: "scim" },
  "PATCH /scim/v2/Groups/:id": { params: { id: "team" }, body: scimPatch, contentType: "application/scim+json", credential: "scim" },
  "DELETE /scim/v2/Groups/:id": { params: { id: "team" }, credential: "scim" }
}

/** The routes beside the contract, as their modules list them. */
export const extraRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", App.docsPaths.openapi],
  ["GET", App.docsPaths.reference],
  ...DatasetUploads.routes,
  ...ExportRoutes.routes,
  ...SharedRoutes.routes,
  ...ScimRoutes.routes
]

/** The routes beside the contract that `extraAddresses` lacks. */
export const unaddressedExtras = (): Array<string> =>
  extraRoutes.map(([m, p]) => `${m} ${p}`).filter((key) => extraAddresses[key] === undefined)
    .map((key) => `${key} has no entry in TenantFixture.extraAddresses`)

/** The value a tenant has for a route parameter. */
export const extraValueOf = (t: FixtureTenant, kind: Kind | Scoped | "slug" | "workspaceSlug"): string =>
  kind === "slug" ? t.slug : kind === "workspaceSlug" ? t.workspaceSlug : valueOf(t, kind)

/** Fills a router path (`/s/:slug`) with values. */
export const fillRoute = (path: string, values: Record<string, string>) =>
  path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? `<${name}>`))
