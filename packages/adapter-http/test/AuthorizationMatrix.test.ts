/**
 * The authorization matrix, walked over a real socket: every operation of
 * the OpenAPI document (and the bearer routes beside it: uploads, SCIM)
 * called validly by every role, each answer checked against what
 * `Policy.rules` says the role may do. Expectations come from the policy's
 * table, never written here per operation; an operation the table lacks, or
 * a rule key that names no operation, fails the suite by name.
 *
 * Roles: no credential; the operator; the tenant's SCIM token; the tenant
 * admin; a member holding view and download on the workspace (the
 * fixture's); the delegates: a member holding view and share, one holding
 * view and edit, and one holding view, download and share in an executive
 * role whose rows row-level security limits; a member holding nothing; a
 * deprovisioned member. What delegates hand out (rows, actions, links) is
 * walked in Delegation.test.ts; here, what each may call. The SCIM token
 * is also walked against a tenant admin (every SCIM user route: 404, as
 * for a user it never made). Changes run
 * each on a tenant of their own, so one allowed change cannot make another
 * operation's answer differ.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { Policy } from "@analytics/core"
import { operatorToken } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  addresses,
  arrange,
  extraAddresses,
  extraValueOf,
  type FixtureServer,
  type FixtureTenant,
  fill,
  fillRoute,
  operations,
  paramsOf,
  queryOf,
  serve
} from "./TenantFixture.ts"

/** Who calls. */
type Role = "anonymous" | "operator" | "scim" | "admin" | "member" | "sharer" | "editor" | "limited" | "outsider" | "deprovisioned"

const roles: ReadonlyArray<Role> = ["anonymous", "operator", "scim", "admin", "member", "sharer", "editor", "limited", "outsider", "deprovisioned"]

/** The actions each member role holds on the workspace (and so on its report); the outsider none. */
const held: Partial<Record<Role, ReadonlyArray<string>>> = {
  member: ["view", "download"],
  sharer: ["view", "share"],
  editor: ["view", "edit"],
  limited: ["view", "download", "share"]
}

/**
 * What a role must be answered: allowed, or a refusal's status and problem
 * code. Allowed is a 2xx, or an answer of the operation's own about the
 * fixture's state (409: a delivery still in progress, an upload refreshed
 * without its file), never 401, 403, 404 or 5xx.
 */
type Expected = { readonly allowed: true } | { readonly allowed: false; readonly status: 401 | 403 | 404; readonly code: string }

const allowed: Expected = { allowed: true }
const unauthenticated: Expected = { allowed: false, status: 401, code: "auth/unauthenticated" }
const forbidden: Expected = { allowed: false, status: 403, code: "auth/forbidden" }
const notFound: Expected = { allowed: false, status: 404, code: "resource/not-found" }

/** What the policy says of a role calling an operation of a given rule (the rule `anyone` is checked apart). */
const expectedOf = (rule: Policy.Rule, role: Role): Expected => {
  if (role === "anonymous" || role === "deprovisioned") return unauthenticated
  if (rule.who === "operator") return role === "operator" ? allowed : forbidden
  if (rule.who === "scim") return role === "scim" ? allowed : forbidden
  if (role === "operator" || role === "scim") return forbidden
  if (role === "admin") return allowed
  switch (rule.who) {
    case "member":
      return allowed
    case "admin":
      return forbidden
    case "granted":
      return held[role]?.includes(rule.action) === true ? allowed : forbidden
    case "owner":
      // Everything the fixture made is the admin's: another member's job, schedule or grant is a 404 to them.
      return notFound
    default:
      return forbidden
  }
}

