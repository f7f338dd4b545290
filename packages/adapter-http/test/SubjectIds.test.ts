/**
 * A grant's subject id in either case of a UUID (RFC 9562 compares them
 * case-insensitively): created, listed and opened as the same subject. On
 * the in-memory stores, PGlite and PostgreSQL.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/adapter-postgres/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type * as App from "@analytics/adapter-http/App"
import { problemCode } from "@analytics/adapter-http/testing"
import * as ExportFixture from "./ExportFixture.ts"

const suite = (name: string, stores: () => Layer.Layer<App.Stores, unknown>) =>
  describe(`grant subject ids (${name})`, () => {
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

suite("memory", () => MemoryStores.layer)
suite("PGlite", () => SqlStores.layerPglite())
if (databaseUrl === "") {
  describe("grant subject ids (PostgreSQL)", () => {
    it.skip(`on PostgreSQL ${skippedForNoPostgres}`, () => {})
  })
} else {
  suite("PostgreSQL", () => Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url)))))
}
