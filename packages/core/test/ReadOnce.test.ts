/**
 * `WorkspaceRecords.readOnce`: a store whose records are read once per
 * request, over a plain in-memory store that counts its reads.
 */
import { type Tenant, WorkspaceRecords } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

interface Note {
  readonly tenant_id: Tenant.TenantId
  readonly note_id: string
  readonly text: string
}

/** A store of notes in a Map, counting the reads that reach it. */
const counted = () => {
  const notes = new Map<string, Note>()
  const key = (tenantId: string, id: string) => `${tenantId}/${id}`
  const reads: Array<string> = []
  const store: WorkspaceRecords.TenantRecords<Note, string> = {
    insert: (note) => Effect.sync(() => void notes.set(key(note.tenant_id, note.note_id), note)),
    // It suspends before answering, as a store over a network does, so that concurrent finds overlap.
    find: (tenantId, id) =>
      Effect.andThen(Effect.sync(() => reads.push(id)), Effect.andThen(Effect.yieldNow, Effect.sync(() => notes.get(key(tenantId, id))))),
    update: (note) => Effect.sync(() => notes.has(key(note.tenant_id, note.note_id)) && (notes.set(key(note.tenant_id, note.note_id), note), true)),
    remove: (tenantId, id) => Effect.sync(() => notes.delete(key(tenantId, id)))
  }
  return { store, reads }
}

const t1 = "tenant-1" as Tenant.TenantId
const t2 = "tenant-2" as Tenant.TenantId

describe("WorkspaceRecords.readOnce", () => {
  it.effect("concurrent and later finds of one record read it once; another id or tenant, or a missing record, once each", () =>
    Effect.gen(function*() {
      const { store, reads } = counted()
      yield* store.insert({ tenant_id: t1, note_id: "a", text: "first" })
      const once = WorkspaceRecords.readOnce(store)
      const found = yield* Effect.all(Array.from({ length: 10 }, () => once.find(t1, "a")), { concurrency: "unbounded" })
      assert.deepStrictEqual(found.map((n) => n?.text), Array(10).fill("first"))
      assert.strictEqual((yield* once.find(t1, "a"))?.text, "first")
      assert.isUndefined(yield* once.find(t2, "a"))
      assert.isUndefined(yield* once.find(t2, "a"))
      assert.isUndefined(yield* once.find(t1, "b"))
      assert.deepStrictEqual(reads, ["a", "a", "b"])
    }))

  it.effect("a write through it forgets what was read: the next find reads the store again", () =>
    Effect.gen(function*() {
      const { store, reads } = counted()
      yield* store.insert({ tenant_id: t1, note_id: "a", text: "first" })
      const once = WorkspaceRecords.readOnce(store)
      assert.strictEqual((yield* once.find(t1, "a"))?.text, "first")
      assert.isTrue(yield* once.update({ tenant_id: t1, note_id: "a", text: "second" }))
      assert.strictEqual((yield* once.find(t1, "a"))?.text, "second")
      assert.isTrue(yield* once.remove(t1, "a"))
      assert.isUndefined(yield* once.find(t1, "a"))
      assert.deepStrictEqual(reads, ["a", "a", "a"])
      // Another request's store reads for itself.
      assert.isUndefined(yield* WorkspaceRecords.readOnce(store).find(t1, "a"))
      assert.lengthOf(reads, 4)
    }))
})