/** The bearer routes beside the contract, by the operation of the policy they are. */
const extraOperations: Readonly<Record<string, Policy.Operation>> = {
  "GET /v1/openapi.json": "publicConfig",
  "GET /v1/docs": "publicConfig",
  "PUT /v1/datasets/:id/data": "datasets.upload",
  "GET /v1/jobs/:job_id/file": "shares.download",
  "GET /s/:slug": "shares.view",
  "POST /s/:slug": "shares.view",
  "GET /s/:slug/download/:visual_id": "shares.download",
  "POST /s/:slug/export": "shares.export",
  "GET /s/:slug/jobs/:job_id": "shares.export",
  "GET /embed": "shares.view",
  "GET /embed/download/:visual_id": "shares.download",
  "POST /embed/export": "shares.export",
  "GET /embed/jobs/:job_id": "shares.export",
  "GET /s/:slug/reports/:report_id": "shares.view",
  "GET /s/:slug/dashboards/:dashboard_id": "shares.view",
  "GET /embed/reports/:report_id": "shares.view",
  "GET /embed/dashboards/:dashboard_id": "shares.view",
  "GET /scim/v2/ServiceProviderConfig": "health",
  "GET /scim/v2/ResourceTypes": "health",
  "GET /scim/v2/Schemas": "health",
  "GET /scim/v2/Users": "scim.directory",
  "POST /scim/v2/Users": "scim.directory",
  "GET /scim/v2/Users/:id": "scim.directory",
  "PUT /scim/v2/Users/:id": "scim.directory",
  "PATCH /scim/v2/Users/:id": "scim.directory",
  "DELETE /scim/v2/Users/:id": "scim.directory",
  "GET /scim/v2/Groups": "scim.directory",
  "POST /scim/v2/Groups": "scim.directory",
  "GET /scim/v2/Groups/:id": "scim.directory",
  "PUT /scim/v2/Groups/:id": "scim.directory",
  "PATCH /scim/v2/Groups/:id": "scim.directory",
  "DELETE /scim/v2/Groups/:id": "scim.directory"
}

/** A tenant of the fixture, with the two extra members' tokens. */
interface Arranged {
  readonly tenant: FixtureTenant
  readonly tokens: Readonly<Record<Role, string | undefined>>
}

