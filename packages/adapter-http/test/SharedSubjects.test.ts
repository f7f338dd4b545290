/**
 * Links and embeds of dashboards, datasets and workspaces (decision 0014: the
 * same primitive for every audience; decision 0014), over real HTTP: each
 * opens as a page and as JSON, shows its content with only the rows its
 * role may see (`link`: EU; `embed`: its token's region), refuses after
 * revoke, and offers no download with view only; with download, a
 * dashboard offers each tile's CSV, a dataset or workspace nothing, and
 * none exports (exports are of a shared report). A workspace's reports and dashboards open within its
 * share; one of another workspace is 404. On the in-memory stores, PGlite
 * and PostgreSQL.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const json = { accept: "application/json" }
const html = { accept: "text/html" }

/** The sum of the orders of a region: order n amounts to n. */
const totalOf = (region: string) =>
  Array.from({ length: 90 }, (_, i) => i + 1).filter((n) => ExportFixture.regions[(n - 1) % 3] === region).reduce((a, b) => a + b, 0)

/** A page offers nothing to take away: no CSV link, no PDF form, no export address. */
const assertNoDownload = (page: string, label: string) => {
  assert.notInclude(page, "/download/", label)
  assert.notInclude(page, "Download", label)
  assert.notInclude(page, "/export", label)
}

