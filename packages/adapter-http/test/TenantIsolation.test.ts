/**
 * The tenant isolation matrix (decision 0005), driven by the OpenAPI
 * document: tenant B's admin and B's member put tenant A's ids in every
 * path parameter, every id-bearing query parameter and every id-bearing
 * body field of an otherwise valid request of B's, for every operation
 * (and the routes beside the contract: uploads, result files, shares,
 * SCIM). Each answer is a refusal (404 for a path; for a list filter an
 * empty list) and the same, byte for byte once the id is replaced, as the
 * answer to a random id: B learns nothing. B's lists never show A's ids.
 * Afterwards A reads everything back, unchanged. On the in-memory stores
 * and on PGlite.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SqlStores } from "@analytics/adapter-postgres"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type * as App from "../src/App.ts"
import type { JsonResponse } from "@analytics/testing/http"
import {
  addresses,
  arrange,
  extraAddresses,
  extraValueOf,
  type FixtureTenant,
  fill,
  fillRoute,
  hasPath,
  type Kind,
  operations,
  paramsOf,
  queryOf,
  serve,
  setAt,
  snapshot,
  unaddressed,
  unaddressedExtras
} from "./TenantFixture.ts"

/** One probe: the same request with A's value and with a random one. */
interface Probe {
  readonly label: string
  readonly method: string
  readonly build: (value: string) => { readonly path: string; readonly body?: unknown; readonly headers?: Record<string, string> }
  readonly token: string | undefined
  readonly foreign: string
  readonly random: string
  /** What the admin's answer must be besides being the same as to a random id. */
  readonly expect: "not-found" | "refused" | "refused-or-empty"
  readonly destructive: boolean
}

/** A value of the same shape as A's that names nothing. */
const randomLike = (kind: Kind | "email" | "slug", value: string) =>
  kind === "email" ? `nobody-${crypto.randomUUID().slice(0, 8)}@example.com` : /^[0-9a-f-]{36}$/.test(value) ? crypto.randomUUID() : value.replace(/./g, "x")

/** Headers that say something about the resource (not the date, the rate-limit counters or the length, which the id changes). */
const telling = ["content-type", "allow", "www-authenticate", "retry-after", "location", "cache-control", "content-disposition", "set-cookie"]

/** An answer with `values` (and its own request id, which every answer has anew) replaced: what B may compare between two ids. */
const seen = (r: JsonResponse, values: ReadonlyArray<string>) => {
  const requestId = r.headers.get("x-request-id")
  const blank = (text: string) =>
    [...values, ...(requestId === null ? [] : [requestId])].reduce((acc, v) => acc.split(v).join("<id>").split(encodeURIComponent(v)).join("<id>"), text)
  return {
    status: r.status,
    headers: Object.fromEntries(telling.map((h) => [h, blank(r.headers.get(h) ?? "")])),
    headerNames: [...r.headers.keys()].filter((h) => !h.startsWith("ratelimit") && h !== "date" && h !== "content-length").sort(),
    body: blank(r.text)
  }
}

const probesOf = (a: FixtureTenant, b: FixtureTenant, as: "admin" | "member"): Array<Probe> => {
  const token = as === "admin" ? b.admin : b.member
  const probes: Array<Probe> = []
  for (const op of operations) {
    const address = addresses[op.id]!
    const params = paramsOf(b, op)
    const query = queryOf(b, op)
    const body = address.body?.(b)
    const destructive = address.destructive === true
    const refusal = address.operatorOnly === true ? "refused" : "not-found"
    const globals = Object.entries(address.params ?? {}).filter((e): e is [string, Kind] => e[1] !== "visual" && e[1] !== "tile")
    for (const [param, kind] of globals) {
      probes.push({
        label: `${op.id}: path ${param} = A's ${kind}`,
        method: op.method,
        build: (value) => ({ path: fill(op.path, { ...params, [param]: value }) + query, body }),
        token,
        foreign: a.ids[kind],
        random: randomLike(kind, a.ids[kind]),
        expect: refusal,
        destructive
      })
    }
    if (globals.length > 1) {
      // Every parameter A's at once (A's webhook and A's delivery): still nothing.
      const randoms = Object.fromEntries(globals.map(([p, k]) => [p, randomLike(k, a.ids[k])]))
      const foreign = JSON.stringify(Object.fromEntries(globals.map(([p, k]) => [p, a.ids[k]])))
      probes.push({
        label: `${op.id}: every path parameter A's`,
        method: op.method,
        build: (value) => {
          const values = JSON.parse(value) as Record<string, string>
          return { path: fill(op.path, { ...params, ...values }) + query, body }
        },
        token,
        foreign,
        random: JSON.stringify(randoms),
        expect: refusal,
        destructive
      })
    }
    for (const [name, kind] of Object.entries(address.queryIds ?? {})) {
      if (kind === "visual" || kind === "tile") continue
      probes.push({
        label: `${op.id}: query ${name} = A's ${kind}`,
        method: op.method,
        build: (value) => ({ path: fill(op.path, params) + queryOf(b, op, { [name]: value }), body }),
        token,
        foreign: a.ids[kind],
        random: randomLike(kind, a.ids[kind]),
        expect: "refused-or-empty",
        destructive
      })
    }
    for (const [field, kind] of Object.entries(address.bodyIds ?? {})) {
      if (kind === "visual" || kind === "tile" || kind === "free" || !hasPath(body, field)) continue
      const foreign = kind === "email" ? a.memberEmail : a.ids[kind]
      probes.push({
        label: `${op.id}: body ${field} = A's ${kind}`,
        method: op.method,
        build: (value) => ({ path: fill(op.path, params) + query, body: setAt(body, field, value) }),
        token,
        foreign,
        random: randomLike(kind, foreign),
        expect: "refused",
        destructive
      })
    }
  }
  return probes
}

