/**
 * Scheduled exports over real HTTP, on a real DuckDB engine, mailed through
 * a real SMTP server: bad schedules are refused with problems and change
 * nothing; a schedule's next run is its cron's next time in its zone; a
 * run (sent now, or by the scheduler when its time comes) queues a job per
 * recipient that runs as that recipient, so each mailbox receives the rows
 * its owner sees live; an address that is no user gets the view of the
 * schedule's run_as user (or, without row-level security, every row); a
 * deprovisioned recipient is skipped; without a mail service the message
 * is logged whole and the run says logged, not sent; members manage
 * only their own schedules; many schedules firing at once wait in their
 * workspace's queue without holding up another workspace's export.
 */
import { SmtpMailer } from "@analytics/adapter-smtp"
import { SmtpServer } from "@analytics/testing/smtp"
import { ExportJob, ExportSchedules, ExportStore, Mailer, type Tenant } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import type * as App from "../src/App.ts"
import { Clock, Context, Effect, type Layer, Logger } from "effect"
import { simpleParser } from "mailparser"
import { problemCode } from "@analytics/testing/http"
import { everyStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

/** Each region's total, computed here from the rows uploaded. */
const totalOf = (region: string) =>
  Array.from({ length: 90 }, (_, i) => i + 1).filter((n) => ExportFixture.regions[(n - 1) % 3] === region).reduce((a, b) => a + b, 0)

/** The sales overview on `stores` (memory by default), its leads, the worker, the scheduler and a real SMTP server's mailbox. */
const setupOn = (stores?: Layer.Layer<App.Stores, unknown>) => Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const { admin, datasetId, ok, reportId, server, tenantId, workspaceId: sales, worker } = yield* ExportFixture.setup({
    stores,
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@example.com>" }),
    // Leads see their region's rows, by their executive role as the directory has it.
    rowLevelSecurity: [
      { roles: ["admin"], all_rows: true },
      { roles: ["EU Lead"], filter: { member: "region", operator: "equals", values: ["EU"] } },
      { roles: ["US Lead"], filter: { member: "region", operator: "equals", values: ["US"] } }
    ],
    visuals: (datasetId) => [ExportFixture.byRegion(datasetId, { type: "table", encoding: { columns: ["region", "total_amount"] } })]
  })
  /** A user of the tenant in an executive role, with a personal token. */
  const lead = (email: string, role: string) =>
    Effect.gen(function*() {
      const user = yield* ok("POST", "/v1/users", { email, name: email.split("@")[0], roles: ["member"] })
      const group = yield* ok("POST", "/v1/executive-roles", { name: role })
      yield* ok("POST", `/v1/executive-roles/${group.role_id}/members`, { user_id: user.user_id })
      const token = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string
      return { userId: user.user_id as string, token }
    })
  const live = yield* Clock.Clock
  /** Runs `effect` as if it were `at` (and time went on from there). */
  const asOf = (at: Date) => Effect.provideService(Clock.Clock, ExportFixture.shifted(live, at.getTime() - live.currentTimeMillisUnsafe()))
  /** The scheduler's tick, as if it were `at`. */
  const tick = (at: Date) => ExportSchedules.runDue.pipe(Effect.provideContext(server.stores), asOf(at))
  /** Every message received so far, parsed: who it went to and the CSV it carries. */
  const mailbox = Effect.promise(() =>
    Promise.all(smtp.received.map(async (message) => {
      const parsed = await simpleParser(message.raw)
      const attachment = parsed.attachments[0]
      return { to: message.to, subject: parsed.subject ?? "", text: parsed.text ?? "", filename: attachment?.filename, csv: attachment?.content.toString("utf8") }
    })))
  return { server, tenantId, admin, ok, sales, reportId, datasetId, lead, worker, asOf, tick, mailbox }
})
const setup = setupOn()

