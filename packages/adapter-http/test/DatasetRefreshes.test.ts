/**
 * A dataset's refresh history over real HTTP (DuckDB, in-memory stores):
 * `GET /v1/datasets/{id}/refreshes` lists each refresh as it ended, newest
 * first with a cursor: what started it and who, its status, rows and
 * duration, and why a failed one failed (as its event says). Tenant admins
 * only; another tenant's dataset is a 404; bad paging a 400 problem.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

describe("GET /v1/datasets/{id}/refreshes", () => {
  it.live("each upload's refresh as it ended, newest first, with who started it, its rows and duration; a failed one says why", () =>
    Effect.gen(function*() {
      const { server, ok, admin, datasetId, reportId } = yield* ExportFixture.setup()
      const upload = (csv: string) => server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      const refreshes = (token: string, query = "", id = datasetId) => server.request("GET", `/v1/datasets/${id}/refreshes${query}`, { token })

      // The fixture loaded the orders once; load three rows, then a file the model no longer fits.
      assert.strictEqual((yield* upload("region,amount\nEU,1\nUS,2\nAPAC,3")).status, 200)
      const refused = yield* upload("colour,size\nred,1")
      assert.isAtLeast(refused.status, 400)
      assert.isBelow(refused.status, 500, refused.text)

      const all = yield* refreshes(admin)
      assert.strictEqual(all.status, 200, all.text)
      assert.deepStrictEqual(all.body.page, { limit: 50, next_cursor: null, has_more: false })
      const [failed, three, ninety] = all.body.data
      assert.strictEqual(all.body.data.length, 3)
      assert.deepInclude(failed, { trigger: "upload", status: "failed", row_count: null })
      assert.strictEqual(failed.error.code, "dataset/model-invalid")
      assert.isString(failed.error.message)
      assert.deepInclude(three, { trigger: "upload", status: "succeeded", row_count: 3, error: null })
      assert.deepInclude(ninety, { trigger: "upload", status: "succeeded", row_count: 90, error: null })
      for (const r of all.body.data) {
        assert.deepStrictEqual(Object.keys(r).sort(), ["duration_ms", "error", "finished_at", "refresh_id", "requested_by", "row_count", "started_at", "status", "trigger"])
        assert.strictEqual(r.requested_by.type, "user")
        assert.isAtLeast(r.duration_ms, 0)
        assert.isAtLeast(Date.parse(r.finished_at), Date.parse(r.started_at))
      }
      assert.isAtLeast(Date.parse(failed.started_at), Date.parse(three.started_at))

      // A page at a time.
      const page1 = yield* refreshes(admin, "?limit=2")
      assert.isTrue(page1.body.page.has_more)
      const page2 = yield* refreshes(admin, `?limit=2&cursor=${encodeURIComponent(page1.body.page.next_cursor)}`)
      assert.deepStrictEqual([...page1.body.data, ...page2.body.data], all.body.data)

      // Tenant admins only: a member is refused; another tenant's dataset, or none, is a 404.
      const user = yield* ok("POST", "/v1/users", { email: "m@example.com", name: "M", roles: ["member"] })
      const member = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string
      assert.strictEqual(problemCode(yield* refreshes(member)), "auth/forbidden")
      const stranger = yield* ExportFixture.provision(server)
      assert.strictEqual(problemCode(yield* refreshes(stranger.admin)), "resource/not-found")
      assert.strictEqual(problemCode(yield* refreshes(admin, "", "0190a7e2-0000-7000-8000-000000000000")), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets/${datasetId}/refreshes`, {})), "auth/unauthenticated")

      // Bad paging is a 400 problem.
      for (const query of ["?limit=0", "?limit=x", "?limit=501", "?cursor=%%%"]) {
        const answer = yield* refreshes(admin, query)
        assert.strictEqual(answer.status, 400, `${query}: ${answer.text}`)
        assert.strictEqual(answer.headers.get("content-type"), "application/problem+json")
      }

      // A deleted dataset's history goes with it (its report first: a dataset in use is not deleted).
      yield* ok("DELETE", `/v1/reports/${reportId}`)
      yield* ok("DELETE", `/v1/datasets/${datasetId}`)
      assert.strictEqual(problemCode(yield* refreshes(admin)), "resource/not-found")
    }).pipe(Effect.scoped), 60_000)
})