/** The routes beside the contract: B's credential (or share, or signed URL) with A's ids. */
const extraProbesOf = (a: FixtureTenant, b: FixtureTenant): Array<Probe> => {
  const probes: Array<Probe> = []
  for (const [key, address] of Object.entries(extraAddresses)) {
    const [method, route] = key.split(" ") as [string, string]
    const params = Object.fromEntries(Object.entries(address.params ?? {}).map(([p, k]) => [p, extraValueOf(b, k)]))
    const query = address.query?.(b)
    const search = query === undefined ? "" : `?${new URLSearchParams(query)}`
    const token = address.credential === "admin" ? b.admin : address.credential === "scim" ? b.scimToken : undefined
    const headers = { accept: "application/json", ...(address.contentType === undefined ? {} : { "content-type": address.contentType }) }
    const body = address.body?.(b)
    const destructive = method !== "GET"
    // A link's slug and an embed token are capabilities, valid for anyone who holds them: what they must not reach is another tenant's job.
    for (const [param, kind] of Object.entries(address.params ?? {})) {
      if (kind === "slug" || kind === "workspaceSlug" || kind === "visual" || kind === "tile") continue
      probes.push({
        label: `${key}: path ${param} = A's ${kind}`,
        method,
        build: (value) => ({ path: fillRoute(route, { ...params, [param]: value }) + search, body, headers }),
        token,
        foreign: a.ids[kind],
        random: randomLike(kind, a.ids[kind]),
        expect: "refused",
        destructive
      })
    }
  }
  // A signed URL of B's, changed to name A's tenant: refused, as a random tenant.
  const file = new URL(b.fileUrl, "http://x")
  probes.push({
    label: "GET /v1/jobs/:job_id/file: tenant = A's",
    method: "GET",
    build: (value) => {
      const changed = new URL(file)
      changed.searchParams.set("tenant", value)
      return { path: changed.pathname + changed.search }
    },
    token: undefined,
    foreign: a.tenantId,
    random: crypto.randomUUID(),
    expect: "refused",
    destructive: false
  })
  // SCIM: A's user as a member of B's groups, and A's member's address in B's filter.
  const scim = { accept: "application/json", "content-type": "application/scim+json" }
  probes.push({
    label: "POST /scim/v2/Groups: members = A's user",
    method: "POST",
    build: (value) => ({
      path: "/scim/v2/Groups",
      body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Synced", members: [{ value }] },
      headers: scim
    }),
    token: b.scimToken,
    foreign: a.ids.user,
    random: crypto.randomUUID(),
    expect: "refused",
    destructive: true
  }, {
    label: "PATCH /scim/v2/Groups/:id: add A's user",
    method: "PATCH",
    build: (value) => ({
      path: `/scim/v2/Groups/${b.ids.team}`,
      body: { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "add", path: "members", value: [{ value }] }] },
      headers: scim
    }),
    token: b.scimToken,
    foreign: a.ids.user,
    random: crypto.randomUUID(),
    expect: "refused",
    destructive: true
  }, {
    label: "GET /scim/v2/Users: filter on A's member's address",
    method: "GET",
    build: (value) => ({ path: `/scim/v2/Users?${new URLSearchParams({ filter: `userName eq "${value}"` })}`, headers: scim }),
    token: b.scimToken,
    foreign: a.memberEmail,
    random: `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`,
    expect: "refused-or-empty",
    destructive: false
  })
  return probes
}

