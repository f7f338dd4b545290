import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { SqlStores } from "../src/index.ts"
import * as SqlIdempotencyStore from "../src/SqlIdempotencyStore.ts"

/** The SQL idempotency store on an in-memory PGlite, with a count of the statements it sends. */
const counted = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const counter = { statements: 0 }
  // Every statement is a call of the `sql` tag; everything else passes through.
  const spy = new Proxy(sql, {
    apply: (target, self, args) => {
      counter.statements++
      return Reflect.apply(target, self, args)
    }
  })
  const store = yield* Effect.provideService(SqlIdempotencyStore.make, SqlClient.SqlClient, spy)
  return { store, counter }
})

const cutoffs = { expiredBefore: new Date(0), abandonedBefore: new Date(0) }
const record = (key: string, createdAt: number) => ({
  owner: "tenant-1",
  scope: "POST /v1/workspaces",
  key,
  fingerprint: "f1",
  createdAt: new Date(createdAt)
})
const response = { status: 201, headers: { "content-type": "application/json" }, body: "{\"a\":1}" }

describe("SqlIdempotencyStore.make round trips", () => {
  it.effect("a first sight and a replay each reserve in one statement; a key still running takes a second", () =>
    Effect.gen(function*() {
      const { counter, store } = yield* counted
      // The statements `effect` sends (the store may build a statement as soon as it is called: counted from before the call).
      const count = <A, E>(effect: () => Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          const before = counter.statements
          return Effect.map(effect(), (value) => [value, counter.statements - before] as const)
        })

      const [first, firstStatements] = yield* count(() => store.reserve(record("k", 1_000), cutoffs))
      assert.strictEqual(first._tag, "Reserved")
      assert.strictEqual(firstStatements, 1)

      const [running, runningStatements] = yield* count(() => store.reserve(record("k", 2_000), cutoffs))
      assert.strictEqual(running._tag, "Existing")
      assert.strictEqual(running._tag === "Existing" ? running.record.response : "none", undefined)
      assert.strictEqual(runningStatements, 2)

      yield* store.complete({ owner: "tenant-1", scope: "POST /v1/workspaces", key: "k", createdAt: new Date(1_000) }, response)
      const [replay, replayStatements] = yield* count(() => store.reserve(record("k", 3_000), cutoffs))
      assert.deepStrictEqual(replay._tag === "Existing" ? replay.record.response : undefined, response)
      assert.strictEqual(replayStatements, 1)
    }).pipe(Effect.provide(Layer.orDie(SqlStores.layerPglite())), Effect.scoped), 60_000)
})
