/**
 * Watermarks for every audience (decision 0014), over real HTTP:
 * a member whose download comes from a watermarked team grant exports only
 * what carries the watermark (PDF, PNG), drawn with their own address; a
 * grant without one wins over it. A watermarked link's page offers no row
 * download and its download route refuses. What a watermark promises: a
 * watermarked share serves no rows beside what it draws (no JSON view, no
 * "Show data", no viewer script fed the rows, no dataset rows), and the
 * PDF's watermark is outlines that show on the page but are no text
 * `pdftotext` extracts. On the in-memory stores, PGlite and PostgreSQL.
 */
import { Documents } from "@analytics/adapter-documents"
import { Poppler, Raster } from "@analytics/testing/documents"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

onEveryStore("watermarks", (stores) => {
  it.live("a member's watermarked grant: PDF and PNG only, with their address; a link's: no row download", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* ExportFixture.setup({
        stores: stores(),
        renderers: Documents.layer,
        rowLevelSecurity: [{ roles: ["admin", "member", "link"], all_rows: true }]
      })
      const user = yield* ok("POST", "/v1/users", { email: "mira@example.com", name: "Mira", roles: ["member"] })
      const token = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string
      const team = yield* ok("POST", "/v1/teams", { name: "Auditors" })
      yield* ok("POST", `/v1/teams/${team.team_id}/members`, { user_id: user.user_id })
      const grant = yield* ok("POST", "/v1/sharing/grants", {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "team",
        principal_id: team.team_id,
        actions: ["view", "download"],
        watermark: true
      })
      const exportAs = (body: object) => server.request("POST", `/v1/reports/${reportId}/export`, { token, body })

      // Rows cannot carry a watermark: refused, nothing queued.
      for (const format of ["csv", "json", "parquet", "xlsx"]) {
        const refused = yield* exportAs({ format, visual_id: "by_region" })
        assert.strictEqual(problemCode(refused), "export/invalid", `${format}: ${refused.text}`)
        assert.include(refused.body.detail, "watermarked")
      }
      assert.strictEqual(yield* worker, 0)
      // A PDF carries the member's own address, drawn on every page as outlines: seen, not extracted as text.
      const pdf = yield* exportAs({ format: "pdf" })
      assert.strictEqual(pdf.status, 202, pdf.text)
      assert.strictEqual(yield* worker, 1)
      const fileOf = (jobId: string, as?: string) =>
        Effect.gen(function*() {
          const result = yield* ok("GET", `/v1/jobs/${jobId}/result`, undefined, as)
          return new Uint8Array(yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer())))
        })
      const marked = yield* fileOf(pdf.body.job_id, token)
      if (Poppler.available) {
        const text = Poppler.read(marked).text
        assert.notInclude(text.replace(/\s+/g, ""), "mira@example.com", "the watermark is no text")
        assert.include(text, "Overview", "the rest of the text is text")
      }
      if (Raster.available) {
        // The admin's PDF of the same report, unwatermarked: the report's page differs where the watermark is drawn.
        const job = (yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "pdf" })).job_id as string
        assert.strictEqual(yield* worker, 1)
        const plain = yield* fileOf(job)
        assert.isAbove(Raster.differing(Raster.page(marked, 2), Raster.page(plain, 2)), 5_000, "the watermark shows on the page")
        if (process.env.VIEWER_SHOTS !== undefined) Raster.pngFile(marked, 2, `${process.env.VIEWER_SHOTS}/watermarked-member-pdf.png`)
      }
      // A grant without a watermark wins: rows again.
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: user.user_id, actions: ["download"] })
      assert.strictEqual((yield* exportAs({ format: "csv", visual_id: "by_region" })).status, 202)
      assert.strictEqual(yield* worker, 1)
      assert.strictEqual(grant.watermark, true)

      // A watermarked link with download: the page offers the PDF, no rows; the rows' route refuses.
      const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"], watermark: true })
      const path = new URL(link.link_url).pathname
      const page = yield* server.request("GET", path, { headers: { accept: "text/html" } })
      assert.strictEqual(page.status, 200)
      assert.notInclude(page.text, `${path}/download/`)
      assert.include(page.text, `action="${path}/export"`)
      const rows = yield* server.request("GET", `${path}/download/by_region`, { headers: { accept: "application/json" } })
      assert.strictEqual(rows.status, 403, rows.text)
      assert.include(rows.body.detail, "watermarked")
      // Without the watermark, the same link kind offers them.
      const plain = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const plainPath = new URL(plain.link_url).pathname
      assert.include((yield* server.request("GET", plainPath, { headers: { accept: "text/html" } })).text, `${plainPath}/download/by_region`)
      assert.strictEqual((yield* server.request("GET", `${plainPath}/download/by_region`)).status, 200)
    }).pipe(Effect.scoped), 120_000)

  it.live("what a watermark promises: no JSON view, no data behind the charts, no script fed the rows, no dataset rows", () =>
    Effect.gen(function*() {
      const { datasetId, ok, reportId, server, workspaceId } = yield* ExportFixture.setup({
        stores: stores(),
        renderers: Documents.layer,
        rowLevelSecurity: [{ roles: ["admin", "member", "link", "embed"], all_rows: true }],
        visuals: (id) => [ExportFixture.byRegion(id, { title: "By region" }), { id: "detail", type: "table", title: "Detail", dataset_id: id, query: { measures: ["total_amount"], dimensions: ["region"] } }]
      })
      const dashboard = yield* ok("POST", "/v1/dashboards", {
        workspace_id: workspaceId,
        name: "Board",
        tiles: [{ id: "regions", report_id: reportId, visual_id: "by_region", x: 0, y: 0, width: 12, height: 6 }]
      })
      const share = (subject_type: string, subject_id: string, principal_type: "link" | "embed", watermark: boolean) =>
        ok("POST", "/v1/sharing/grants", { subject_type, subject_id, principal_type, actions: ["view", "download"], watermark, ...(watermark && principal_type === "link" ? { email: "board@example.com" } : {}) })
      const linkPath = (grant: any) => new URL(grant.link_url).pathname
      const embedPath = (grant: any) =>
        Effect.map(ok("POST", `/v1/sharing/grants/${grant.grant_id}/embed-tokens`, { attributes: { email: "viewer@partner.example" } }), (minted) =>
          new URL(minted.embed_url ?? /src="([^"]+)"/.exec(minted.iframe)![1]!.replace(/&amp;/g, "&")).pathname + new URL(minted.embed_url ?? /src="([^"]+)"/.exec(minted.iframe)![1]!.replace(/&amp;/g, "&")).search)
      const html = { accept: "text/html" }
      const json = { accept: "application/json" }

      const report = yield* share("report", reportId, "link", true)
      const embed = yield* share("report", reportId, "embed", true)
      for (const path of [linkPath(report), yield* embedPath(embed)]) {
        // The JSON view is refused, saying why.
        const refused = yield* server.request("GET", path, { headers: json })
        assert.strictEqual(refused.status, 403, refused.text)
        assert.strictEqual(problemCode(refused), "auth/forbidden")
        assert.include(refused.body.detail, "watermarked")
        // The page: the chart drawn, under the watermark; no table of its data, no rows for a script.
        const page = yield* server.request("GET", path, { headers: html })
        assert.strictEqual(page.status, 200, page.text)
        assert.include(page.text, `data-watermark="`)
        assert.include(page.text, "<svg")
        assert.notInclude(page.text, "Show data")
        assert.notInclude(page.text, `id="report-data"`)
        assert.notInclude(page.text, "<script")
        assert.notInclude(page.text, "total_amount", "no row's key")
        // The table visual is drawn, as the PDF draws it: what the viewer sees.
        assert.strictEqual(page.text.split("<table").length - 1, 1, "one table: the Detail visual's")
        assert.include(page.text, "Detail")
      }
      // Without a watermark, the same page has the data behind its chart, and a JSON view.
      const plain = yield* share("report", reportId, "link", false)
      const plainPage = yield* server.request("GET", linkPath(plain), { headers: html })
      assert.include(plainPage.text, "Show data")
      assert.strictEqual((yield* server.request("GET", linkPath(plain), { headers: json })).status, 200)

      // A dashboard, a dataset and a workspace: no JSON; the dashboard's tile drawn without its data; the dataset without rows.
      const board = yield* share("dashboard", dashboard.dashboard_id, "link", true)
      const dataset = yield* share("dataset", datasetId, "link", true)
      const workspace = yield* share("workspace", workspaceId, "link", true)
      for (const grant of [board, dataset, workspace]) {
        const refused = yield* server.request("GET", linkPath(grant), { headers: json })
        assert.strictEqual(refused.status, 403, refused.text)
        assert.include(refused.body.detail, "watermarked")
      }
      const boardPage = (yield* server.request("GET", linkPath(board), { headers: html })).text
      assert.include(boardPage, "<svg")
      assert.notInclude(boardPage, "Show data")
      assert.notInclude(boardPage, "<table")
      const datasetPage = (yield* server.request("GET", linkPath(dataset), { headers: html })).text
      assert.notInclude(datasetPage, `class="preview"`)
      assert.include(datasetPage, "watermarked")
      // Within the watermarked workspace, a report has no JSON either.
      const within = `${linkPath(workspace)}/reports/${reportId}`
      assert.strictEqual((yield* server.request("GET", within, { headers: json })).status, 403)
      assert.notInclude((yield* server.request("GET", within, { headers: html })).text, "Show data")
    }).pipe(Effect.scoped), 120_000)
})
