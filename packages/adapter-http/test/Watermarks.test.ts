/**
 * Watermarks for every audience (decision 0014), over real HTTP:
 * a member whose download comes from a watermarked team grant exports only
 * what carries the watermark (PDF, PNG), drawn with their own address; a
 * grant without one wins over it. A watermarked link's page offers no row
 * download and its download route refuses. On the in-memory stores, PGlite
 * and PostgreSQL.
 */
import { Documents } from "@analytics/adapter-documents"
import { Poppler } from "@analytics/testing/documents"
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
      // A PDF carries the member's own address.
      const pdf = yield* exportAs({ format: "pdf" })
      assert.strictEqual(pdf.status, 202, pdf.text)
      assert.strictEqual(yield* worker, 1)
      if (Poppler.available) {
        const result = yield* ok("GET", `/v1/jobs/${pdf.body.job_id}/result`, undefined, token)
        const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
        assert.include(Poppler.read(new Uint8Array(bytes)).text, "mira@example.com")
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
})