/** Whether an answer is empty: a list envelope (or a SCIM list) with nothing in it, or a CSV of its header line alone. */
const isEmptyList = (r: JsonResponse) =>
  r.status === 200 && (
    (r.headers.get("content-type") ?? "").startsWith("text/csv") ? r.text.trim().split(/\r?\n/).length === 1
      : Array.isArray(r.body?.data) ? r.body.data.length === 0 : r.body?.totalResults === 0
  )

const matrix = <E>(stores: Layer.Layer<App.Stores, E>) =>
  Effect.gen(function*() {
    const fixture = yield* serve(stores)
    const { server } = fixture
    const a = yield* arrange(fixture, "a")
    const b = yield* arrange(fixture, "b")
    const before = yield* snapshot(server, a)
    const aIds = [...Object.values(a.ids), a.slug, a.memberEmail]

    const probes = [...probesOf(a, b, "admin"), ...extraProbesOf(a, b), ...probesOf(a, b, "member")]
    // Changes last: a destructive probe that wrongly succeeded must not hide the reads' answers.
    const ordered = [...probes.filter((p) => !p.destructive), ...probes.filter((p) => p.destructive)]
    const failures: Array<string> = []
    for (const probe of ordered) {
      const send = (value: string) => {
        const { body, headers, path } = probe.build(value)
        return server.request(probe.method, path, { token: probe.token, body, headers })
      }
      const foreign = yield* send(probe.foreign)
      const random = yield* send(probe.random)
      const values = probe.foreign.startsWith("{")
        ? [...Object.values(JSON.parse(probe.foreign) as Record<string, string>), ...Object.values(JSON.parse(probe.random) as Record<string, string>)]
        : [probe.foreign, probe.random]
      const who = probe.token === b.member ? "member" : "admin"
      const label = `${probe.label} (B's ${who})`
      try {
        assert.deepStrictEqual(seen(foreign, values), seen(random, values), "A's id and a random id answer alike")
        if (probe.expect === "refused-or-empty") {
          assert.isTrue(foreign.status >= 400 && foreign.status < 500 || isEmptyList(foreign), `a refusal or an empty list, got ${foreign.status}`)
        } else {
          assert.isTrue(foreign.status >= 400 && foreign.status < 500, `a 4xx refusal, got ${foreign.status}`)
        }
        if (probe.expect === "not-found" && who === "admin") {
          assert.strictEqual(foreign.status, 404)
          assert.strictEqual(foreign.body?.code, "resource/not-found")
        }
        // Echoing the id B sent is no leak; any other of A's ids is.
        for (const id of aIds.filter((id) => !values.includes(id))) assert.notInclude(foreign.text, id, `the answer shows A's ${id}`)
      } catch (error) {
        failures.push(`${label}: ${(error as Error).message}\n    A's: ${foreign.status} ${foreign.text.slice(0, 300)}\n    random: ${random.status} ${random.text.slice(0, 300)}`)
      }
    }

    // B's lists (every operation without a path parameter that reads) show nothing of A's.
    for (const op of operations.filter((o) => o.method === "GET" && o.pathParams.length === 0)) {
      for (const token of [b.admin, b.member]) {
        const listed = yield* server.request("GET", op.path + queryOf(b, op), { token })
        for (const id of aIds) {
          if (listed.text.includes(id)) failures.push(`${op.id}: B's list shows A's ${id}`)
        }
      }
    }

    assert.deepStrictEqual(failures, [], `\n${failures.join("\n")}`)
    // Nothing of A's changed.
    assert.deepStrictEqual(yield* snapshot(server, a), before)
    return probes.length
  }).pipe(Effect.scoped)

describe("tenant isolation", () => {
  it("every operation of the OpenAPI document, and every route beside it, is addressed by the fixture", () => {
    assert.deepStrictEqual([...unaddressed(), ...unaddressedExtras()], [])
  })

  it.live("on the in-memory stores, B's admin and member using A's ids everywhere get the answers a random id gets, and A's data is unchanged", () =>
    Effect.map(matrix(MemoryStores.layer), (count) => assert.isAbove(count, 100)), 300_000)

  it.live("on PGlite, likewise", () =>
    Effect.map(matrix(SqlStores.layerPglite()), (count) => assert.isAbove(count, 100)), 300_000)
})
