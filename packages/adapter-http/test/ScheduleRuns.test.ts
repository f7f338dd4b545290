/**
 * A schedule's run history over real HTTP (DuckDB, in-memory stores):
 * `GET /v1/export-schedules/{id}/runs` lists the jobs its runs queued,
 * newest first, one per recipient, in the list envelope with a cursor; its
 * maker's and admins' only (another member's or tenant's schedule is a
 * 404); bad paging is a 400 problem.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

describe("GET /v1/export-schedules/{id}/runs", () => {
  it.live("every run's jobs, newest first, a page at a time, with their recipient and status; for the schedule's maker and admins", () =>
    Effect.gen(function*() {
      const { server, ok, admin, reportId, workspaceId, worker } = yield* ExportFixture.setup({
        visuals: (d) => [ExportFixture.byRegion(d, { type: "table", encoding: { columns: ["region", "total_amount"] } })]
      })
      const user = (email: string) =>
        Effect.gen(function*() {
          const created = yield* ok("POST", "/v1/users", { email, name: email.split("@")[0], roles: ["member"] })
          return { userId: created.user_id as string, token: (yield* ok("POST", `/v1/users/${created.user_id}/tokens`)).token as string }
        })
      const maker = yield* user("maker@example.com")
      const reader = yield* user("reader@example.com")
      const other = yield* user("other@example.com")
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: maker.userId, actions: ["view", "download"] })
      const body = { report_id: reportId, name: "Weekly", cron: "0 8 * * 1", timezone: "UTC", format: "csv", visual_id: "by_region" }
      const schedule = yield* ok("POST", "/v1/export-schedules", { ...body, recipients: ["maker@example.com", "reader@example.com"] }, maker.token)
      const runs = (token: string, query = "", id: string = schedule.schedule_id) => server.request("GET", `/v1/export-schedules/${id}/runs${query}`, { token })

      // No run yet: an empty page.
      const none = yield* runs(maker.token)
      assert.strictEqual(none.status, 200, none.text)
      assert.deepStrictEqual(none.body, { data: [], page: { limit: 50, next_cursor: null, has_more: false } })

      // Two runs sent now: a job per recipient each, run by the worker.
      const first = yield* ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`, undefined, maker.token)
      const second = yield* ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`, undefined, maker.token)
      // The worker takes a workspace's jobs a few at a time: run it until the queue is empty.
      let ran = 0
      for (let n = yield* worker; n > 0; n = yield* worker) ran += n
      assert.strictEqual(ran, 4)
      const all = yield* runs(maker.token)
      assert.strictEqual(all.status, 200, all.text)
      const jobIds = (run: any) => run.deliveries.map((d: any) => d.job_id)
      // Newest first: the second run's jobs, then the first's; within the list by creation time, ties by id
      // (a run's jobs are made one after the other, and may fall in different milliseconds).
      const listed = all.body.data.map((j: any) => j.job_id)
      assert.sameMembers(listed.slice(0, 2), jobIds(second))
      assert.sameMembers(listed.slice(2), jobIds(first))
      const newestFirst = [...all.body.data].sort((a: any, b: any) => b.created_at.localeCompare(a.created_at) || a.job_id.localeCompare(b.job_id))
      assert.deepStrictEqual(listed, newestFirst.map((j: any) => j.job_id))
      for (const job of all.body.data) {
        assert.strictEqual(job.status, "succeeded")
        assert.strictEqual(job.report_id, reportId)
        assert.strictEqual(job.format, "csv")
        assert.include(["maker@example.com", "reader@example.com"], job.recipient)
        assert.isNotNull(job.result)
        assert.notProperty(job, "security")
      }
      // The admin reads it too; it is the job as GET /v1/jobs/{job_id} shows it, with its recipient and how it was mailed.
      const asAdmin = yield* runs(admin)
      assert.deepStrictEqual(asAdmin.body, all.body)
      const { mail, recipient: _, ...job } = all.body.data[0]
      assert.strictEqual(mail, "sent")
      assert.deepStrictEqual(job, (yield* ok("GET", `/v1/jobs/${job.job_id}`)).valueOf())

      // A page at a time: the cursor continues where the last page ended.
      const page1 = yield* runs(maker.token, "?limit=3")
      assert.deepStrictEqual(page1.body.page.has_more, true)
      const page2 = yield* runs(maker.token, `?limit=3&cursor=${encodeURIComponent(page1.body.page.next_cursor)}`)
      assert.deepStrictEqual([...page1.body.data, ...page2.body.data].map((j: any) => j.job_id), all.body.data.map((j: any) => j.job_id))
      assert.deepStrictEqual(page2.body.page, { limit: 3, next_cursor: null, has_more: false })

      // Another member's schedule is as unknown as a missing one; so is it to another tenant.
      for (const token of [other.token, reader.token]) {
        const refused = yield* runs(token)
        assert.strictEqual(refused.status, 404, refused.text)
        assert.strictEqual(problemCode(refused), "resource/not-found")
      }
      const stranger = yield* ExportFixture.provision(server)
      assert.strictEqual(problemCode(yield* runs(stranger.admin)), "resource/not-found")
      assert.strictEqual(problemCode(yield* runs(admin, "", "0190a7e2-0000-7000-8000-000000000000")), "resource/not-found")
      assert.strictEqual(problemCode(yield* runs(admin, "", "not-an-id")), "resource/not-found")
      assert.strictEqual((yield* runs(admin, "?cursor=x")).status, 400)

      // Bad paging is a 400 problem: a limit out of range, a cursor of another list.
      const otherList = (yield* ok("GET", `/v1/export-schedules?workspace_id=${workspaceId}&limit=1`)).page
      for (const query of ["?limit=0", "?limit=x", "?limit=501", "?cursor=%%%", ...(otherList.next_cursor === null ? [] : [`?cursor=${encodeURIComponent(otherList.next_cursor)}`])]) {
        const answer = yield* runs(maker.token, query)
        assert.strictEqual(answer.status, 400, `${query}: ${answer.text}`)
        assert.strictEqual(answer.headers.get("content-type"), "application/problem+json")
      }
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/export-schedules/${schedule.schedule_id}/runs`, {})), "auth/unauthenticated")
    }).pipe(Effect.scoped), 60_000)
})