describe("export schedules", () => {
  it.live("bad schedules are refused with problems and change nothing", () =>
    Effect.gen(function*() {
      const { admin, lead, ok, reportId, sales, server } = yield* setup
      yield* lead("ada@example.com", "EU Lead")
      const valid = { report_id: reportId, name: "Weekly EU", cron: "0 8 * * 1", timezone: "Europe/Paris", format: "csv", visual_id: "by_region", recipients: ["ada@example.com"] }
      const create = (body: unknown) => server.request("POST", "/v1/export-schedules", { token: admin, body })
      const refused = [
        [{ ...valid, cron: "every monday" }, "request/invalid"],
        [{ ...valid, cron: "*/5 * * * * *" }, "request/invalid"],
        [{ ...valid, timezone: "Mars/Olympus" }, "request/invalid"],
        [{ ...valid, recipients: [] }, "request/invalid"],
        [{ ...valid, recipients: ["ada@example.com", "ADA@example.com"] }, "request/invalid"],
        [{ ...valid, recipients: ["not-an-address"] }, "request/invalid"],
        [{ ...valid, recipients: ["stranger@example.com"] }, "schedule/invalid"],
        [{ ...valid, visual_id: undefined }, "export/invalid"],
        [{ ...valid, visual_id: "nope" }, "export/invalid"],
        [{ ...valid, format: "docx" }, "request/invalid"],
        [{ ...valid, report_id: crypto.randomUUID() }, "resource/not-found"],
        [{ ...valid, extra: true }, "request/invalid"]
      ] as const
      for (const [body, code] of refused) {
        const response = yield* create(body)
        assert.strictEqual(response.headers.get("content-type"), "application/problem+json", JSON.stringify(body))
        assert.strictEqual(problemCode(response), code, `${JSON.stringify(body)}: ${response.text}`)
      }
      const stranger = yield* create({ ...valid, recipients: ["stranger@example.com"] })
      assert.include(stranger.body.detail, "stranger@example.com")
      assert.deepStrictEqual((yield* ok("GET", `/v1/export-schedules?workspace_id=${sales}`)).data, [])
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/export-schedules/${crypto.randomUUID()}`, { token: admin })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/export-schedules/not-a-uuid", { token: admin })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/export-schedules/${crypto.randomUUID()}/send-now`, { token: admin })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/export-schedules", { token: admin })), "request/invalid", "workspace_id is required")
    }).pipe(Effect.scoped))

  it.live("each recipient receives by mail the rows they see live; a deprovisioned one is skipped; the scheduler runs a schedule once per occurrence", () =>
    Effect.gen(function*() {
      const { admin, asOf, lead, mailbox, ok, reportId, sales, server, tick, worker } = yield* setup
      const ada = yield* lead("ada@example.com", "EU Lead")
      const grace = yield* lead("grace@example.com", "US Lead")
      const created = yield* server.request("POST", "/v1/export-schedules", {
        token: admin,
        body: { report_id: reportId, name: "Weekly by region", cron: "0 8 * * 1", timezone: "Europe/Paris", format: "csv", visual_id: "by_region", recipients: ["Ada@Example.com", "grace@example.com"] }
      })
      assert.strictEqual(created.status, 201, created.text)
      const schedule = created.body
      assert.deepInclude(schedule, { workspace_id: sales, format: "csv", visual_id: "by_region", enabled: true, last_run: null, recipients: ["ada@example.com", "grace@example.com"] })
      // Its next run is the coming Monday, 08:00 in Paris.
      const next = new Date(schedule.next_run_at)
      const paris = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Paris", weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false })
      assert.strictEqual(paris.format(next), "Mon 08:00")
      assert.isAbove(next.getTime(), Date.now())
      assert.isAtMost(next.getTime() - Date.now(), 7 * 24 * 3_600_000)

      // Sent now: a job per recipient, each mailed their own region's total.
      const sent = yield* server.request("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`, { token: admin })
      assert.strictEqual(sent.status, 202, sent.text)
      assert.strictEqual(sent.body.trigger, "send_now")
      assert.deepStrictEqual(sent.body.deliveries.map((d: any) => [d.recipient, typeof d.job_id]), [["ada@example.com", "string"], ["grace@example.com", "string"]])
      assert.strictEqual(yield* worker, 2)
      for (const delivery of sent.body.deliveries) {
        assert.strictEqual((yield* ok("GET", `/v1/jobs/${delivery.job_id}`)).status, "succeeded")
      }
      const mails = yield* mailbox
      const to = (email: string) => mails.filter((m) => m.to.includes(email))
      assert.lengthOf(mails, 2)
      assert.deepStrictEqual(to("ada@example.com").map((m) => m.csv), [`region,total_amount\r\nEU,${totalOf("EU")}\r\n`])
      assert.deepStrictEqual(to("grace@example.com").map((m) => m.csv), [`region,total_amount\r\nUS,${totalOf("US")}\r\n`])
      assert.strictEqual(to("ada@example.com")[0]!.filename, "by_region.csv")
      assert.strictEqual(to("ada@example.com")[0]!.subject, "Weekly by region: by_region.csv")
      assert.include(to("ada@example.com")[0]!.text, "/v1/jobs/")
      // The history says they were sent (handed to the mail service).
      const history = yield* ok("GET", `/v1/export-schedules/${schedule.schedule_id}/runs`)
      assert.deepStrictEqual(history.data.map((r: any) => [r.status, r.mail]), [["succeeded", "sent"], ["succeeded", "sent"]])
      // Its next run did not move; its last run is recorded.
      const after = yield* ok("GET", `/v1/export-schedules/${schedule.schedule_id}`)
      assert.strictEqual(after.next_run_at, schedule.next_run_at)
      assert.strictEqual(after.last_run.trigger, "send_now")
      // Ada is made US Lead too: from the next run she sees both regions (the directory is read at each run).
      const us = (yield* ok("GET", "/v1/executive-roles")).data.find((r: any) => r.name === "US Lead")
      yield* ok("POST", `/v1/executive-roles/${us.role_id}/members`, { user_id: ada.userId })
      // Grace is deprovisioned: skipped, with the reason.
      yield* ok("PATCH", `/v1/users/${grace.userId}`, { status: "deprovisioned" })

      // Not due yet: the scheduler leaves it.
      assert.strictEqual(yield* tick(new Date(next.getTime() - 1_000)), 0)
      // Due: it runs once, and moves to the Monday after.
      assert.strictEqual(yield* tick(new Date(next.getTime() + 1_000)), 1)
      assert.strictEqual(yield* tick(new Date(next.getTime() + 2_000)), 0)
      const ran = yield* ok("GET", `/v1/export-schedules/${schedule.schedule_id}`)
      assert.strictEqual(ran.last_run.trigger, "schedule")
      assert.deepStrictEqual(ran.last_run.deliveries.find((d: any) => d.recipient === "grace@example.com"), { recipient: "grace@example.com", skipped: "Not an active user of the tenant" })
      assert.strictEqual(new Date(ran.next_run_at).getTime() - next.getTime(), 7 * 24 * 3_600_000)
      assert.strictEqual(yield* worker.pipe(asOf(new Date(next.getTime() + 3_000))), 1)
      const adas = (yield* mailbox).filter((m) => m.to.includes("ada@example.com"))
      assert.lengthOf(adas, 2)
      assert.strictEqual(adas[1]!.csv, `region,total_amount\r\nEU,${totalOf("EU")}\r\nUS,${totalOf("US")}\r\n`)

      // Disabled: no next run, and the scheduler never takes it.
      const paused = yield* ok("PATCH", `/v1/export-schedules/${schedule.schedule_id}`, { enabled: false })
      assert.isNull(paused.next_run_at)
      assert.strictEqual(yield* tick(new Date(next.getTime() + 30 * 24 * 3_600_000)), 0)
      // Members manage their own schedules only; the admin's is none of Ada's business.
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/export-schedules/${schedule.schedule_id}`, { token: ada.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/export-schedules?workspace_id=${sales}`, { token: ada.token })), "auth/forbidden")
      assert.strictEqual((yield* server.request("DELETE", `/v1/export-schedules/${schedule.schedule_id}`, { token: admin })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/export-schedules/${schedule.schedule_id}`, { token: admin })), "resource/not-found")
    }).pipe(Effect.scoped))

  for (const [name, stores] of everyStore) {
    it.live(`a distribution list beyond the tenant (${name}): outside addresses get run_as's view; refused without one under row-level security`, () =>
      Effect.gen(function*() {
        const { admin, datasetId, lead, mailbox, ok, reportId, server, worker } = yield* setupOn(stores())
        const ada = yield* lead("ada@example.com", "EU Lead")
        const grace = yield* lead("grace@example.com", "US Lead")
        const base = { report_id: reportId, name: "Board pack", cron: "0 8 * * 1", format: "csv", visual_id: "by_region" }
        const create = (body: object, token = admin) => server.request("POST", "/v1/export-schedules", { token, body: { ...base, ...body } })
        // Under row-level security an outside address needs run_as.
        const without = yield* create({ recipients: ["board@partner.example"] })
        assert.strictEqual(problemCode(without), "schedule/invalid", without.text)
        assert.include(without.body.detail, "run_as")
        assert.strictEqual(problemCode(yield* create({ recipients: ["board@partner.example"], run_as: crypto.randomUUID() })), "schedule/invalid")
        // A member names only themselves.
        yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: ada.userId, actions: ["view", "download"] })
        const asGrace = yield* create({ recipients: ["board@partner.example"], run_as: grace.userId }, ada.token)
        assert.strictEqual(problemCode(asGrace), "schedule/invalid", asGrace.text)
        const mine = yield* create({ recipients: ["board@partner.example", "grace@example.com"], run_as: ada.userId }, ada.token)
        assert.strictEqual(mine.status, 201, mine.text)
        assert.strictEqual(mine.body.run_as, ada.userId)

        // The outside address gets Ada's rows; Grace, a user, her own.
        const sent = yield* ok("POST", `/v1/export-schedules/${mine.body.schedule_id}/send-now`, undefined, ada.token)
        assert.deepStrictEqual(sent.deliveries.map((d: any) => [d.recipient, typeof d.job_id]), [["board@partner.example", "string"], ["grace@example.com", "string"]])
        assert.strictEqual(yield* worker, 2)
        const mails = yield* mailbox
        assert.deepStrictEqual(mails.filter((m) => m.to.includes("board@partner.example")).map((m) => m.csv), [`region,total_amount\r\nEU,${totalOf("EU")}\r\n`])
        assert.deepStrictEqual(mails.filter((m) => m.to.includes("grace@example.com")).map((m) => m.csv), [`region,total_amount\r\nUS,${totalOf("US")}\r\n`])

        // Ada deprovisioned: her own schedule stops (decision 0018); an admin's naming her skips the outside address with the reason.
        const admins = yield* ok("POST", "/v1/export-schedules", { ...base, name: "Admin's board pack", recipients: ["board@partner.example"], run_as: ada.userId })
        yield* ok("PATCH", `/v1/users/${ada.userId}`, { status: "deprovisioned" })
        assert.strictEqual((yield* ok("GET", `/v1/export-schedules/${mine.body.schedule_id}`)).enabled, false)
        const skipped = yield* ok("POST", `/v1/export-schedules/${admins.schedule_id}/send-now`)
        assert.deepStrictEqual(skipped.deliveries, [{ recipient: "board@partner.example", skipped: "Not a user of the tenant, and the schedule's run_as user is no longer active" }])

        // Without row-level security, an outside address needs no run_as and gets every row.
        const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
        yield* ok("PATCH", `/v1/datasets/${datasetId}`, { model: { ...model, row_level_security: [] } })
        const open = yield* create({ recipients: ["press@partner.example"] })
        assert.strictEqual(open.status, 201, open.text)
        assert.isNull(open.body.run_as)
        yield* ok("POST", `/v1/export-schedules/${open.body.schedule_id}/send-now`)
        assert.strictEqual(yield* worker, 1)
        const press = (yield* mailbox).filter((m) => m.to.includes("press@partner.example"))
        assert.deepStrictEqual(press.map((m) => m.csv), [`region,total_amount\r\nAPAC,${totalOf("APAC")}\r\nEU,${totalOf("EU")}\r\nUS,${totalOf("US")}\r\n`])
      }).pipe(Effect.scoped), 60_000)
  }
  if (databaseUrl === "") it.skip(`a distribution list beyond the tenant (PostgreSQL) ${skippedForNoPostgres}`, () => {})

  it.live("without a mail service, a send-now's file is logged (the whole message, its link included), and its run says logged, not sent", () =>
    Effect.gen(function*() {
      const { ok, reportId, worker } = yield* ExportFixture.setup({
        mailer: Mailer.Mailer.layerLog,
        visuals: (datasetId) => [ExportFixture.byRegion(datasetId, { type: "table", encoding: { columns: ["region", "total_amount"] } })]
      })
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada", roles: ["member"] })
      const schedule = yield* ok("POST", "/v1/export-schedules", {
        report_id: reportId, name: "Weekly by region", cron: "0 8 * * 1", format: "csv", visual_id: "by_region", recipients: ["ada@example.com"]
      })
      const sent = yield* ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`)
      const logs: Array<{ level: string; message: string }> = []
      const capture = Logger.layer([Logger.make((options) => void logs.push({ level: options.logLevel, message: String(options.message) }))], { mergeWithExisting: true })
      assert.strictEqual(yield* worker.pipe(Effect.provide(capture)), 1)
      // The job made its file, but nobody received it: the history says so.
      const history = yield* ok("GET", `/v1/export-schedules/${schedule.schedule_id}/runs`)
      assert.deepStrictEqual(history.data.map((r: any) => [r.recipient, r.status, r.mail]), [["ada@example.com", "succeeded", "logged"]])
      // The log holds the whole message, marked as not sent, at info level: its link works.
      const logged = logs.filter((l) => l.message.startsWith("Mail not sent (no mail service is configured): to ada@example.com"))
      assert.lengthOf(logged, 1, JSON.stringify(logs))
      assert.strictEqual(logged[0]!.level, "Info")
      assert.include(logged[0]!.message, "subject \"Weekly by region: by_region.csv\"")
      assert.include(logged[0]!.message, `/v1/jobs/${sent.deliveries[0].job_id}/file?`)
      assert.include(logged[0]!.message, "[attachment by_region.csv, text/csv; charset=utf-8, ")
      assert.notInclude(logged[0]!.message, "region,total_amount", "an attachment's content is not logged")
    }).pipe(Effect.scoped))

  it.live("many schedules firing at once wait in their workspace's queue; another workspace's export is not held up", () =>
    Effect.gen(function*() {
      const { admin, lead, ok, reportId, sales, server, tenantId, tick } = yield* setup
      yield* lead("ada@example.com", "EU Lead")
      const nextRuns: Array<string> = []
      for (let i = 0; i < 12; i++) {
        const s = yield* ok("POST", "/v1/export-schedules", { report_id: reportId, name: `Daily ${i}`, cron: "0 6 * * *", format: "csv", visual_id: "by_region", recipients: ["ada@example.com"] })
        nextRuns.push(s.next_run_at)
      }
      // Another workspace has a report too.
      const other = (yield* ok("POST", "/v1/workspaces", { name: "Marketing" })).workspace_id
      const dataset = (yield* ok("POST", "/v1/datasets", { workspace_id: other, name: "Leads", source: { type: "upload" } })).dataset_id
      assert.strictEqual((yield* server.request("PUT", `/v1/datasets/${dataset}/data`, { token: admin, body: ExportFixture.orders, headers: { "content-type": "text/csv" } })).status, 200)
      const otherReport = yield* ok("POST", "/v1/reports", {
        workspace_id: other,
        name: "Leads",
        pages: [{ name: "All", visuals: [{ id: "count", type: "kpi", dataset_id: dataset, query: { measures: ["count"] }, encoding: { value: "count" } }] }]
      })
      // All 12 fire in one tick, each queuing Ada's job.
      const due = new Date(new Date(nextRuns[0]!).getTime() + 1_000)
      assert.strictEqual(yield* tick(due), 12)
      const jobs = Context.get(server.stores, ExportStore.ExportStore)
      // Then the other workspace asks for an export, later than all of them.
      const later = ExportJob.queued({
        job_id: crypto.randomUUID() as ExportJob.JobId,
        tenant_id: tenantId as Tenant.TenantId,
        workspace_id: other,
        report_id: otherReport.report_id,
        request: { format: "json", visual_id: "count" },
        requested_by: { type: "user", id: "someone" },
        security: { roles: ["admin"], attributes: {} }
      }, new Date(due.getTime() + 1_000))
      yield* jobs.insert(later)
      // A worker's first claim of two takes the busy workspace's oldest job and the other workspace's job.
      const claimed = yield* jobs.claim({ now: new Date(due.getTime() + 2_000), leaseMillis: 60_000, limit: 2, perWorkspace: 2 })
      assert.deepStrictEqual(claimed.map((c) => c.job.workspace_id), [sales, other])
      assert.strictEqual(claimed[0]!.job.delivery?.email, "ada@example.com")
      // The rest of the busy workspace waits queued, within its bound of two running at once.
      const next = yield* jobs.claim({ now: new Date(due.getTime() + 3_000), leaseMillis: 60_000, limit: 10, perWorkspace: 2 })
      assert.deepStrictEqual(next.map((c) => c.job.workspace_id), [sales])
    }).pipe(Effect.scoped))
})
