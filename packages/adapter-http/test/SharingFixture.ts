/**
 * What the sharing tests share: a server on a real DuckDB engine and a
 * real SMTP server, a tenant, a workspace, a dataset of 90 orders over
 * three regions (links see every row, embeds their viewer's region) and
 * the report "Sales overview".
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { SmtpServer } from "@analytics/adapter-smtp/testing"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { start } from "@analytics/adapter-http/testing"

/** Where grants are managed. */
export const grantsPath = "/v1/sharing/grants"

/** A view-only, watermarked link to a report for board@example.com, with the password "correct horse battery". */
export const passwordLink = (reportId: string) => ({
  subject_type: "report",
  subject_id: reportId,
  principal_type: "link",
  actions: ["view"],
  watermark: true,
  email: "board@example.com",
  password: "correct horse battery"
})

const regions = ["EU", "US", "APAC"]
const csv = ["region,amount", ...Array.from({ length: 90 }, (_, i) => `${regions[i % 3]},${i + 1}`)].join("\n")

/** Starts the server and arranges the tenant, its data and its report. */
export const setup = Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const server = yield* start(MemoryStores.layer, {
    engines: { upload: DuckDbEngine.layer(":memory:") },
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@analytics.test>" })
  })
  const { tenantId, token: admin } = yield* server.tenant()
  const call = (method: string, path: string, token: string, body?: unknown) => server.request(method, path, { token, body })
  const ok = (method: string, path: string, body?: unknown, token = admin) =>
    Effect.map(call(method, path, token, body), (r) => {
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.body
    })
  const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id as string
  const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } })).dataset_id as string
  const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
  assert.strictEqual(loaded.status, 200, loaded.text)
  const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
  // Links see every row; embeds see their viewer's region.
  yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
    model: {
      ...model,
      row_level_security: [
        { roles: ["admin", "link"], all_rows: true },
        { roles: ["embed"], filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
      ]
    }
  })
  const report = yield* ok("POST", "/v1/reports", {
    workspace_id: workspaceId,
    name: "Sales overview",
    pages: [{
      name: "Overview",
      visuals: [
        { id: "total", type: "kpi", title: "Total", dataset_id: datasetId, query: { measures: ["total_amount"] }, encoding: { value: "total_amount" } },
        { id: "by_region", type: "bar", title: "By region", dataset_id: datasetId, query: { measures: ["total_amount"], dimensions: ["region"], order: [{ member: "region" }] }, encoding: { x: "region", y: ["total_amount"] } }
      ]
    }],
    settings: { query_timeout_seconds: 20 }
  })
  /** A directory user with a personal token. */
  const user = (email: string) =>
    Effect.gen(function*() {
      const created = yield* ok("POST", "/v1/users", { email, name: email.split("@")[0] })
      const issued = yield* ok("POST", `/v1/users/${created.user_id}/tokens`, {})
      return { id: created.user_id as string, token: issued.token as string }
    })
  return { server, smtp, admin, tenantId, call, ok, user, workspaceId, datasetId, reportId: report.report_id as string }
})

