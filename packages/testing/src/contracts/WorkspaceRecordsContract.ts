/**
 * The workspace-records part of the store contract, written once for the
 * port shape (`WorkspaceRecords`) and run for every kind of record on every
 * adapter: records round-trip with every field, change and go in their
 * tenant only, and list per workspace newest first (ties by id), page by
 * page, up to the snapshot bound. What a kind adds to the shape has its own
 * part of the contract.
 *
 * @since 0.1.0
 */
import { Errors, Pagination, Tenant, Workspace, WorkspaceRecords } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"

/** How the contract makes and changes records of one kind. */
export interface Sample<A extends WorkspaceRecords.Owned, Id extends string, S> {
  readonly kind: WorkspaceRecords.Kind<A, Id, S>
  /** A new record of the workspace created at `createdAt`, every nested part filled; what it points at is stored first. */
  readonly make: (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, createdAt: Date) => Effect.Effect<A, Errors.StoreError, Stores>
  /** The record as an edit leaves it, at `at`: every field `update` writes, changed. */
  readonly change: (record: A, at: Date) => A
}

// Far from other suites' times: the scheduler's queries see every tenant's records.
const at = (offset: number) => new Date(2_700_000_000_000 + offset)

const newestFirst = (take: number, after?: Pagination.Keyset, bound = at(1_000_000)): Pagination.PageQuery<"created_at"> => ({
  take,
  sort: { field: "created_at", direction: "desc" },
  after,
  createdAtOrBefore: bound
})

/** Registers the workspace-record tests of one kind on `it` (inside `storeContract`'s layer). */
export const workspaceRecordsContract = <A extends WorkspaceRecords.Owned, Id extends string, S extends Stores>(
  it: Vitest.MethodsNonLive<Stores>,
  sample: Sample<A, Id, S>
): void => {
  const { kind } = sample
  const idOf = (record: A) => WorkspaceRecords.idOf(kind, record)
  const ids = (records: ReadonlyArray<A>) => records.map(idOf)
  const arrange = Effect.gen(function*() {
    const tenantId = (yield* insertTenant({ createdAt: at(0) })).tenant_id
    const workspaceId = (yield* insertWorkspace(tenantId, "Analytics", at(0))).workspace_id
    return { tenantId, workspaceId }
  })

  it.effect(`${kind.resource} records round-trip with every field, change and go, in their tenant only`, () =>
    Effect.gen(function*() {
      const store = yield* kind.store
      const { tenantId, workspaceId } = yield* arrange
      const record = yield* sample.make(tenantId, workspaceId, at(1))
      yield* store.insert(record)
      assert.deepStrictEqual(yield* store.find(tenantId, idOf(record)), record)
      const other = (yield* insertTenant({ createdAt: at(0) })).tenant_id
      assert.strictEqual(yield* store.find(other, idOf(record)), undefined)
      assert.strictEqual(yield* store.find(tenantId, "not-an-id" as Id), undefined)
      const changed = sample.change(record, at(5))
      assert.isTrue(yield* store.update(changed))
      assert.deepStrictEqual(yield* store.find(tenantId, idOf(record)), changed)
      assert.isFalse(yield* store.update({ ...changed, tenant_id: other }))
      assert.deepStrictEqual(yield* store.find(tenantId, idOf(record)), changed)
      assert.isFalse(yield* store.remove(other, idOf(record)))
      assert.isFalse(yield* store.remove(tenantId, "not-an-id" as Id))
      assert.isTrue(yield* store.remove(tenantId, idOf(record)))
      assert.isFalse(yield* store.remove(tenantId, idOf(record)))
      assert.strictEqual(yield* store.find(tenantId, idOf(record)), undefined)
      assert.isFalse(yield* store.update(changed))
    }))

  it.effect(`${kind.resource} records list per workspace, newest first, ties by id, page by page, up to the snapshot`, () =>
    Effect.gen(function*() {
      const store = yield* kind.store
      const { tenantId, workspaceId } = yield* arrange
      const b = (yield* insertWorkspace(tenantId, "B", at(0))).workspace_id
      const inA: Array<A> = []
      for (const offset of [10, 30, 20, 30]) {
        const record = yield* sample.make(tenantId, workspaceId, at(offset))
        yield* store.insert(record)
        inA.push(record)
      }
      yield* store.insert(yield* sample.make(tenantId, b, at(40)))
      const keyOf = WorkspaceRecords.keyOf(kind)
      const expected = [...inA].sort((x, y) => y.created_at.getTime() - x.created_at.getTime() || (idOf(x) < idOf(y) ? -1 : 1))
      const first = yield* store.list(tenantId, workspaceId, newestFirst(3))
      assert.deepStrictEqual(ids(first), ids(expected.slice(0, 3)))
      // The tie at 30 is broken by id, so the second page starts inside it when the page ends there.
      const afterTie = yield* store.list(tenantId, workspaceId, newestFirst(10, keyOf(expected[0]!)))
      assert.deepStrictEqual(ids(afterTie), ids(expected.slice(1)))
      const rest = yield* store.list(tenantId, workspaceId, newestFirst(3, keyOf(first[2]!)))
      assert.deepStrictEqual(ids(rest), ids(expected.slice(3)))
      assert.deepStrictEqual(ids(yield* store.list(tenantId, workspaceId, newestFirst(10, undefined, at(20)))), ids(expected.slice(2)))
      assert.strictEqual((yield* store.list(tenantId, b, newestFirst(10))).length, 1)
      const other = (yield* insertTenant({ createdAt: at(0) })).tenant_id
      assert.deepStrictEqual(yield* store.list(other, workspaceId, newestFirst(10)), [])
      assert.deepStrictEqual(yield* store.list(tenantId, "not-an-id" as Workspace.WorkspaceId, newestFirst(10)), [])
    }))
}
