/**
 * A grant's subject id in either case of a UUID (RFC 9562 compares them
 * case-insensitively): created, listed and opened as the same subject. On
 * the in-memory stores, PGlite and PostgreSQL.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

onEveryStore("grant subject ids", (stores) => {
  it.live("an upper-case subject id names the same report: the grant stores it canonical, lists and opens by it", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server } = yield* ExportFixture.setup({ stores: stores(), rowLevelSecurity: [{ roles: ["admin", "link"], all_rows: true }] })
      const upper = reportId.toUpperCase()
      assert.notStrictEqual(upper, reportId)
      const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: upper, principal_type: "link", actions: ["view"] })
      assert.strictEqual(link.subject_id, reportId)
      const listed = yield* ok("GET", `/v1/sharing/grants?subject_type=report&subject_id=${upper}`)
      assert.deepStrictEqual(listed.data.map((g: any) => g.grant_id), [link.grant_id])
      const opened = yield* server.request("GET", new URL(link.link_url).pathname, { headers: { accept: "application/json" } })
      assert.strictEqual(opened.status, 200, opened.text)
      assert.strictEqual(opened.body.report.report_id, reportId)
      // Not a UUID in any case: refused as before.
      const bad = yield* server.request("POST", "/v1/sharing/grants", { token: admin, body: { subject_type: "report", subject_id: `${upper}X`, principal_type: "link", actions: ["view"] } })
      assert.strictEqual(problemCode(bad), "request/invalid")
    }).pipe(Effect.scoped), 60_000)
})
