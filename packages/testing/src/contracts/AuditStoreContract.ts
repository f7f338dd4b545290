/**
 * The audit log part of the store contract: entries append in the caller's
 * transaction (and vanish with its rollback), list newest first with
 * filters, and are scoped by tenant. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { AuditLog, Ids, Pagination, Tenant, Transactor } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { insertTenant } from "../Fixtures.ts"

const at = (offset: number) => new Date(1_820_000_000_000 + offset)

const entry = (tenantId: Tenant.TenantId, offset: number, overrides: Partial<AuditLog.AuditEntry> = {}) =>
  Effect.map(Ids.uuidv7, (id): AuditLog.AuditEntry => ({
    entry_id: id,
    tenant_id: tenantId,
    workspace_id: null,
    action: "grant.created",
    actor: { type: "user", id: "u-1" },
    target: { type: "grant", id: `g-${offset}` },
    detail: { actions: ["view"], watermark: true, nested: { expires_at: null } },
    created_at: at(offset),
    ...overrides
  }))

const newestFirst = (take: number, after?: AuditLog.AuditEntry): Pagination.PageQuery<"created_at"> => ({
  take,
  sort: { field: "created_at", direction: "desc" },
  after: after === undefined ? undefined : { value: after.created_at.getTime(), id: after.entry_id },
  createdAtOrBefore: at(1_000_000)
})

/** Registers the audit log tests on `it` (inside `storeContract`'s layer). */
export const auditStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("audit entries append, list newest first with filters, in their tenant only, and roll back with their transaction", () =>
    Effect.gen(function*() {
      const store = yield* AuditLog.AuditStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const first = yield* entry(tenant.tenant_id, 1)
      const second = yield* entry(tenant.tenant_id, 2, { action: "grant.revoked", actor: { type: "api_token", id: "t-9" }, target: { type: "grant", id: "g-1" } })
      const third = yield* entry(tenant.tenant_id, 3, { workspace_id: (yield* Ids.uuidv7) })
      for (const e of [first, second, third]) yield* store.append(e)
      const list = (filter: AuditLog.AuditFilter, take = 10, after?: AuditLog.AuditEntry) => Effect.map(store.list(tenant.tenant_id, filter, newestFirst(take, after)), (es) => es.map((e) => e.entry_id))
      assert.deepStrictEqual(yield* store.list(tenant.tenant_id, {}, newestFirst(1)), [third])
      assert.deepStrictEqual(yield* list({}, 2), [third.entry_id, second.entry_id])
      assert.deepStrictEqual(yield* list({}, 2, second), [first.entry_id])
      assert.deepStrictEqual(yield* list({ action: "grant.revoked" }), [second.entry_id])
      assert.deepStrictEqual(yield* list({ targetType: "grant", targetId: "g-1" }), [second.entry_id, first.entry_id])
      assert.deepStrictEqual(yield* list({ actorId: "t-9" }), [second.entry_id])
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.deepStrictEqual(yield* store.list(other.tenant_id, {}, newestFirst(10)), [])
      // Written in a transaction that fails: gone with it.
      const doomed = yield* entry(tenant.tenant_id, 4)
      const exit = yield* Effect.exit((yield* Transactor.Transactor).transaction(Effect.andThen(store.append(doomed), Effect.fail("rolled back"))))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* list({}, 1), [third.entry_id])
    }))
}
