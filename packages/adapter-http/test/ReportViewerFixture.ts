/**
 * The demo report served with its viewer, for the viewer's tests: a
 * server with the built viewer (`@analytics/viewer/assets`), a tenant, the
 * sample sales (3,000 orders, `SampleSales`) and core's `SampleReport` over
 * them; links and embeds see every row (an embed's locked region narrows it).
 */
import { Mailer, SampleReport, SampleSales } from "@analytics/core"
import * as Viewer from "@analytics/viewer/assets"
import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ViewerAssets } from "../src/routes/ViewerAssets.ts"
import * as ExportFixture from "./ExportFixture.ts"

/** Where grants are managed. */
export const grantsPath = "/v1/sharing/grants"

/** How many orders the dataset holds. */
export const orders = 3_000

/**
 * Starts the server with the viewer (and `options`: renderers, a mailer…) and arranges the demo report;
 * `embedsSeeAll: false` keeps the demo's model as the host seeds it (an embed sees the rows of its `region` attribute).
 */
export const setupWith = (options: ExportFixture.ServeOptions, embedsSeeAll = true) => Effect.gen(function*() {
  // Unless the test brings its own mailer, mails are kept, so it can sign its people in by their e-mailed links.
  const memory = Mailer.makeMemory()
  const fixture = yield* ExportFixture.serve({
    mailer: Layer.succeed(Mailer.Mailer, memory.mailer),
    ...options,
    server: { ...options.server, viewerAssets: ViewerAssets.layer(Viewer.load()) }
  })
  const { server } = fixture
  const tenant = yield* ExportFixture.provision(server)
  const { admin, ok } = tenant
  const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Demo" })).workspace_id as string
  const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Sales", source: { type: "upload" } })).dataset_id as string
  const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: SampleSales.csv(orders), headers: { "content-type": "text/csv" } })
  assert.strictEqual(loaded.status, 200, loaded.text)
  const model = SampleSales.model
  yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
    model: embedsSeeAll ? { ...model, row_level_security: [...(model.row_level_security ?? []), { roles: ["embed"], all_rows: true }] } : model
  })
  const report = yield* ok("POST", "/v1/reports", SampleReport.create(workspaceId as never, datasetId as never))
  return { ...fixture, ...tenant, mails: memory.sent, workspaceId, datasetId, reportId: report.report_id as string }
})

/** Starts the server with the viewer and arranges the demo report. */
export const setup = setupWith({})

/** The demo as the host seeds it: an embed's viewer sees only the rows of their `region` attribute. */
export const setupDemo = setupWith({}, false)

/** The body of `POST /v1/dashboards` for the demo's "Executive" dashboard: three tiles of the report's visuals. */
export const executiveDashboard = (workspaceId: string, reportId: string) => ({
  workspace_id: workspaceId,
  name: "Executive",
  tiles: [
    { id: "total", report_id: reportId, visual_id: "revenue_total", x: 0, y: 0, width: 8, height: 3 },
    { id: "regions", report_id: reportId, visual_id: "revenue_by_region", x: 8, y: 0, width: 16, height: 6 },
    { id: "products", report_id: reportId, visual_id: "products", x: 0, y: 6, width: 24, height: 6 }
  ]
})
