/**
 * Uploads on the PostgreSQL store with no other variable (decision 0013,
 * "Uploads on the PostgreSQL store"): two host processes on one real
 * PostgreSQL, neither with `ANALYTICS_DUCKDB_PATH`. The first seeds the demo
 * (its 120,000 orders loaded into the database itself); a file uploaded
 * through one host is queried through the other; the demo report is queried
 * and exported (CSV and PDF) through the second. Sums of money come back as
 * the exact decimal sums of the file's amounts, with no binary
 * floating-point noise ("Exact numbers and display formats").
 */
import { SampleSales } from "@analytics/core"
import { Poppler } from "@analytics/testing/documents"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
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

/** The exact sum of decimal texts (at most 2 decimals), as the shortest decimal text. */
const exactSum = (amounts: ReadonlyArray<string>): string => {
  const cents = amounts.reduce((sum, amount) => {
    const [whole, fraction = ""] = amount.split(".")
    return sum + BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, "0"))
  }, 0n)
  const text = `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`
  return text.replace(/\.?0+$/, "")
}

/** The demo file's revenue by region, exactly. */
const demoRevenue = () => {
  const byRegion = new Map<string, Array<string>>()
  for (const line of SampleSales.csv().split("\n").slice(1)) {
    const cells = line.split(",")
    const amounts = byRegion.get(cells[2]!) ?? []
    amounts.push(cells[6]!)
    byRegion.set(cells[2]!, amounts)
  }
  return {
    total: exactSum([...byRegion.values()].flat()),
    byRegion: new Map([...byRegion].map(([region, amounts]) => [region, exactSum(amounts)]))
  }
}

