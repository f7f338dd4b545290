/**
 * `ANALYTICS_DEMO=1`: the bootstrap tenant's demo workspace, with a sales
 * dataset of 120,000 generated orders (a time dimension, a region
 * dimension with row-level security by region) and the report "Sales
 * overview" (`SampleReport`: four pages, nine visuals, three filters).
 * Seeded once: a tenant that has a workspace already is left as it is.
 *
 * @since 0.1.0
 */
import { AuditLog, Datasets, Pagination, Reports, SampleReport, SampleSales, type Tenant, Workspaces, WorkspaceStore } from "@analytics/core"
import { Effect } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"

/** Seeds the demo into a tenant that has no workspace yet; the dataset and report only when an engine serves uploads. */
export const seed = (tenantId: Tenant.TenantId) =>
  Effect.gen(function*() {
    const existing = yield* (yield* WorkspaceStore.WorkspaceStore).list(tenantId, {
      take: 1,
      sort: Workspaces.defaultSort,
      after: undefined,
      createdAtOrBefore: Pagination.endOfTime
    })
    if (existing.length > 0) return
    const workspace = yield* Workspaces.create(tenantId, { name: "Demo workspace", description: "Sample data to explore the API" })
    if ((yield* Datasets.Engines).bySource.upload === undefined) {
      return yield* Effect.logInfo("Demo workspace created (no engine for uploads: no demo dataset)")
    }
    const dataset = yield* Datasets.create(tenantId, {
      workspace_id: workspace.workspace_id,
      name: "Sales",
      description: "Generated orders, 2025 and 2026",
      source: { type: "upload" },
      model: SampleSales.model
    }, AuditLog.system)
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-demo-"))),
      (d) => Effect.promise(() => Fs.rm(d, { recursive: true, force: true }))
    )
    const file = Path.join(dir, "sales.csv")
    yield* Effect.promise(() => Fs.writeFile(file, SampleSales.csv()))
    yield* Datasets.load(tenantId, dataset.dataset_id, { path: file, format: "csv" })
    yield* Reports.create(tenantId, SampleReport.create(workspace.workspace_id, dataset.dataset_id), AuditLog.system)
    yield* Effect.logInfo("Demo workspace, sales dataset and report created").pipe(
      Effect.annotateLogs({ tenant_id: tenantId, rows: SampleSales.demoRows })
    )
  }).pipe(Effect.scoped)
