/**
 * What the contract suites arrange their stores with: a tenant, a
 * workspace, each stored and returned; a transaction that fails.
 *
 * @since 0.1.0
 */
import { Ids, Plan, Tenant, TenantStore, Transactor, Workspace, WorkspaceStore } from "@analytics/core"
import { Data, Effect, Exit } from "effect"

/** Stores a new tenant. */
export const insertTenant = (options: { readonly plan?: Plan.Plan; readonly name?: string; readonly createdAt?: Date } = {}) =>
  Effect.gen(function*() {
    const tenant = new Tenant.Tenant({
      tenant_id: (yield* Ids.uuidv7) as Tenant.TenantId,
      name: options.name ?? "Acme",
      plan: options.plan ?? "growth",
      created_at: options.createdAt ?? new Date(1_700_000_000_123)
    })
    yield* (yield* TenantStore.TenantStore).insertTenant(tenant)
    return tenant
  })

/** Stores a new workspace of a tenant. */
export const insertWorkspace = (tenantId: Tenant.TenantId, name: string, createdAt: Date) =>
  Effect.gen(function*() {
    const workspace = new Workspace.Workspace({
      workspace_id: (yield* Ids.uuidv7) as Workspace.WorkspaceId,
      tenant_id: tenantId,
      name,
      description: null,
      created_at: createdAt
    })
    yield* (yield* WorkspaceStore.WorkspaceStore).insert(workspace)
    return workspace
  })

/** What a test fails a transaction with, so that its writes are undone. */
class Rollback extends Data.TaggedError("Rollback")<{}> {}

/**
 * Runs `effect` in a transaction that then fails, and answers whether it
 * failed (it always should), so a test can then check that `effect`'s writes
 * were undone.
 */
export const inFailedTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<boolean, never, R | Transactor.Transactor> =>
  Effect.flatMap(Transactor.Transactor, ({ transaction }) =>
    transaction(Effect.andThen(effect, Effect.fail(new Rollback()))).pipe(Effect.exit, Effect.map(Exit.isFailure)))
