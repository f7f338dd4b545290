import { MemoryStores } from "@analytics/adapter-memory"
import { WorkspaceStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { operatorToken, problemCode, start, type TestServer } from "./TestServer.ts"

const post = (server: TestServer, token: string, key: string | undefined, body: unknown) =>
  server.request("POST", "/v1/workspaces", {
    token,
    body,
    ...(key === undefined ? {} : { headers: { "idempotency-key": key } })
  })

const count = (server: TestServer, token: string) =>
  Effect.map(server.request("GET", "/v1/workspaces", { token }), (r) => r.body.data.length as number)

describe("Idempotency-Key over HTTP", () => {
  it.effect("a retry with the same key and body replays status, headers and body; nothing is created twice", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const first = yield* post(server, token, "key-1", { name: "Sales", description: "d" })
      assert.strictEqual(first.status, 201)
      assert.isNull(first.headers.get("idempotent-replayed"))
      yield* TestClock.adjust("1 hour")
      const again = yield* post(server, token, "key-1", { description: "d", name: "Sales" })
      assert.strictEqual(again.status, 201)
      assert.strictEqual(again.text, first.text)
      assert.strictEqual(again.headers.get("content-type"), first.headers.get("content-type"))
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(yield* count(server, token), 1)
      const noKey = yield* post(server, token, undefined, { name: "Sales", description: "d" })
      assert.strictEqual(noKey.status, 201)
      assert.strictEqual(yield* count(server, token), 2)
    }).pipe(Effect.scoped))

  it.effect("the same key with another body answers 422 and changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      yield* post(server, token, "key-1", { name: "Sales" })
      const reused = yield* post(server, token, "key-1", { name: "Marketing" })
      assert.strictEqual(reused.status, 422)
      assert.strictEqual(problemCode(reused), "idempotency/key-reused")
      assert.strictEqual(yield* count(server, token), 1)
    }).pipe(Effect.scoped))

  it.effect("keys are scoped by tenant and kept 24 hours", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const a = yield* server.tenant()
      const b = yield* server.tenant()
      const fromA = yield* post(server, a.token, "shared", { name: "Sales" })
      const fromB = yield* post(server, b.token, "shared", { name: "Sales" })
      assert.strictEqual(fromB.status, 201)
      assert.notStrictEqual(fromB.body.workspace_id, fromA.body.workspace_id)
      assert.isNull(fromB.headers.get("idempotent-replayed"))
      yield* TestClock.adjust("23 hours")
      const replayed = yield* post(server, a.token, "shared", { name: "Sales" })
      assert.strictEqual(replayed.body.workspace_id, fromA.body.workspace_id)
      yield* TestClock.adjust("1 hour")
      yield* TestClock.adjust("1 millis")
      const fresh = yield* post(server, a.token, "shared", { name: "Sales" })
      assert.strictEqual(fresh.status, 201)
      assert.notStrictEqual(fresh.body.workspace_id, fromA.body.workspace_id)
      assert.strictEqual(yield* count(server, a.token), 2)
    }).pipe(Effect.scoped))

  it.effect("validation failures are not stored: the key can then be used with a valid body", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const invalid = yield* post(server, token, "key-v", { name: "" })
      assert.strictEqual(invalid.status, 400)
      const malformed = yield* post(server, token, "key-v", "{")
      assert.strictEqual(malformed.status, 400)
      const valid = yield* post(server, token, "key-v", { name: "Sales" })
      assert.strictEqual(valid.status, 201)
    }).pipe(Effect.scoped))

  it.effect("a decided failure is replayed like a success", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const forbidden = yield* post(server, operatorToken, "op-key", { name: "Sales" })
      assert.strictEqual(forbidden.status, 403)
      const replay = yield* post(server, operatorToken, "op-key", { name: "Sales" })
      assert.strictEqual(replay.status, 403)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(problemCode(replay), "auth/forbidden")
    }).pipe(Effect.scoped))

  it.effect("invalid keys answer 400 idempotency/invalid-key", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      for (const key of ["", "x".repeat(256), "has space"]) {
        const response = yield* post(server, token, key, { name: "Sales" })
        assert.strictEqual(response.status, 400, JSON.stringify(key))
        assert.strictEqual(problemCode(response), "idempotency/invalid-key")
      }
      const longest = yield* post(server, token, "k".repeat(255), { name: "Sales" })
      assert.strictEqual(longest.status, 201)
      assert.strictEqual(yield* count(server, token), 1)
    }).pipe(Effect.scoped))

  it.effect("operator provisioning is idempotent too", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const request = () =>
        server.request("POST", "/v1/tenants", {
          token: operatorToken,
          body: { name: "Acme", plan: "scale" },
          headers: { "idempotency-key": "tenant-acme" }
        })
      const first = yield* request()
      const second = yield* request()
      assert.strictEqual(first.status, 201)
      assert.strictEqual(second.body.tenant_id, first.body.tenant_id)
      assert.strictEqual(second.body.token, first.body.token)
    }).pipe(Effect.scoped))

  it.live("a retry while the first request runs answers 409; the first then completes", () =>
    Effect.gen(function*() {
      const entered = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const slowInsert = Layer.mergeAll(
        MemoryStores.layer,
        Layer.effect(
          WorkspaceStore.WorkspaceStore,
          Effect.map(MemoryStores.workspaceStore, (store) => ({
            ...store,
            insert: (w: Parameters<typeof store.insert>[0]) =>
              Deferred.succeed(entered, undefined).pipe(
                Effect.andThen(Deferred.await(release)),
                Effect.andThen(store.insert(w))
              )
          }))
        )
      )
      const server = yield* start(slowInsert)
      const { token } = yield* server.tenant()
      const first = yield* Effect.forkChild(post(server, token, "slow", { name: "Sales" }))
      yield* Deferred.await(entered)
      const concurrent = yield* post(server, token, "slow", { name: "Sales" })
      assert.strictEqual(concurrent.status, 409)
      assert.strictEqual(problemCode(concurrent), "idempotency/in-progress")
      yield* Deferred.succeed(release, undefined)
      const done = yield* Fiber.join(first)
      assert.strictEqual(done.status, 201)
      const replay = yield* post(server, token, "slow", { name: "Sales" })
      assert.strictEqual(replay.body.workspace_id, done.body.workspace_id)
    }).pipe(Effect.scoped))

  it.effect("an idempotent POST's body is parsed once, for its fingerprint and its payload alike; a replay parses it once too", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const body = { name: "Parsed once", description: "d" }
      const text = JSON.stringify(body)
      const parse = JSON.parse
      let parses = 0
      JSON.parse = function(this: unknown, ...args: Parameters<typeof JSON.parse>) {
        if (args[0] === text) parses++
        return parse.apply(this, args)
      } as typeof JSON.parse
      const [first, replayed] = yield* Effect.ensuring(
        Effect.gen(function*() {
          const first = yield* post(server, token, "key-parse", body)
          const firstParses = parses
          const replayed = yield* post(server, token, "key-parse", body)
          return [{ response: first, parses: firstParses }, { response: replayed, parses: parses - firstParses }] as const
        }),
        Effect.sync(() => {
          JSON.parse = parse
        })
      )
      assert.strictEqual(first.response.status, 201)
      assert.strictEqual(first.response.body.name, "Parsed once")
      assert.strictEqual(first.parses, 1)
      assert.strictEqual(replayed.response.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replayed.parses, 1)
    }).pipe(Effect.scoped))

  it.effect("with a key, a blank body is a validation failure and bad JSON is malformed, as without one; neither is kept", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      for (const [sent, code] of [["  \n", "request/invalid"], ["{\"name\":", "request/malformed-json"]] as const) {
        const keyed = yield* post(server, token, "key-blank", sent)
        const plain = yield* post(server, token, undefined, sent)
        assert.strictEqual(keyed.status, 400, sent)
        assert.strictEqual(problemCode(keyed), code, sent)
        const { request_id: _keyedId, ...keyedProblem } = keyed.body
        const { request_id: _plainId, ...plainProblem } = plain.body
        assert.deepStrictEqual(keyedProblem, plainProblem, sent)
      }
      const valid = yield* post(server, token, "key-blank", { name: "Sales" })
      assert.strictEqual(valid.status, 201)
    }).pipe(Effect.scoped))

  it.effect("every replay of a key answers the same stored response, each with its own request's headers", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const first = yield* post(server, token, "key-again", { name: "Sales" })
      const replays = [
        yield* post(server, token, "key-again", { name: "Sales" }),
        yield* post(server, token, "key-again", { name: "Sales" }),
        yield* post(server, token, "key-again", { name: "Sales" })
      ]
      const requestIds = new Set([first, ...replays].map((r) => r.headers.get("x-request-id")))
      assert.strictEqual(requestIds.size, 4)
      assert.isFalse(requestIds.has(null))
      for (const replayed of replays) {
        assert.strictEqual(replayed.status, 201)
        assert.strictEqual(replayed.text, first.text)
        assert.strictEqual(replayed.headers.get("content-type"), first.headers.get("content-type"))
        assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
      }
      // The shared replay is never written into: the response the first request got is not marked, nor is a new key's.
      assert.isNull(first.headers.get("idempotent-replayed"))
      const other = yield* post(server, token, "key-other", { name: "Sales" })
      assert.isNull(other.headers.get("idempotent-replayed"))
      assert.strictEqual(yield* count(server, token), 2)
    }).pipe(Effect.scoped))
})
