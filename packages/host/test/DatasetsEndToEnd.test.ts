/**
 * decision 0013 as a new user meets it, on the packaged host: upload a CSV,
 * describe it, query it over HTTP (row-level security by executive role),
 * build a report, and receive the refresh and alert events at a real HTTPS
 * webhook receiver, signed.
 */
import { until } from "@analytics/testing"
import { Receiver } from "@analytics/testing/webhooks"
import { WebhookSignature } from "@analytics/core"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, healthy, type Host, run, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const upload = async (host: Host, token: string, datasetId: string, csv: string) => {
  const response = await fetch(`${host.url}/v1/datasets/${datasetId}/data`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
    body: csv
  })
  return { status: response.status, body: await response.json() as any }
}

const orders = (count: number) =>
  ["id,region,ordered_at,amount", ...Array.from({ length: count }, (_, i) =>
    `${i},${["EU", "US"][i % 2]},2026-0${1 + (i % 6)}-1${i % 10} 10:00:00,${(i % 10) * 10}`)].join("\n")

describe("datasets on the packaged host", () => {
  it("upload, describe, query with row-level security, build a report, and receive refresh and alert events at an HTTPS webhook", async () => {
    const token = `e2e-${randomUUID()}`
    const receiver = await Receiver.start()
    cleanups.push(() => receiver.close())
    const host = run(["serve"], {
      PORT: String(await freePort()),
      ANALYTICS_STORE: "memory",
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
      LOG_LEVEL: "warn"
    })
    cleanups.push(async () => void (await stop(host)))
    await healthy(host)
    const hook = await call(host, "POST", "/v1/webhooks", token, {
      url: receiver.url("/hook"),
      events: ["dataset.refresh.succeeded", "alert.fire", "alert.resolve"]
    })
    expect(hook.status).toBe(201)
    const workspace = (await call(host, "POST", "/v1/workspaces", token, { name: "Sales" })).body
    const dataset = (await call(host, "POST", "/v1/datasets", token, { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })).body
    const loaded = await upload(host, token, dataset.dataset_id, orders(1_000))
    expect(loaded.status).toBe(200)
    expect(loaded.body.row_count).toBe(1_000)
    // Describe it: the CFO sees every row, anyone else none (no region attribute here).
    const described = await call(host, "PATCH", `/v1/datasets/${dataset.dataset_id}`, token, {
      model: {
        ...loaded.body.model,
        measures: [...loaded.body.model.measures, { name: "average", expression: "total_amount / count" }],
        row_level_security: [{ roles: ["CFO"], all_rows: true }, { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }]
      }
    })
    expect(described.status).toBe(200)
    const query = { measures: ["count", "average"], dimensions: ["region"], order: [{ member: "region" }] }
    const admin = await call(host, "POST", `/v1/datasets/${dataset.dataset_id}/query`, token, query)
    expect(admin.body.data).toEqual([])
    const cfo = (await call(host, "POST", "/v1/executive-roles", token, { name: "CFO" })).body
    const ada = (await call(host, "POST", "/v1/users", token, { email: "ada@example.com", name: "Ada" })).body
    await call(host, "POST", `/v1/executive-roles/${cfo.role_id}/members`, token, { user_id: ada.user_id })
    const adaToken = (await call(host, "POST", `/v1/users/${ada.user_id}/tokens`, token)).body.token
    const asCfo = await call(host, "POST", `/v1/datasets/${dataset.dataset_id}/query`, adaToken, query)
    expect(asCfo.body.data).toEqual([{ region: "EU", count: 500, average: 40 }, { region: "US", count: 500, average: 50 }])
    // A report over it.
    const report = await call(host, "POST", "/v1/reports", token, {
      workspace_id: workspace.workspace_id,
      name: "Orders",
      pages: [{ name: "Overview", visuals: [{ id: "by_region", type: "bar", dataset_id: dataset.dataset_id, query, encoding: { x: "region", y: ["count"] } }] }]
    })
    expect(report.status).toBe(201)
    expect((await call(host, "POST", `/v1/reports/${report.body.report_id}/visuals/by_region/query`, adaToken, {})).body.row_count).toBe(2)
    // An alert: fewer than 500 orders. The next upload has 100: it fires.
    const alert = await call(host, "POST", "/v1/alerts", token, { dataset_id: dataset.dataset_id, name: "Few orders", measure: "count", condition: "lt", threshold: 500 })
    expect(alert.status).toBe(201)
    expect((await upload(host, token, dataset.dataset_id, orders(100))).status).toBe(200)
    const types = () => receiver.received.map((r) => JSON.parse(r.body).type)
    await until(types, (seen) => seen.includes("alert.fire") && seen.filter((t) => t === "dataset.refresh.succeeded").length === 2, { timeoutMillis: 20_000 })
    expect(types().sort()).toEqual(["alert.fire", "dataset.refresh.succeeded", "dataset.refresh.succeeded"])
    const fire = receiver.received.find((r) => JSON.parse(r.body).type === "alert.fire")!
    expect(JSON.parse(fire.body).data).toMatchObject({ alert_id: alert.body.alert_id, value: 100, threshold: 500 })
    // Signed with the webhook's secret, as decision 0010 says.
    const verified = await WebhookSignature.verifyWebhook(fire.body, fire.headers as Record<string, string>, [hook.body.secret])
    expect(verified.timestampSeconds).toBeGreaterThan(0)
  }, 90_000)
})