describe.skipIf(databaseUrl === "")(`uploads on the PostgreSQL store${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("two hosts, no DuckDB: the demo is seeded, an upload through one is queried through the other, the demo report queried and exported exactly", async () => {
    const url = await freshDatabaseUrl(cleanups)
    const exportsDir = mkdtempSync(join(tmpdir(), "analytics-exports-"))
    cleanups.push(async () => rmSync(exportsDir, { recursive: true, force: true }))
    const token = `uploads-${randomUUID()}`
    const hosts: Array<Host> = []
    // One after the other: the first migrates, creates the tenant and seeds the demo; the second finds them.
    for (let i = 0; i < 2; i++) {
      const port = await freePort()
      const host = run(["serve"], {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANALYTICS_STORE: "postgres",
        DATABASE_URL: url,
        ANALYTICS_BOOTSTRAP_TOKEN: token,
        ANALYTICS_DEMO: "1",
        ANALYTICS_EXPORTS_DIR: exportsDir,
        LOG_LEVEL: "warn"
      })
      cleanups.push(async () => void (await stop(host)))
      await healthy(host, 180_000)
      hosts.push(host)
    }
    const [a, b] = hosts as [Host, Host]
    expect(a.output()).not.toContain("no engine for uploads")

    // The demo, seeded by the first host, served by the second.
    const [workspace] = (await call(b, "GET", "/v1/workspaces", token)).body.data
    // The first host serves while it still loads the demo's rows (a few seconds on PostgreSQL): wait for the load.
    const loadedWithin = Date.now() + 60_000
    let datasets = (await call(b, "GET", `/v1/datasets?workspace_id=${workspace.workspace_id}`, token)).body.data
    while (datasets[0]?.row_count == null && Date.now() < loadedWithin) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      datasets = (await call(b, "GET", `/v1/datasets?workspace_id=${workspace.workspace_id}`, token)).body.data
    }
    expect(datasets.map((d: any) => d.name)).toEqual(["Sales"])
    const sales = datasets[0]
    expect(sales.row_count).toBe(SampleSales.demoRows)
    expect(sales.columns.find((c: any) => c.name === "revenue")).toMatchObject({ type: "number", engine_type: "numeric(18,2)" })
    expect(sales.model.measures.find((m: any) => m.name === "revenue").format).toEqual({ type: "currency", currency: "EUR", decimals: 2 })
    const expected = demoRevenue()
    const answer = await call(b, "POST", `/v1/datasets/${sales.dataset_id}/query`, token, { measures: ["revenue", "orders"], dimensions: ["region"] })
    expect(answer.status).toBe(200)
    expect(answer.body.columns.find((c: any) => c.name === "revenue").format).toEqual({ type: "currency", currency: "EUR", decimals: 2 })
    expect(answer.body.data).toHaveLength(4)
    for (const row of answer.body.data) {
      // The JSON number is the exact decimal sum: its shortest text is the sum's.
      expect(String(row.revenue)).toBe(expected.byRegion.get(row.region))
    }
    const total = await call(a, "POST", `/v1/datasets/${sales.dataset_id}/query`, token, { measures: ["revenue"] })
    expect(String(total.body.data[0].revenue)).toBe(expected.total)

    // A file uploaded through the first host, queried through the second.
    const created = await call(a, "POST", "/v1/datasets", token, { workspace_id: workspace.workspace_id, name: "Invoices", source: { type: "upload" } })
    expect(created.status).toBe(201)
    const amounts = Array.from({ length: 3_000 }, (_, i) => `${(i * 7919) % 100_000}.${String((i * 31) % 100).padStart(2, "0")}`)
    const csv = ["invoice,customer,amount,paid", ...amounts.map((amount, i) => `${i + 1},${["Ada", "Grace", "Linus"][i % 3]},${amount},${i % 2 === 0}`)].join("\n")
    const uploaded = await fetch(`${a.url}/v1/datasets/${created.body.dataset_id}/data`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
      body: csv
    })
    expect(uploaded.status, await uploaded.clone().text()).toBe(200)
    const invoices = (await call(b, "GET", `/v1/datasets/${created.body.dataset_id}`, token)).body
    expect(invoices.row_count).toBe(3_000)
    expect(invoices.columns.map((c: any) => [c.name, c.type])).toEqual([["invoice", "number"], ["customer", "string"], ["amount", "number"], ["paid", "boolean"]])
    const byCustomer = await call(b, "POST", `/v1/datasets/${created.body.dataset_id}/query`, token, {
      measures: ["total_amount", "count"],
      dimensions: ["customer"],
      order: [{ member: "customer" }]
    })
    expect(byCustomer.status).toBe(200)
    expect(byCustomer.body.data).toEqual(["Ada", "Grace", "Linus"].map((customer, c) => ({
      customer,
      total_amount: Number(exactSum(amounts.filter((_, i) => i % 3 === c))),
      count: 1_000
    })))
    for (const row of byCustomer.body.data) expect(String(row.total_amount)).toBe(exactSum(amounts.filter((_, i) => ["Ada", "Grace", "Linus"][i % 3] === row.customer)))

    // The demo report through the second host: a visual, a CSV of it and the whole report as a PDF.
    const [report] = (await call(b, "GET", `/v1/reports?workspace_id=${workspace.workspace_id}`, token)).body.data
    expect(report.name).toBe("Sales overview")
    const visual = await call(b, "POST", `/v1/reports/${report.report_id}/visuals/revenue_by_region/query`, token, {})
    expect(visual.status).toBe(200)
    expect(visual.body.row_count).toBe(4)
    const csvJob = await call(b, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "csv", visual_id: "revenue_by_region" })
    expect(csvJob.status).toBe(202)
    const pdfJob = await call(b, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "pdf" })
    expect(pdfJob.status).toBe(202)
    expect(await settledJob(b, token, csvJob.body.job_id, 60_000)).toMatchObject({ status: "succeeded" })
    expect(await settledJob(b, token, pdfJob.body.job_id, 60_000)).toMatchObject({ status: "succeeded" })
    const exported = new TextDecoder().decode((await download(b, token, csvJob.body.job_id)).bytes).trim().split("\r\n")
    expect(exported[0]).toBe("region,revenue")
    expect(new Map(exported.slice(1).map((line) => line.split(",") as [string, string]))).toEqual(expected.byRegion)
    const pdf = (await download(b, token, pdfJob.body.job_id)).bytes
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe("%PDF-")
    if (Poppler.available) expect(Poppler.read(pdf).text).toContain("Revenue by region")
  }, 300_000)
})
