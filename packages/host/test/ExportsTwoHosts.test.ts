/**
 * Two host processes on one real PostgreSQL, both running the export
 * worker: a batch of exports across two workspaces, queued at once, is
 * shared between them. Each job succeeds exactly once (one attempt, one
 * `export.succeeded` at a real HTTPS receiver), both hosts run some, and
 * no workspace ever has more than two running at once (decision 0015).
 *
 * The data is a table read in place on PostgreSQL (`ANALYTICS_WAREHOUSE_URL`),
 * which both hosts can query; a DuckDB file would serve one process only,
 * so Parquet (written by DuckDB) is not among the formats here.
 *
 * How many jobs each host ran is read from its own metrics
 * (`analytics_export_duration_seconds_count`, served behind a token): an
 * event carries identifiers only, nothing that names the host.
 */
import { Poppler } from "@analytics/testing/documents"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { Receiver } from "@analytics/testing/webhooks"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import JSZip from "jszip"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, download, freePort, freshDatabaseUrl, healthy, type Host, run, settledJob, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** 200,000 orders in `sales.orders` of the warehouse database: four regions, five products, two years. */
const fillWarehouse = (url: string) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    yield* sql`CREATE SCHEMA sales`
    yield* sql`CREATE TABLE sales.orders AS SELECT
        (ARRAY['EU','US','APAC','LATAM'])[1 + i % 4] AS region,
        (ARRAY['Starter','Growth','Scale','Add-on','Support'])[1 + (i / 4) % 5] AS product,
        (i % 97)::int AS amount,
        timestamp '2025-01-01' + (i % 730) * interval '1 day' + (i % 24) * interval '1 hour' AS ordered_at
      FROM generate_series(0, 199999) AS i`
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)

/** A report of 12 pages of 6 visuals: its documents take a second or more to make, its single visuals much less. */
const reportOf = (workspaceId: string, datasetId: string) => ({
  workspace_id: workspaceId,
  name: "Orders book",
  pages: Array.from({ length: 12 }, (_, p) => ({
    name: `Page ${p + 1}`,
    visuals: Array.from({ length: 6 }, (_, v) =>
      v % 2 === 0
        ? {
          id: `monthly_${p}_${v}`,
          type: "line",
          title: `Monthly amount ${v}`,
          dataset_id: datasetId,
          query: { measures: ["total_amount"], time_dimensions: [{ dimension: "ordered_at", granularity: "month" }] },
          encoding: { x: "ordered_at__month", y: ["total_amount"] }
        }
        : {
          id: `by_region_${p}_${v}`,
          type: "bar",
          title: `Orders by region ${v}`,
          dataset_id: datasetId,
          query: { measures: ["count"], dimensions: ["region"], order: [{ member: "region" }] },
          encoding: { x: "region", y: ["count"] }
        })
  }))
})

/**
 * Each workspace's six exports: three documents of the whole report (seconds
 * each), three of one visual (a fraction of a second), long and short in
 * turn. A worker waits for all it claimed before it claims again, so a short
 * job's slot stays free while its long neighbour runs: the other host's next
 * poll (every second) finds it.
 */
const batch = [
  { format: "pdf" },
  { format: "csv", visual_id: "by_region_0_1" },
  { format: "xlsx" },
  { format: "png", visual_id: "by_region_0_1" },
  { format: "pptx" },
  { format: "json", visual_id: "monthly_0_0" }
] as const

/**
 * The most jobs of `jobs` running at one instant, from their start and end
 * times. Overlaps under 100 ms are not counted: a job's times are taken on
 * its host just before the claim and the settle transactions commit, so a
 * claim can be stamped a few milliseconds before a job it waited for ended.
 */
const mostAtOnce = (jobs: ReadonlyArray<{ started_at: string; finished_at: string }>) =>
  Math.max(...jobs.map((job) => {
    const at = new Date(job.started_at).getTime()
    return jobs.filter((other) => new Date(other.started_at).getTime() <= at && new Date(other.finished_at).getTime() > at + 100).length
  }))

