/**
 * API and background work scaled apart on one PostgreSQL: `analytics-host
 * serve` with its three workers off answers the API and leaves an export
 * queued; `analytics-host work` on the same database (no HTTP port) runs
 * it, and the file downloads through the API process.
 */
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, run, settledJob, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.skipIf(databaseUrl === "")(`analytics-host work${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("serve with its workers off plus a work process on one PostgreSQL complete an export requested through the API", async () => {
    const storeUrl = await freshDatabaseUrl(cleanups)
    // One directory both keep results in, as they would share a volume or a bucket.
    const exportsDir = mkdtempSync(join(tmpdir(), "analytics-exports-"))
    cleanups.push(async () => rmSync(exportsDir, { recursive: true, force: true }))
    const token = `work-${randomUUID()}`
    const port = await freePort()
    const shared = {
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANALYTICS_STORE: "postgres",
      DATABASE_URL: storeUrl,
      ANALYTICS_EXPORTS_DIR: exportsDir,
      LOG_LEVEL: "info"
    }
    const api = run(["serve"], {
      ...shared,
      PORT: String(port),
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_DEMO: "1",
      ANALYTICS_EXPORT_WORKER: "0",
      ANALYTICS_WEBHOOK_WORKER: "0",
      ANALYTICS_SCHEDULER: "0"
    })
    cleanups.push(async () => void (await stop(api)))
    await healthy(api, 60_000)
    const [workspace] = (await call(api, "GET", "/v1/workspaces", token)).body.data
    const [report] = (await call(api, "GET", `/v1/reports?workspace_id=${workspace.workspace_id}`, token)).body.data
    const queued = await call(api, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "csv", visual_id: report.pages[0].visuals[0].id })
    expect(queued.status).toBe(202)
    // The API process alone runs no export.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect((await call(api, "GET", `/v1/jobs/${queued.body.job_id}`, token)).body.status).toBe("queued")

    const workPort = await freePort()
    const worker = run(["work"], { ...shared, PORT: String(workPort) })
    cleanups.push(async () => void (await stop(worker)))
    const job = await settledJob(api, token, queued.body.job_id, 60_000)
    expect(job).toMatchObject({ status: "succeeded", attempts: 1 })
    const result = await call(api, "GET", `/v1/jobs/${job.job_id}/result`, token)
    const file = await fetch(result.body.url)
    expect(file.status).toBe(200)
    expect((await file.text()).trim().split("\r\n").length).toBeGreaterThan(1)
    // The worker said what it runs, and opened no HTTP port.
    expect(worker.output()).toContain("Working")
    await expect(fetch(`http://127.0.0.1:${workPort}/healthz`)).rejects.toThrow()
    expect(await stop(worker)).toBe(0)
  }, 180_000)
})