/** Arranges a tenant and its outsider (a member holding nothing) and deprovisioned member. */
const arrangeWithRoles = (fixture: FixtureServer, label: string): Effect.Effect<Arranged> =>
  Effect.gen(function*() {
    const tenant = yield* arrange(fixture, label)
    const ok = (method: string, path: string, body?: unknown) =>
      Effect.map(fixture.server.request(method, path, { token: tenant.admin, body }), (r) => {
        assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
        return r.body
      })
    const userWithToken = (name: string) =>
      Effect.gen(function*() {
        const user = yield* ok("POST", "/v1/users", { email: `${name}-${label}@example.com`, name, roles: ["member"] })
        return { userId: user.user_id as string, token: (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string }
      })
    const holding = (name: string, actions: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const user = yield* userWithToken(name)
        yield* ok("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: tenant.ids.workspace, principal_type: "user", principal_id: user.userId, actions })
        return user
      })
    const sharer = yield* holding("sharer", held.sharer!)
    const editor = yield* holding("editor", held.editor!)
    const limited = yield* holding("limited", held.limited!)
    // Row-level security reads executive roles by name: this one names no policy, so its holder sees no row.
    const lead = yield* ok("POST", "/v1/executive-roles", { name: `Region lead ${label}` })
    yield* ok("POST", `/v1/executive-roles/${lead.role_id}/members`, { user_id: limited.userId })
    const outsider = yield* userWithToken("outsider")
    const gone = yield* userWithToken("gone")
    yield* ok("PATCH", `/v1/users/${gone.userId}`, { status: "deprovisioned" })
    return {
      tenant,
      tokens: {
        anonymous: undefined,
        operator: operatorToken,
        scim: tenant.scimToken,
        admin: tenant.admin,
        member: tenant.member,
        sharer: sharer.token,
        editor: editor.token,
        limited: limited.token,
        outsider: outsider.token,
        deprovisioned: gone.token
      }
    }
  })

/** One request of the walk: an operation as one role calls it. */
interface Call {
  readonly label: string
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

/** The operation called validly for the tenant (as the isolation matrix calls it). */
const callOf = (op: (typeof operations)[number], t: FixtureTenant): Call => ({
  label: `${op.id} (${op.method} ${op.path})`,
  method: op.method,
  path: fill(op.path, paramsOf(t, op)) + queryOf(t, op),
  body: addresses[op.id]!.body?.(t)
})

/** A bearer route beside the contract called validly for the tenant. */
const extraCallOf = (key: string, t: FixtureTenant): Call => {
  const [method, route] = key.split(" ") as [string, string]
  const address = extraAddresses[key]!
  const params = Object.fromEntries(Object.entries(address.params ?? {}).map(([p, k]) => [p, extraValueOf(t, k)]))
  const query = address.query?.(t)
  return {
    label: key,
    method,
    path: fillRoute(route, params) + (query === undefined ? "" : `?${new URLSearchParams(query)}`),
    body: address.body?.(t),
    headers: { accept: "application/json", ...(address.contentType === undefined ? {} : { "content-type": address.contentType }) }
  }
}

/** Sends the call as each role (refusals first, then the allowed, the admin last) and says what differs from the policy. */
const walk = (fixture: FixtureServer, arranged: Arranged, call: Call, rule: Policy.Rule, only?: ReadonlyArray<Role>) =>
  Effect.gen(function*() {
    const failures: Array<string> = []
    const walked = (only ?? roles).map((role) => ({ role, expected: expectedOf(rule, role) }))
    const ordered = [
      ...walked.filter((w) => !w.expected.allowed),
      ...walked.filter((w) => w.expected.allowed && w.role !== "admin"),
      ...walked.filter((w) => w.expected.allowed && w.role === "admin")
    ]
    for (const { expected, role } of ordered) {
      const answer = yield* fixture.server.request(call.method, call.path, { token: arranged.tokens[role], body: call.body, headers: call.headers })
      const code = typeof answer.body === "object" && answer.body !== null ? answer.body.code : undefined
      const ok = expected.allowed
        ? answer.status < 400 || (answer.status < 500 && ![401, 403, 404].includes(answer.status))
        : answer.status === expected.status && (call.path.startsWith("/scim/") || code === expected.code)
      if (!ok) {
        const wanted = expected.allowed ? "allowed" : `${expected.status} ${expected.code}`
        failures.push(`${call.label} as ${role}: expected ${wanted}, got ${answer.status} ${answer.text.slice(0, 200)}`)
      }
    }
    return failures
  })

/** What changes state: run each on a tenant of its own. */
const isChange = (op: (typeof operations)[number]) => addresses[op.id]?.destructive === true

describe("authorization matrix", () => {
  it("the policy names every operation of the OpenAPI document and every route beside it, and nothing else", () => {
    const ruled = new Set(Object.keys(Policy.rules))
    const missing = operations.filter((op) => !ruled.has(op.id)).map((op) => `${op.id} (${op.method} ${op.path}) has no rule in Policy.rules`)
    const unmapped = Object.keys(extraAddresses).filter((key) => extraOperations[key] === undefined).map((key) => `${key} maps to no operation of the policy`)
    const named = new Set([...operations.map((op) => op.id), ...Object.values(extraOperations)])
    const stray = [...ruled].filter((key) => !named.has(key)).map((key) => `Policy.rules has ${key}, which is no operation`)
    assert.deepStrictEqual([...missing, ...unmapped, ...stray], [])
  })

  it("the rules of decision 0018 hold: admin-only resources, jobs and schedules to their owners, downloads by grant", () => {
    const pinned: ReadonlyArray<readonly [RegExp, Policy.Rule["who"]]> = [
      [/^webhooks\.(?!eventTypes)/, "admin"],
      [/^(auditLog|users|teams|executiveRoles|invitations|scimTokens|branding)\./, "admin"],
      [/^exports\.(job|result|cancel)$/, "owner"],
      [/^exportSchedules\.(get|update|delete|sendNow)$/, "owner"],
      [/^exportSchedules\.list$/, "admin"],
      [/^comments\.(update|delete)$/, "owner"],
      [/^comments\.list$/, "member"],
      [/^(tenants)\./, "operator"],
      [/^workspaces\.create$/, "admin"]
    ]
    const rules = Policy.rules as Record<string, Policy.Rule>
    for (const op of operations) {
      for (const [pattern, who] of pinned) if (pattern.test(op.id)) assert.strictEqual(rules[op.id]?.who, who, op.id)
    }
    assert.deepStrictEqual(Policy.rules["exports.export"], { who: "granted", action: "download", subject: "report" })
    assert.deepStrictEqual(Policy.rules["reports.update"], { who: "granted", action: "edit", subject: "report" })
    assert.deepStrictEqual(Policy.rules["comments.create"], { who: "granted", action: "comment", subject: "report" })
  })

  it.live("replacing a dataset's model from its file (PUT /v1/datasets/{id}/data?model=suggested) is the upload's operation, for every role", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const arranged = yield* arrangeWithRoles(fixture, "model-reset")
      const model = (yield* fixture.server.request("GET", `/v1/datasets/${arranged.tenant.ids.dataset}`, { token: arranged.tenant.admin })).body.model
      // A file the strict check refuses: the admin is answered its 400, so nothing the other calls see changes.
      const call = { ...extraCallOf("PUT /v1/datasets/:id/data", arranged.tenant), label: "PUT /v1/datasets/:id/data?model=suggested", body: "region,amount\nEU\n" }
      const failures = yield* walk(fixture, arranged, { ...call, path: `${call.path}?model=suggested` }, Policy.rules[extraOperations["PUT /v1/datasets/:id/data"]!])
      assert.deepStrictEqual(failures, [], `\n${failures.join("\n")}`)
      assert.deepStrictEqual((yield* fixture.server.request("GET", `/v1/datasets/${arranged.tenant.ids.dataset}`, { token: arranged.tenant.admin })).body.model, model)
    }).pipe(Effect.scoped), 120_000)

  it.live("the SCIM token against admins: each of SCIM's user routes on a tenant admin answers 404 and changes nothing", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const { tenant, tokens } = yield* arrangeWithRoles(fixture, "scim-admins")
      const made = yield* fixture.server.request("POST", "/v1/users", { token: tenant.admin, body: { email: "boss-scim@example.com", name: "Boss", roles: ["admin"] } })
      assert.strictEqual(made.status, 201, made.text)
      const boss = made.body
      const failures: Array<string> = []
      const routes = Object.keys(extraAddresses).filter((k) => /^(GET|PUT|PATCH|DELETE) \/scim\/v2\/Users\/:id$/.test(k))
      assert.lengthOf(routes, 4)
      for (const key of routes) {
        const call = extraCallOf(key, { ...tenant, ids: { ...tenant.ids, user: boss.user_id } })
        const answer = yield* fixture.server.request(call.method, call.path, { token: tokens.scim, body: call.body, headers: call.headers })
        if (answer.status !== 404) failures.push(`${key} on an admin: expected 404, got ${answer.status} ${answer.text.slice(0, 200)}`)
      }
      const listed = yield* fixture.server.request("GET", "/scim/v2/Users?count=500", { token: tokens.scim })
      if (listed.body.Resources.some((u: any) => u.id === boss.user_id)) failures.push("GET /scim/v2/Users lists an admin")
      assert.deepStrictEqual(failures, [], `\n${failures.join("\n")}`)
      // Nothing changed: the admin is as made.
      assert.deepInclude((yield* fixture.server.request("GET", `/v1/users/${boss.user_id}`, { token: tenant.admin })).body, {
        email: "boss-scim@example.com",
        status: "active",
        roles: ["admin"]
      })
    }).pipe(Effect.scoped))

  it.live("every operation, as every role, on the in-memory stores: the policy's answer", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const shared = yield* arrangeWithRoles(fixture, "reads")
      const failures: Array<string> = []
      let walked = 0
      for (const op of operations.filter((o) => !isChange(o))) {
        const rule: Policy.Rule = (Policy.rules as Record<string, Policy.Rule>)[op.id]!
        const call = callOf(op, shared.tenant)
        if (rule.who === "anyone") {
          // No credential is asked: every role is answered as the caller without one.
          const answers = []
          for (const role of roles) answers.push((yield* fixture.server.request(call.method, call.path, { token: shared.tokens[role], body: call.body })).status)
          if (new Set(answers).size !== 1) failures.push(`${call.label}: answers differ by role: ${answers.join(", ")}`)
          walked += roles.length
          continue
        }
        failures.push(...yield* walk(fixture, shared, call, rule))
        walked += roles.length
      }
      // Uploads, and SCIM refused to every credential but its own (its own allowed on reads).
      for (const key of Object.keys(extraAddresses)) {
        const operation = extraOperations[key]!
        const rule: Policy.Rule = Policy.rules[operation]
        if (rule.who !== "admin" && rule.who !== "scim") continue
        // SCIM's own changes (deprovisioning the member) would change the answers after them, and the fixture's team is no
        // SCIM group: its reads of users and lists stand for it.
        const scimReads = ["GET /scim/v2/Users", "GET /scim/v2/Users/:id", "GET /scim/v2/Groups"]
        const only = rule.who === "scim" && !scimReads.includes(key) ? roles.filter((r) => r !== "scim") : roles
        failures.push(...yield* walk(fixture, shared, extraCallOf(key, shared.tenant), rule, only))
        walked += only.length
      }
      // Each change on a tenant of its own.
      for (const op of operations.filter(isChange)) {
        const own = yield* arrangeWithRoles(fixture, op.id.replace(/\W/g, "-"))
        failures.push(...yield* walk(fixture, own, callOf(op, own.tenant), (Policy.rules as Record<string, Policy.Rule>)[op.id]!))
        walked += roles.length
      }
      assert.deepStrictEqual(failures, [], `\n${failures.join("\n")}`)
      assert.isAbove(walked, 700)
    }).pipe(Effect.scoped), 600_000)
})