describe.skipIf(databaseUrl === "")(`two hosts on one PostgreSQL share the export queue${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("12 exports in two workspaces: each succeeds exactly once, both hosts run some, at most two of a workspace at once", async () => {
    const [storeUrl, warehouseUrl] = await Promise.all([freshDatabaseUrl(cleanups), freshDatabaseUrl(cleanups)])
    await fillWarehouse(warehouseUrl)
    const receiver = await Receiver.start()
    cleanups.push(() => receiver.close())
    // One directory both hosts keep results in, as they would share a volume or a bucket: either serves any file.
    const exportsDir = mkdtempSync(join(tmpdir(), "analytics-exports-"))
    cleanups.push(async () => rmSync(exportsDir, { recursive: true, force: true }))
    const token = `two-hosts-${randomUUID()}`
    const hosts: Array<Host> = []
    // One after the other: the first migrates and creates the tenant, the second finds them.
    for (const name of ["a", "b"]) {
      const port = await freePort()
      const host = run(["serve"], {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANALYTICS_STORE: "postgres",
        DATABASE_URL: storeUrl,
        ANALYTICS_WAREHOUSE_URL: warehouseUrl,
        ANALYTICS_EXPORTS_DIR: exportsDir,
        ANALYTICS_BOOTSTRAP_TOKEN: token,
        ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
        // Scheduled refreshes on one host only, as the README advises.
        ANALYTICS_SCHEDULER: name === "a" ? "true" : "false",
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
        ANALYTICS_METRICS_TOKEN: token,
        LOG_LEVEL: "warn"
      })
      cleanups.push(async () => void (await stop(host)))
      await healthy(host, 60_000)
      hosts.push(host)
    }
    const [a, b] = hosts as [Host, Host]
    const ok = async (host: Host, method: string, path: string, body?: unknown) => {
      const response = await call(host, method, path, token, body)
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
      return response.body
    }
    const hook = await ok(a, "POST", "/v1/webhooks", { url: receiver.url("/hook"), events: ["export.succeeded", "export.failed"] })

    // Two workspaces, each with the warehouse table as a dataset and a report over it; set up through either host.
    const reports: Array<{ workspaceId: string; reportId: string }> = []
    for (const [i, host] of [a, b].entries()) {
      const workspace = await ok(host, "POST", "/v1/workspaces", { name: `Region team ${i + 1}` })
      const dataset = await ok(host, "POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "postgres", schema: "sales", table: "orders" } })
      await ok(host, "PATCH", `/v1/datasets/${dataset.dataset_id}`, { model: { ...dataset.model, row_level_security: [{ roles: ["admin"], all_rows: true }] } })
      const report = await ok(host, "POST", "/v1/reports", reportOf(workspace.workspace_id, dataset.dataset_id))
      reports.push({ workspaceId: workspace.workspace_id, reportId: report.report_id })
    }
    const counts = await ok(a, "POST", `/v1/reports/${reports[0]!.reportId}/visuals/by_region_0_1/query`, {})
    expect(counts.data).toEqual(["APAC", "EU", "LATAM", "US"].map((region) => ({ region, count: 50_000 })))

    // All twelve at once, alternating between the hosts and the workspaces.
    const queued = await Promise.all(batch.flatMap((request, i) =>
      reports.map(async ({ reportId, workspaceId }, w) => {
        const job = await ok((i + w) % 2 === 0 ? a : b, "POST", `/v1/reports/${reportId}/export`, request)
        return { jobId: job.job_id as string, workspaceId, format: request.format }
      })
    ))
    // Each job's final event tells it is done (polling twelve jobs would spend the tenant's request budget).
    await receiver.waitFor(queued.length, 240_000)
    const jobs = await Promise.all(queued.map(async (q) => ({ ...q, job: await settledJob(a, token, q.jobId, 10_000) })))
    for (const { format, job } of jobs) expect(job, format).toMatchObject({ status: "succeeded", attempts: 1, error: null })

    // One export.succeeded per job, no export.failed, each naming its job and file (and no URL).
    const events = receiver.received.map((r) => JSON.parse(r.body))
    expect(events.map((e) => e.type)).toEqual(jobs.map(() => "export.succeeded"))
    expect(events.map((e) => e.data.job_id).sort()).toEqual(jobs.map((j) => j.jobId).sort())
    const deliveries = await ok(b, "GET", `/v1/webhooks/${hook.webhook_id}/deliveries?limit=100`)
    expect(deliveries.data.map((d: any) => d.event.data.job_id).sort()).toEqual(jobs.map((j) => j.jobId).sort())
    for (const event of events) expect(Object.keys(event.data).sort()).toEqual(["bytes", "content_type", "filename", "format", "job_id", "report_id"])
    // Each host's metrics count the jobs it finished.
    const succeededOn = async (host: Host) => {
      const text = await (await fetch(`${host.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
      return text.split("\n")
        .filter((line) => line.startsWith("analytics_export_duration_seconds_count{") && line.includes(`outcome="succeeded"`))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)
    }
    const byHost = [await succeededOn(a), await succeededOn(b)]
    expect(byHost[0]! + byHost[1]!).toBe(jobs.length)
    expect(byHost[0], `host a ran ${byHost[0]}, host b ${byHost[1]}`).toBeGreaterThan(0)
    expect(byHost[1], `host a ran ${byHost[0]}, host b ${byHost[1]}`).toBeGreaterThan(0)

    // The per-workspace bound held across both hosts.
    for (const { workspaceId } of reports) {
      expect(mostAtOnce(jobs.filter((j) => j.workspaceId === workspaceId).map((j) => j.job))).toBeLessThanOrEqual(2)
    }

    // Every file whole, fetched through either host, whichever ran its job (the shared directory).
    for (const { format, job, jobId } of jobs) {
      const { bytes } = await download(a, token, jobId)
      expect((await download(b, token, jobId)).bytes, format).toEqual(bytes)
      expect(bytes.length, format).toBe(job.result.bytes)
      const text = new TextDecoder().decode(bytes)
      if (format === "pdf" && Poppler.available) expect(Poppler.read(bytes).pages).toBe(13)
      if (format === "xlsx") expect(Object.keys((await JSZip.loadAsync(bytes)).files).filter((f) => f.startsWith("xl/worksheets/sheet"))).toHaveLength(73)
      if (format === "pptx") expect(Object.keys((await JSZip.loadAsync(bytes)).files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f))).toHaveLength(73)
      if (format === "png") expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(0)).toBe(0x89504e47)
      if (format === "csv") expect(text.trimEnd().split("\r\n")).toEqual(["region,count", "APAC,50000", "EU,50000", "LATAM,50000", "US,50000"])
      if (format === "json") expect(JSON.parse(text).row_count).toBe(24)
    }
  }, 300_000)
})