onEveryStore("shared dashboards, datasets and workspaces", (stores) => {
  it.live("each opens by link and embed, with its role's rows, no download, and is refused once revoked", () =>
    Effect.gen(function*() {
      const { datasetId, ok, reportId, server, workspaceId } = yield* ExportFixture.setup({
        stores: stores(),
        rowLevelSecurity: [
          { roles: ["admin"], all_rows: true },
          { roles: ["link"], filter: { member: "region", operator: "equals", values: ["EU"] } },
          { roles: ["embed"], filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
        ],
        visuals: (id) => [
          ExportFixture.byRegion(id, { title: "Amount by region" }),
          { id: "total", type: "table", title: "Total amount", dataset_id: id, query: { measures: ["total_amount"] } }
        ]
      })
      // A title and a format the dataset's page shows.
      const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
      yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
        model: {
          ...model,
          dimensions: model.dimensions.map((d: any) => d.name === "region" ? { ...d, title: "Sales region" } : d),
          measures: model.measures.map((m: any) => m.name === "total_amount" ? { ...m, title: "Revenue", format: { type: "currency", currency: "EUR" } } : m)
        }
      })
      // Laid out out of order: "total" right of "regions", "late" below both.
      const dashboard = yield* ok("POST", "/v1/dashboards", {
        workspace_id: workspaceId,
        name: "Executive board",
        tiles: [
          { id: "late", report_id: reportId, visual_id: "total", x: 0, y: 6, width: 24, height: 4 },
          { id: "total_tile", report_id: reportId, visual_id: "total", x: 12, y: 0, width: 12, height: 6 },
          { id: "regions", report_id: reportId, visual_id: "by_region", x: 0, y: 0, width: 12, height: 6 }
        ]
      })
      const other = (yield* ok("POST", "/v1/workspaces", { name: "Elsewhere" })).workspace_id as string
      const otherReport = (yield* ok("POST", "/v1/reports", { workspace_id: other, name: "Not shared", pages: [{ name: "P", visuals: [] }] })).report_id as string
      const otherDashboard = (yield* ok("POST", "/v1/dashboards", { workspace_id: other, name: "Not shared either" })).dashboard_id as string

      const share = (subject_type: string, subject_id: string, principal_type: "link" | "embed", extra: object = {}) =>
        ok("POST", "/v1/sharing/grants", { subject_type, subject_id, principal_type, actions: ["view"], ...extra })
      const pathOf = (grant: any) => new URL(grant.link_url).pathname
      const get = (path: string, headers: Record<string, string>) => server.request("GET", path, { headers })

      // The dashboard: its tiles in the grid's order, each with the link's rows (EU only).
      const dashLink = yield* share("dashboard", dashboard.dashboard_id, "link")
      const dashPath = pathOf(dashLink)
      const dashJson = yield* get(dashPath, json)
      assert.strictEqual(dashJson.status, 200, dashJson.text)
      assert.strictEqual(dashJson.body.dashboard.name, "Executive board")
      assert.deepStrictEqual(dashJson.body.tiles.map((t: any) => t.id), ["regions", "total_tile", "late"])
      assert.deepStrictEqual(dashJson.body.tiles[0].rows, [{ region: "EU", total_amount: totalOf("EU") }])
      assert.deepStrictEqual(dashJson.body.tiles[1].rows, [{ total_amount: totalOf("EU") }])
      assert.isNull(dashJson.body.watermark)
      // Watermarked, the same dashboard is a page only (decision 0014: no JSON view serves its rows).
      const dashWatermarked = pathOf(yield* share("dashboard", dashboard.dashboard_id, "link", { watermark: true, email: "board@example.com" }))
      assert.strictEqual(problemCode(yield* get(dashWatermarked, json)), "auth/forbidden")
      const dashPage = yield* get(dashWatermarked, html)
      assert.strictEqual(dashPage.status, 200)
      assert.match(dashPage.headers.get("content-type") ?? "", /text\/html/)
      assert.include(dashPage.headers.get("content-security-policy"), "default-src 'none'")
      assert.notInclude(dashPage.text, "<script")
      assert.isBelow(dashPage.text.indexOf(`data-tile="regions"`), dashPage.text.indexOf(`data-tile="total_tile"`))
      assert.isBelow(dashPage.text.indexOf(`data-tile="total_tile"`), dashPage.text.indexOf(`data-tile="late"`))
      assert.include(dashPage.text, "Amount by region")
      assert.include(dashPage.text, totalOf("EU").toLocaleString("en-US"))
      assert.notInclude(dashPage.text, "APAC")
      assert.include(dashPage.text, `data-watermark="board@example.com"`)
      assertNoDownload(dashPage.text, "view-only dashboard")

      // The dataset: its model's titles and format, and only the EU rows.
      const dataLink = yield* share("dataset", datasetId, "link")
      const dataPath = pathOf(dataLink)
      const dataJson = yield* get(dataPath, json)
      assert.strictEqual(dataJson.status, 200, dataJson.text)
      assert.strictEqual(dataJson.body.dataset.name, "Orders")
      const revenue = dataJson.body.model.measures.find((m: any) => m.name === "total_amount")
      assert.deepStrictEqual(revenue, { name: "total_amount", title: "Revenue", format: { type: "currency", currency: "EUR" } })
      assert.strictEqual(dataJson.body.model.dimensions.find((d: any) => d.name === "region").title, "Sales region")
      assert.notProperty(dataJson.body.model, "row_level_security")
      const regionsSeen = new Set(dataJson.body.preview.rows.map((r: any) => r.region))
      assert.deepStrictEqual([...regionsSeen], ["EU"])
      assert.isAbove(dataJson.body.preview.rows.length, 0)
      assert.isAtMost(dataJson.body.preview.rows.length, 200)
      const dataPage = yield* get(dataPath, html)
      assert.strictEqual(dataPage.status, 200)
      assert.include(dataPage.text, "Revenue")
      assert.include(dataPage.text, "Sales region")
      assert.include(dataPage.text, "EUR")
      assert.include(dataPage.text, "<td>EU</td>")
      assert.notInclude(dataPage.text, "<td>US</td>")
      assert.notInclude(dataPage.text, "<td>APAC</td>")
      assertNoDownload(dataPage.text, "view-only dataset")

      // The workspace: its reports and dashboards by name, each opening within the share.
      const wsLink = yield* share("workspace", workspaceId, "link")
      const wsPath = pathOf(wsLink)
      const wsJson = yield* get(wsPath, json)
      assert.strictEqual(wsJson.status, 200, wsJson.text)
      assert.strictEqual(wsJson.body.workspace.name, "Sales")
      assert.deepStrictEqual(wsJson.body.reports.map((r: any) => [r.name, r.url]), [["Sales overview", `${wsPath}/reports/${reportId}`]])
      assert.deepStrictEqual(wsJson.body.dashboards.map((d: any) => [d.name, d.url]), [["Executive board", `${wsPath}/dashboards/${dashboard.dashboard_id}`]])
      const wsPage = yield* get(wsPath, html)
      assert.strictEqual(wsPage.status, 200)
      assert.include(wsPage.text, `href="${wsPath}/reports/${reportId}"`)
      assert.include(wsPage.text, `href="${wsPath}/dashboards/${dashboard.dashboard_id}"`)
      assert.include(wsPage.text, "Sales overview")
      assert.notInclude(wsPage.text, "Not shared")
      assertNoDownload(wsPage.text, "view-only workspace")
      const inReport = yield* get(`${wsPath}/reports/${reportId}`, json)
      assert.strictEqual(inReport.status, 200, inReport.text)
      assert.strictEqual(inReport.body.report.report_id, reportId)
      assert.deepStrictEqual(inReport.body.pages[0].visuals[0].rows, [{ region: "EU", total_amount: totalOf("EU") }])
      const inReportPage = yield* get(`${wsPath}/reports/${reportId}`, html)
      assert.include(inReportPage.text, `data-visual="by_region"`)
      assertNoDownload(inReportPage.text, "report within a view-only workspace")
      const inDashboard = yield* get(`${wsPath}/dashboards/${dashboard.dashboard_id}`, json)
      assert.strictEqual(inDashboard.status, 200, inDashboard.text)
      assert.deepStrictEqual(inDashboard.body.tiles.map((t: any) => t.id), ["regions", "total_tile", "late"])
      // Another workspace's report and dashboard, and the paths of a workspace under any other share: 404.
      for (
        const path of [
          `${wsPath}/reports/${otherReport}`,
          `${wsPath}/dashboards/${otherDashboard}`,
          `${dashPath}/reports/${reportId}`,
          `${dataPath}/dashboards/${dashboard.dashboard_id}`
        ]
      ) {
        const refused = yield* get(path, json)
        assert.strictEqual(refused.status, 404, `${path}: ${refused.text}`)
      }

      // Embeds: the token's region, and the paths within a workspace with the token.
      const dataEmbed = yield* share("dataset", datasetId, "embed")
      const usToken = (yield* ok("POST", `/v1/sharing/grants/${dataEmbed.grant_id}/embed-tokens`, { attributes: { region: "US" } })).token as string
      const embedded = yield* get(`/embed?token=${encodeURIComponent(usToken)}`, json)
      assert.strictEqual(embedded.status, 200, embedded.text)
      assert.deepStrictEqual([...new Set(embedded.body.preview.rows.map((r: any) => r.region))], ["US"])
      const embedPage = yield* get(`/embed?token=${encodeURIComponent(usToken)}`, html)
      assert.include(embedPage.text, "<td>US</td>")
      assert.notInclude(embedPage.text, "<td>EU</td>")
      const wsEmbed = yield* share("workspace", workspaceId, "embed")
      const apacToken = (yield* ok("POST", `/v1/sharing/grants/${wsEmbed.grant_id}/embed-tokens`, { attributes: { region: "APAC" } })).token as string
      const q = `?token=${encodeURIComponent(apacToken)}`
      const wsEmbedJson = yield* get(`/embed${q}`, json)
      assert.strictEqual(wsEmbedJson.body.reports[0].url, `/embed/reports/${reportId}${q}`)
      const embeddedReport = yield* get(`/embed/reports/${reportId}${q}`, json)
      assert.deepStrictEqual(embeddedReport.body.pages[0].visuals[0].rows, [{ region: "APAC", total_amount: totalOf("APAC") }])
      const embeddedDashboard = yield* get(`/embed/dashboards/${dashboard.dashboard_id}${q}`, html)
      assert.strictEqual(embeddedDashboard.status, 200)
      assert.include(embeddedDashboard.headers.get("content-security-policy"), "frame-ancestors *")
      assert.strictEqual((yield* get(`/embed/reports/${otherReport}${q}`, json)).status, 404)

      // download on a dashboard: each tile's CSV (the link's rows), no export; a watermarked one offers no rows.
      const dashDownload = yield* share("dashboard", dashboard.dashboard_id, "link", { actions: ["view", "download"] })
      const ddPath = pathOf(dashDownload)
      const ddPage = (yield* get(ddPath, html)).text
      assert.include(ddPage, `href="${ddPath}/download/regions"`)
      assert.notInclude(ddPage, "/export")
      const csv = yield* get(`${ddPath}/download/regions`, {})
      assert.strictEqual(csv.status, 200, csv.text)
      assert.match(csv.headers.get("content-type") ?? "", /text\/csv/)
      assert.strictEqual(csv.text.trim().split(/\r?\n/).slice(1).join("|"), `EU,${totalOf("EU")}`)
      assert.strictEqual((yield* get(`${ddPath}/download/by_region`, json)).status, 404)
      const exported = yield* server.request("POST", `${ddPath}/export`, { headers: json, body: { format: "csv", visual_id: "by_region" } })
      assert.strictEqual(exported.status, 403, exported.text)
      const dashMarked = yield* share("dashboard", dashboard.dashboard_id, "link", { actions: ["view", "download"], watermark: true })
      assertNoDownload((yield* get(pathOf(dashMarked), html)).text, "watermarked dashboard with download")
      assert.strictEqual((yield* get(`${pathOf(dashMarked)}/download/regions`, json)).status, 403)
      // download on a dataset or a workspace: no download control; rows and exports stay with reports and dashboards.
      const dataDownload = yield* share("dataset", datasetId, "link", { actions: ["view", "download"] })
      assertNoDownload((yield* get(pathOf(dataDownload), html)).text, "dataset with download")
      assert.strictEqual((yield* get(`${pathOf(dataDownload)}/download/by_region`, json)).status, 403)
      const wsDownload = yield* share("workspace", workspaceId, "link", { actions: ["view", "download"] })
      assertNoDownload((yield* get(`${pathOf(wsDownload)}/reports/${reportId}`, html)).text, "report within a workspace with download")

      // A password: asked first, as for a report's link.
      const locked = yield* share("dataset", datasetId, "link", { password: "a long secret" })
      assert.strictEqual(problemCode(yield* get(pathOf(locked), json)), "share/password-required")

      // Revoked: the next request is refused, for each subject and within the workspace.
      for (const grant of [dashLink, dataLink, wsLink]) yield* ok("DELETE", `/v1/sharing/grants/${grant.grant_id}`)
      for (const path of [dashPath, dataPath, wsPath, `${wsPath}/reports/${reportId}`, `${wsPath}/dashboards/${dashboard.dashboard_id}`]) {
        const refused = yield* get(path, json)
        assert.strictEqual(refused.status, 403, `${path}: ${refused.text}`)
        assert.strictEqual(problemCode(refused), "share/revoked")
      }
      yield* ok("DELETE", `/v1/sharing/grants/${wsEmbed.grant_id}`)
      assert.strictEqual(problemCode(yield* get(`/embed/reports/${reportId}${q}`, json)), "share/revoked")
    }).pipe(Effect.scoped), 120_000)
})
