/**
 * What the dataset, report, dashboard and alert handlers share: the stores and engines,
 * and the per-workspace query slots.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { AlertStore, type AnalyticsEngine, AuditLog, Cursor, DashboardStore, DatasetStore, Datasets, DirectoryStore, EventPublisher, GrantStore, Limiter, OperationLimits, Plan, ReportStore, type SqlCompiler, type Tenant, TenantCache, Transactor, WorkspaceStore } from "@analytics/core"
import { Duration, Effect } from "effect"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { captured } from "./Handling.ts"

/** What the dataset and report handlers need: the stores and engines, and the per-workspace query slots. */
export const analyticsTools = Effect.gen(function*() {
  const provide = yield* captured(
    DatasetStore.DatasetStore,
    ReportStore.ReportStore,
    AlertStore.AlertStore,
    DashboardStore.DashboardStore,
    Transactor.Transactor,
    WorkspaceStore.WorkspaceStore,
    DirectoryStore.DirectoryStore,
    GrantStore.GrantStore,
    Datasets.Engines,
    EventPublisher.EventPublisher,
    AuditLog.AuditStore,
    Cursor.CursorCodec
  )
  const tenants = yield* TenantCache.TenantCache
  const limiter = yield* Limiter.Limiter
  type Services =
    | DatasetStore.DatasetStore
    | ReportStore.ReportStore
    | AlertStore.AlertStore
    | DashboardStore.DashboardStore
    | Transactor.Transactor
    | WorkspaceStore.WorkspaceStore
    | DirectoryStore.DirectoryStore
    | GrantStore.GrantStore
    | Datasets.Engines
    | EventPublisher.EventPublisher
    | AuditLog.AuditStore
    | Cursor.CursorCodec
  /** Runs a use case, its errors as problems. */
  const run = <A, E extends DomainError>(effect: Effect.Effect<A, E, Services>) => Effect.mapError(provide(effect), toProblem)
  // A query's slot outlives its timeout only if the process dies holding it.
  const slotLease = Duration.toMillis(Datasets.defaultQueryTimeout) + 30_000
  /**
   * Runs `effect` (a query, or a view running several) in a slot of its
   * workspace, at most the tenant's plan's concurrent queries (decision
   * 0009); a full workspace is a 429 `rate-limit/query-concurrency`.
   */
  const inSlot = <A, E>(tenantId: Tenant.TenantId, workspaceId: string, effect: Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const tenant = yield* run(tenants.get(tenantId))
      const capacity = tenant === undefined ? 1 : Plan.limitsFor(tenant.plan, tenant.limits).queryConcurrency
      return yield* limiter.withSlot(OperationLimits.queryConcurrency(workspaceId, capacity), slotLease)(effect).pipe(
        Effect.mapError((error): E | Problems.QueryConcurrency =>
          error instanceof Limiter.RateLimited
            ? toProblem(error as Limiter.RateLimitedWith<"rate-limit/query-concurrency">)
            : error as E
        )
      )
    })
  /** Runs a query (a dataset's, a visual's, a tile's) in a slot of its workspace (`inSlot`); answers its columns and rows. */
  const queryResult = <E>(
    tenantId: Tenant.TenantId,
    workspaceId: string,
    query: Effect.Effect<{ readonly compiled: SqlCompiler.Compiled; readonly rows: ReadonlyArray<AnalyticsEngine.Row> }, E>
  ) =>
    Effect.map(inSlot(tenantId, workspaceId, query), ({ compiled, rows }) => ({ columns: compiled.columns, data: rows, row_count: rows.length }))
  return { run, inSlot, queryResult }
})
