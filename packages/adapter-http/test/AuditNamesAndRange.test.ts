/**
 * The audit log names things as they were when it was written (decision
 * 0025), and reads by date range and as CSV (real HTTP, memory and PGlite):
 * a grant's entry keeps its report's and team's names after both are
 * renamed, an export's entries their report's; a file handed out is
 * `export.downloaded`; `from` and `to` narrow the log and its CSV, a bad
 * date is a problem; the CSV streams every entry the filters pass, for
 * tenant admins only.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { everyStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const day = (offset: number) => new Date(Date.now() + offset * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)

for (const [name, stores] of everyStore.slice(0, 2)) {
  it.live(`names at write time, export.downloaded, a date range and CSV (${name})`, () =>
    Effect.gen(function*() {
      const { server, worker } = yield* ExportFixture.serve({ stores: stores() })
      const { token } = yield* server.tenant()
      const as = (who: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        Effect.map(server.request(method, path, { token: who, body, headers }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      const ok = as(token)
      const workspace = yield* ok("POST", "/v1/workspaces", { name: "Sales" })
      const dataset = yield* ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })
      yield* ok("PUT", `/v1/datasets/${dataset.dataset_id}/data`, "region,amount\nEU,1\nUS,2", { "content-type": "text/csv" })
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspace.workspace_id,
        name: "Sales overview",
        pages: [{ name: "Overview", visuals: [ExportFixture.byRegion(dataset.dataset_id)] }]
      })
      const ada = yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Lovelace", roles: ["admin"] })
      const adaToken = (yield* ok("POST", `/v1/users/${ada.user_id}/tokens`)).token
      const team = yield* ok("POST", "/v1/teams", { name: "Finance team" })
      const grant = yield* as(adaToken)("POST", "/v1/sharing/grants", {
        subject_type: "report", subject_id: report.report_id, principal_type: "team", principal_id: team.team_id, actions: ["view"]
      })
      const job = yield* as(adaToken)("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: "by_region" })
      yield* worker
      yield* as(adaToken)("GET", `/v1/jobs/${job.job_id}/result`)
      // Renamed after: the entries still say what they were.
      yield* ok("PATCH", `/v1/reports/${report.report_id}`, { name: "Renamed report" })
      yield* ok("PATCH", `/v1/teams/${team.team_id}`, { name: "Renamed team" })

      const entries: Array<any> = (yield* ok("GET", "/v1/audit-log?limit=200")).data
      const one = (action: string) => entries.find((e) => e.action === action)
      assert.deepInclude(one("grant.created").detail, { grant_id: grant.grant_id, subject_name: "Sales overview", principal_name: "Finance team" })
      assert.deepStrictEqual(one("grant.created").actor, { type: "user", id: ada.user_id })
      assert.deepInclude(one("export.requested").detail, { report_name: "Sales overview" })
      const downloaded = one("export.downloaded")
      assert.deepInclude(downloaded, { target: { type: "job", id: job.job_id }, actor: { type: "user", id: ada.user_id } })
      assert.deepInclude(downloaded.detail, { report_id: report.report_id, report_name: "Sales overview", format: "csv", channel: "token" })
      assert.notInclude(JSON.stringify(downloaded), "signature=")

      // A date range: today holds them all, tomorrow none; a day, an instant, and both ends.
      const count = (query: string) => Effect.map(ok("GET", `/v1/audit-log?limit=200&${query}`), (b) => b.data.length)
      assert.strictEqual(yield* count(`from=${day(0)}`), entries.length)
      assert.strictEqual(yield* count(`from=${day(0)}&to=${day(0)}`), entries.length)
      assert.strictEqual(yield* count(`from=${day(1)}`), 0)
      assert.strictEqual(yield* count(`to=${day(-1)}`), 0)
      const at = one("grant.created").created_at
      assert.isAtLeast(yield* count(`from=${encodeURIComponent(at)}`), 1)
      assert.isAtLeast(yield* count(`to=${encodeURIComponent(at)}&action=grant.created`), 1)
      for (const [query, parameter] of [["from=yesterday", "from"], ["to=2026-02-31", "to"], ["from=2026-13-01", "from"], [`from=${day(1)}&to=${day(0)}`, "to"]] as const) {
        const answer = yield* server.request("GET", `/v1/audit-log?${query}`, { token })
        assert.strictEqual(problemCode(answer), "request/invalid", `${query}: ${answer.text}`)
        assert.include(answer.text, parameter, query)
        assert.strictEqual(problemCode(yield* server.request("GET", `/v1/audit-log/csv?${query}`, { token })), "request/invalid", query)
      }

      // The CSV: a header and one line per entry the filters pass, newest first.
      const csv = yield* server.request("GET", `/v1/audit-log/csv?from=${day(0)}`, { token })
      assert.strictEqual(csv.status, 200, csv.text)
      assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/)
      assert.match(csv.headers.get("content-disposition") ?? "", /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/)
      const lines = csv.text.trimEnd().split("\r\n")
      assert.strictEqual(lines[0], "created_at,action,actor_type,actor_id,target_type,target_id,workspace_id,entry_id,detail")
      // The firehose of the tenant writes entries as they come: the CSV reads those written before it began.
      assert.isAtLeast(lines.length - 1, entries.length)
      assert.include(csv.text, "Sales overview")
      const grants = yield* server.request("GET", "/v1/audit-log/csv?action=grant.created", { token })
      const grantLines = grants.text.trimEnd().split("\r\n")
      assert.strictEqual(grantLines.length, 2)
      assert.include(grantLines[1]!, grant.grant_id)
      assert.include(grantLines[1]!, "Finance team")
      assert.strictEqual((yield* server.request("GET", `/v1/audit-log/csv?from=${day(1)}`, { token })).text.trimEnd().split("\r\n").length, 1)

      // Admins only.
      const member = yield* ok("POST", "/v1/users", { email: "m@example.com", name: "M" })
      const memberToken = (yield* ok("POST", `/v1/users/${member.user_id}/tokens`)).token
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/audit-log/csv", { token: memberToken })), "auth/forbidden")
      const stranger = yield* server.tenant()
      assert.strictEqual((yield* server.request("GET", "/v1/audit-log/csv", { token: stranger.token })).text.trimEnd().split("\r\n").length, 1)
    }).pipe(Effect.scoped), 120_000)
}
