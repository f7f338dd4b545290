/**
 * A host killed with SIGKILL in the middle of an export, on its default
 * store (PGlite and DuckDB in one data directory): restarted on the same
 * directory, it claims the job again once the dead worker's lease has run
 * out and runs it to completion exactly once: two attempts, one file (the
 * dead run's partial file removed), one `export.succeeded`, delivered to a
 * real HTTPS webhook receiver. Also: a lease too short to renew stops the
 * host at start.
 */
import { Poppler } from "@analytics/testing/documents"
import { Receiver } from "@analytics/testing/webhooks"
import { readdirSync } from "node:fs"
import { basename, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost, download, freePort, healthy, run, settledJob, stop } from "./HostProcess.ts"
import { until } from "./PostgresProbe.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/**
 * A report of 50 pages of 8 visuals over the demo dataset: 400 queries and
 * as many charts and tables, so that its PDF takes seconds to make (about
 * 9 s on a 2-core machine), long enough to be killed in the middle of.
 */
const bigReport = (workspaceId: string, datasetId: string) => ({
  workspace_id: workspaceId,
  name: "Sales book",
  pages: Array.from({ length: 50 }, (_, p) => ({
    name: `Page ${p + 1}`,
    visuals: Array.from({ length: 8 }, (_, v) =>
      v % 2 === 0
        ? {
          id: `daily_${p}_${v}`,
          type: "line",
          title: `Daily revenue ${v / 2 + 1}`,
          dataset_id: datasetId,
          query: { measures: ["revenue"], time_dimensions: [{ dimension: "ordered_at", granularity: "day" }] },
          encoding: { x: "ordered_at__day", y: ["revenue"] }
        }
        : {
          id: `products_${p}_${v}`,
          type: "bar",
          title: `Orders by product ${(v + 1) / 2}`,
          dataset_id: datasetId,
          query: { measures: ["orders"], dimensions: ["product"] },
          encoding: { x: "product", y: ["orders"] }
        })
  }))
})

/** The files of a job in the host's exports directory (results and partial files), relative to it. */
const filesOf = (dataDir: string, jobId: string) =>
  readdirSync(join(dataDir, "exports"), { recursive: true }).map(String).filter((f) => f.includes(jobId) && !f.endsWith(jobId))

describe("exports and a host killed in the middle of one", () => {
  it("kill -9 while a PDF is being written: after the restart the job is claimed again after its lease and succeeds exactly once", async () => {
    const receiver = await Receiver.start()
    cleanups.push(() => receiver.close())
    const { dataDir, environment, host, report, token } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`, {
      ANALYTICS_EXPORT_LEASE_SECONDS: "6",
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? ""
    })
    const hook = await call(host, "POST", "/v1/webhooks", token, { url: receiver.url("/hook"), events: ["export.succeeded", "export.failed"] })
    expect(hook.status).toBe(201)
    const book = await call(host, "POST", "/v1/reports", token, bigReport(report.workspace_id, report.pages[0].visuals[0].dataset_id))
    expect(book.status, JSON.stringify(book.body)).toBe(201)
    const queued = await call(host, "POST", `/v1/reports/${book.body.report_id}/export`, token, { format: "pdf" })
    expect(queued.status).toBe(202)
    const jobId: string = queued.body.job_id
    // Running, and its file half written (a partial file in the job's folder): now the host dies without a word.
    const running = await until("the job to run and its file to be half written", async () => {
      const job = (await call(host, "GET", `/v1/jobs/${jobId}`, token)).body
      if (job.status === "succeeded" || job.status === "failed") throw new Error(`The export finished before the kill: ${JSON.stringify(job)}`)
      const partial = filesOf(dataDir, jobId).some((f) => f.endsWith(".partial"))
      return job.status === "running" && partial ? job : undefined
    }, 60_000)
    expect(running).toMatchObject({ status: "running", attempts: 1, result: null })
    host.process.kill("SIGKILL")
    expect(await host.exited).toBe("SIGKILL")

    // The same data directory, a new process: the job is still running on the dead worker's lease, then claimed again.
    const restarted = run(["serve"], environment)
    cleanups.push(async () => void (await stop(restarted)))
    await healthy(restarted, 120_000)
    const done = await settledJob(restarted, token, jobId, 120_000)
    expect(done).toMatchObject({ status: "succeeded", attempts: 2, percent_complete: 100, error: null })
    expect(new Date(done.started_at).getTime()).toBe(new Date(running.started_at).getTime())

    // One export.succeeded for the job: in the webhook's log, and at the receiver.
    const deliveries = await until("the export.succeeded delivery", async () => {
      const list = (await call(restarted, "GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, token)).body.data
      return list.some((d: any) => d.status === "succeeded") ? list : undefined
    }, 30_000)
    expect(deliveries.map((d: any) => [d.event_type, d.event.data.job_id])).toEqual([["export.succeeded", jobId]])
    const events = receiver.received.map((r) => JSON.parse(r.body))
    expect(events.map((e) => [e.type, e.data.job_id])).toEqual([["export.succeeded", jobId]])

    // One whole file: poppler reads every page of it.
    const { bytes } = await download(restarted, token, jobId)
    expect(bytes.length).toBe(done.result.bytes)
    // Nothing else: the dead run's partial file was removed when the second attempt wrote the key again.
    expect(filesOf(dataDir, jobId).map((f) => basename(f))).toEqual(["Sales_book.pdf"])
    if (Poppler.available) {
      const pdf = Poppler.read(bytes)
      expect(pdf.pages).toBe(51)
      expect(pdf.text).toContain("Page 50")
    }
  }, 300_000)

  it("a lease too short to be renewed stops the host at start with a clear message", async () => {
    const host = run(["serve"], { PORT: String(await freePort()), ANALYTICS_STORE: "memory", ANALYTICS_EXPORT_LEASE_SECONDS: "2" })
    expect(await host.exited).not.toBe(0)
    expect(host.output()).toMatch(/ANALYTICS_EXPORT_LEASE_SECONDS/)
  })
})
