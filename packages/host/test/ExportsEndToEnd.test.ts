/**
 * Exports as a new user meets them, on the packaged host with its default
 * store (embedded PGlite on disk, results in the data directory) and the
 * demo data: export a visual of "Sales overview" as CSV and the whole
 * report as an Excel workbook, poll each job until the host's worker has
 * run it, and download the file at its signed URL.
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost, healthy, run, settledJob as finished, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe("exports on the packaged host", () => {
  it("a CSV export of a demo visual runs on the host's worker and downloads at its signed URL", async () => {
    const { dataDir, host, port, report, token } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`)
    const visual = report.pages[0].visuals.find((v: any) => v.type !== "kpi") ?? report.pages[0].visuals[0]
    const queued = await call(host, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "csv", visual_id: visual.id })
    expect(queued.status).toBe(202)
    const job = await finished(host, token, queued.body.job_id)
    expect(job.status).toBe("succeeded")
    const result = await call(host, "GET", `/v1/jobs/${job.job_id}/result`, token)
    expect(result.status).toBe(200)
    expect(result.body.url.startsWith(`http://127.0.0.1:${port}/v1/jobs/${job.job_id}/file?`)).toBe(true)
    const file = await fetch(result.body.url)
    expect(file.status).toBe(200)
    const lines = (await file.text()).trim().split("\r\n")
    expect(lines.length).toBeGreaterThan(1)
    expect(lines[0]!.split(",").length).toBeGreaterThan(1)
    // The file is in the data directory, not in memory: it outlives the process.
    expect(readdirSync(join(dataDir, "exports"), { recursive: true }).some((f) => String(f).endsWith(".csv"))).toBe(true)
    // The whole report as an Excel workbook, from the host's document renderers.
    const queuedWorkbook = (await call(host, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "xlsx" })).body
    const workbook = await finished(host, token, queuedWorkbook.job_id)
    expect(workbook.status).toBe("succeeded")
    const xlsx = await fetch((await call(host, "GET", `/v1/jobs/${workbook.job_id}/result`, token)).body.url)
    expect(xlsx.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    const bytes = new Uint8Array(await xlsx.arrayBuffer())
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04])
    expect(bytes.length).toBeGreaterThan(5_000)
  }, 180_000)

  it("a job queued before a kill -9 is run after the restart: the queue is on disk", async () => {
    // The first process takes requests but runs no exports, then dies without a word.
    const { dataDir, environment, host, report, token } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`, { ANALYTICS_EXPORT_WORKER: "false" })
    const visual = report.pages[0].visuals[0]
    const queued = await call(host, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "json", visual_id: visual.id })
    expect(queued.status).toBe(202)
    host.process.kill("SIGKILL")
    expect(await host.exited).toBe("SIGKILL")
    const restarted = run(["serve"], { ...environment, ANALYTICS_DATA_DIR: dataDir, ANALYTICS_EXPORT_WORKER: "true" })
    cleanups.push(async () => void (await stop(restarted)))
    await healthy(restarted, 120_000)
    const job = await finished(restarted, token, queued.body.job_id)
    expect(job).toMatchObject({ status: "succeeded", attempts: 1 })
    const file = await fetch((await call(restarted, "GET", `/v1/jobs/${job.job_id}/result`, token)).body.url)
    expect((await file.json() as any).visual.id).toBe(visual.id)
  }, 240_000)
})
