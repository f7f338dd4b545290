/**
 * JSON bodies an attacker inside a tenant crafts (decisions 0001 and 0013),
 * over a real socket on every store: filters nested hundreds of `and`
 * groups deep (a stack overflow in decoding: 500) and filters past the
 * 16-group bound wherever a filter is taken (queries, row-level security
 * policies, report visuals, alerts); 100k `[` in a body; bytes that are
 * not UTF-8 and lone surrogates (`"\ud800"`), which were stored; an unknown
 * property's value, which the problem repeated. Each is a 400 problem that
 * names where, and changes nothing.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { gzipSync } from "node:zlib"
import { problemCode, start } from "./TestServer.ts"
import { onEveryStore } from "./EveryStore.ts"

/** A condition inside `depth` `and` groups, one in another. */
const nested = (depth: number): unknown => {
  let filter: unknown = { member: "region", operator: "equals", values: ["EU"] }
  for (let i = 0; i < depth; i++) filter = { and: [filter] }
  return filter
}

const tooDeep = "Expected a filter nesting at most 16 and/or groups, one in another"

onEveryStore("hostile JSON bodies", (stores) => {
  const setup = Effect.gen(function*() {
    const server = yield* start(stores(), { engines: { upload: DuckDbEngine.layer(":memory:") } })
    const { token } = yield* server.tenant()
    const workspaceId = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body.workspace_id as string
    const id = (yield* server.request("POST", "/v1/datasets", { token, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body
      .dataset_id as string
    const loaded = yield* server.request("PUT", `/v1/datasets/${id}/data`, { token, body: "region,amount\nEU,1\nUS,2\n", headers: { "content-type": "text/csv" } })
    assert.strictEqual(loaded.status, 200, loaded.text)
    /** Bytes sent as they are, as `application/json` (gzipped: through the platform's reader, not the edge's own). */
    const raw = (method: string, path: string, body: Buffer, gzip = false) =>
      Effect.promise(async () => {
        const response = await fetch(server.url + path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            ...(gzip ? { "content-encoding": "gzip" } : {})
          },
          body: new Uint8Array(gzip ? gzipSync(body) : body)
        })
        const text = await response.text()
        return { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
      })
    return { server, token, workspaceId, id, raw }
  })

  it.live("filters: 450 nested groups answer 400, not 500; past 16 groups refused wherever a filter is taken; 16 accepted", () =>
    Effect.gen(function*() {
      const { id, server, token, workspaceId } = yield* setup
      const ada = (yield* server.request("POST", "/v1/users", { token, body: { email: "ada@example.com", name: "Ada" } })).body
      const member = (yield* server.request("POST", `/v1/users/${ada.user_id}/tokens`, { token })).body.token as string
      for (const depth of [450, 2000]) {
        const refused = yield* server.request("POST", `/v1/datasets/${id}/query`, { token, body: { measures: ["count"], filters: [nested(depth)] } })
        assert.strictEqual(refused.status, 400, refused.text)
        assert.strictEqual(problemCode(refused), "request/invalid")
      }
      // Within the body's nesting bound, past the filter's: the filter's own words, where it is.
      const query = yield* server.request("POST", `/v1/datasets/${id}/query`, { token, body: { measures: ["count"], filters: [nested(17)] } })
      assert.strictEqual(problemCode(query), "request/invalid")
      assert.deepStrictEqual(query.body.errors, [{ path: ["payload", "filters", 0], message: tooDeep }])
      const sql = yield* server.request("POST", `/v1/datasets/${id}/sql`, { token, body: { measures: ["count"], filters: [nested(17)] } })
      assert.deepStrictEqual(sql.body.errors, [{ path: ["payload", "filters", 0], message: tooDeep }])
      const before = (yield* server.request("GET", `/v1/datasets/${id}`, { token })).body
      const policy = yield* server.request("PATCH", `/v1/datasets/${id}`, {
        token,
        body: { model: { ...before.model, row_level_security: [{ filter: nested(17) }] } }
      })
      assert.deepStrictEqual(policy.body.errors, [{ path: ["payload", "model", "row_level_security", 0, "filter"], message: tooDeep }])
      const visual = (filter: unknown) => ({
        workspace_id: workspaceId,
        name: "Deep",
        pages: [{ name: "One", visuals: [{ id: "v", type: "kpi", dataset_id: id, query: { measures: ["count"], filters: [filter] }, encoding: { value: "count" } }] }]
      })
      const report = yield* server.request("POST", "/v1/reports", { token, body: visual(nested(17)) })
      assert.strictEqual(problemCode(report), "request/invalid", report.text)
      assert.deepInclude(report.body.errors, { path: ["payload", "pages", 0, "visuals", 0, "query", "filters", 0], message: tooDeep })
      const alert = yield* server.request("POST", "/v1/alerts", {
        token,
        body: { dataset_id: id, name: "Deep", measure: "count", filters: [nested(17)], condition: "gt", threshold: 1 }
      })
      assert.deepStrictEqual(alert.body.errors, [{ path: ["payload", "filters", 0], message: tooDeep }])
      // Nothing was changed: no policy, no report, no alert.
      assert.deepStrictEqual((yield* server.request("GET", `/v1/datasets/${id}`, { token })).body.model, before.model)
      assert.strictEqual((yield* server.request("GET", `/v1/reports?workspace_id=${workspaceId}`, { token })).body.data.length, 0)
      assert.strictEqual((yield* server.request("GET", `/v1/alerts?workspace_id=${workspaceId}`, { token })).body.data.length, 0)
      // 16 groups are a filter like any other, for a member too.
      const deepest = yield* server.request("POST", `/v1/datasets/${id}/query`, { token: member, body: { measures: ["count"], filters: [nested(16)] } })
      assert.strictEqual(deepest.status, 200, deepest.text)
      assert.deepStrictEqual(deepest.body.data, [{ count: 1 }])
      const created = yield* server.request("POST", "/v1/reports", { token, body: visual(nested(16)) })
      assert.strictEqual(created.status, 201, created.text)
    }).pipe(Effect.scoped), 120_000)

  it.live("100k `[` (and objects as deep) answer 400 on every kind of route, naming where the nesting passes 64 levels", () =>
    Effect.gen(function*() {
      const { id, raw, server, token, workspaceId } = yield* setup
      const arrays = "[".repeat(100_000) + "]".repeat(100_000)
      const objects = "{\"a\":".repeat(50_000) + "1" + "}".repeat(50_000)
      const targets: ReadonlyArray<readonly [string, string]> = [
        ["POST", "/v1/workspaces"],
        ["POST", `/v1/datasets/${id}/query`],
        ["PATCH", `/v1/datasets/${id}`],
        ["POST", "/v1/ai/ask"],
        ["POST", "/scim/v2/Users"]
      ]
      for (const [method, path] of targets) {
        for (const [body, gzip] of [[arrays, false], [`{"name":${arrays}}`, false], [objects, false], [arrays, true]] as const) {
          const refused = yield* raw(method, path, Buffer.from(body), gzip)
          assert.strictEqual(refused.status, 400, `${method} ${path}: ${refused.text.slice(0, 300)}`)
          assert.strictEqual(refused.body.code, "request/invalid", path)
          assert.strictEqual(refused.body.errors[0].path.length, 1 + 64, path)
          assert.strictEqual(refused.body.errors[0].message, "Expected at most 64 levels of nesting")
        }
      }
      assert.deepStrictEqual(
        (yield* server.request("GET", "/v1/workspaces", { token })).body.data.map((w: any) => w.workspace_id),
        [workspaceId]
      )
    }).pipe(Effect.scoped), 120_000)

  it.live("invalid UTF-8 and lone surrogates answer 400 naming where; an unknown property's value is never repeated", () =>
    Effect.gen(function*() {
      const { raw, server, token, workspaceId } = yield* setup
      for (const gzip of [false, true]) {
        const bytes = Buffer.concat([Buffer.from("{\"name\":\"a"), Buffer.from([0xff, 0xfe]), Buffer.from("b\"}")])
        const notUtf8 = yield* raw("POST", "/v1/workspaces", bytes, gzip)
        assert.strictEqual(notUtf8.status, 400, notUtf8.text)
        assert.strictEqual(notUtf8.body.code, "request/malformed-json")
        assert.strictEqual(notUtf8.body.detail, "The request body is not valid UTF-8")
        // An encoded surrogate (CESU-8, ED A0 80) is not UTF-8 either.
        const encodedSurrogate = Buffer.concat([Buffer.from("{\"name\":\"a"), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("\"}")])
        assert.strictEqual((yield* raw("POST", "/v1/workspaces", encodedSurrogate, gzip)).body.code, "request/malformed-json")
        for (
          const [body, path] of [
            ["{\"name\":\"\\ud800\"}", ["payload", "name"]],
            ["{\"name\":\"ok\",\"description\":\"tail \\udfff\"}", ["payload", "description"]],
            ["{\"name\":\"pair then lone \\ud83d\\ude00\\ud83d\"}", ["payload", "name"]],
            ["{\"name\":\"ok\",\"\\udc00\":1}", ["payload", "\udc00"]]
          ] as const
        ) {
          const lone = yield* raw("POST", "/v1/workspaces", Buffer.from(body), gzip)
          assert.strictEqual(lone.status, 400, lone.text)
          assert.strictEqual(lone.body.code, "request/invalid")
          assert.deepStrictEqual(lone.body.errors[0].path, [...path], body)
          assert.include(lone.body.errors[0].message, "lone surrogate")
        }
      }
      // A surrogate pair is a character like any other; an escaped backslash before "ud800" is text.
      const pair = yield* raw("POST", "/v1/workspaces", Buffer.from("{\"name\":\"smile \\ud83d\\ude00\",\"description\":\"\\\\ud800\"}"))
      assert.strictEqual(pair.status, 201, pair.text)
      assert.strictEqual(pair.body.name, "smile \u{1F600}")
      assert.strictEqual(pair.body.description, "\\ud800")
      const names = (yield* server.request("GET", "/v1/workspaces", { token })).body.data.map((w: any) => w.workspace_id)
      assert.deepStrictEqual(names.sort(), [workspaceId, pair.body.workspace_id].sort())
      // An unknown property is named by its path, its value never repeated (in the body and the query string).
      const excess = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "x", nickname: "tenant-data-7f3a" } })
      assert.strictEqual(problemCode(excess), "request/invalid")
      assert.deepStrictEqual(excess.body.errors, [{ path: ["payload", "nickname"], message: "Expected no excess property" }])
      assert.notInclude(excess.text, "tenant-data-7f3a")
      const query = yield* server.request("GET", "/v1/workspaces?limt=secret-ish-value-99", { token })
      assert.deepStrictEqual(query.body.errors, [{ path: ["query", "limt"], message: "Expected no excess property" }])
      assert.notInclude(query.text, "secret-ish-value-99")
    }).pipe(Effect.scoped), 120_000)
})
