/**
 * The background work as the host runs it (`Workers.start`), on the memory
 * stores under Effect's TestClock: each loop the options switch on does its
 * work when the clock reaches its turn, and one switched off does not. The
 * service (memory stores, DuckDB in memory) serves the arranging requests
 * over a real socket; what the loops did is read back from it and its
 * stores. Here rather than in core's tests: core's tests cannot import the
 * memory stores (core depends on no adapter).
 *
 * Real time is still waited for (`eventually`) where a loop, woken by the
 * clock, does real work (DuckDB, the socket).
 */
import { eventually } from "@analytics/testing"
import { AuditLog, ExportStore, Idempotency, type Tenant, WebhookTransport, Workers } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { TestClock } from "effect/testing"
import * as ExportFixture from "./ExportFixture.ts"

/** The hour boundary after the next one, as a round time to start the clock from. */
const hour = 3_600_000
const onTheHour = (Math.floor(Date.now() / hour) + 2) * hour

/** Which loops a test switches on. */
interface Switches {
  readonly exports?: boolean
  readonly webhooks?: boolean
  readonly scheduler?: boolean
}

/**
 * The sales overview on a service whose clock is the test's (set to `at`),
 * and the webhook attempts the delivery worker makes, recorded. A recording
 * transport in place of HTTPS: the WebhookTransport port is the boundary
 * where delivery leaves the service, and under a TestClock only what
 * reaches that boundary (and when) is the worker's behaviour.
 */
const setup = (at: number) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(at)
    const fixture = yield* ExportFixture.setup()
    const attempts = yield* Queue.unbounded<WebhookTransport.Request>()
    const recording = WebhookTransport.WebhookTransport.of({
      send: (request) => Effect.as(Queue.offer(attempts, request), { status: 204, retryAfterSeconds: undefined })
    })
    /** Starts the loops `on` asks for, for the test's scope, as the host does. */
    const start = (on: Switches) =>
      Workers.start({
        exports: on.exports === true ? { links: fixture.links } : false,
        webhooks: on.webhooks === true ? {} : false,
        scheduler: on.scheduler === true
      }).pipe(
        Effect.provideService(WebhookTransport.WebhookTransport, recording),
        Effect.provideContext(fixture.services),
        Effect.provideContext(fixture.server.stores)
      )
    /** What the stores hold, read directly. */
    const stores = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provideContext(effect, fixture.server.stores) as Effect.Effect<A, E>
    return { ...fixture, attempts, start, stores }
  })

/** Lets the loops' fibers run what the clock has woken, in real time: long enough for a loop that was started, too short to matter otherwise. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))

describe("the background work (Workers.start) under the TestClock", () => {
  it.effect("with exports on, a job queued while the worker idles is run once the clock reaches its next look (a second)", () =>
    Effect.gen(function*() {
      const { ok, reportId, start } = yield* setup(onTheHour)
      yield* start({ exports: true })
      // The worker looked once at start, found nothing, and waits a second of the clock.
      yield* settle
      const queued = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
      assert.strictEqual(queued.status, "queued")
      yield* settle
      assert.strictEqual((yield* ok("GET", `/v1/jobs/${queued.job_id}`)).status, "queued", "not before the clock moves")
      yield* TestClock.adjust("1 second")
      const done = yield* eventually(ok("GET", `/v1/jobs/${queued.job_id}`), (job) => job.status === "succeeded", { what: "the job succeeded" })
      assert.deepInclude(done.result, { filename: "by_region.csv" })
    }).pipe(Effect.scoped))

  it.effect("with exports off, the job stays queued however far the clock goes", () =>
    Effect.gen(function*() {
      const { ok, reportId, start } = yield* setup(onTheHour)
      yield* start({ exports: false, webhooks: true, scheduler: true })
      const queued = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.strictEqual((yield* ok("GET", `/v1/jobs/${queued.job_id}`)).status, "queued")
    }).pipe(Effect.scoped))

  it.effect("with webhooks on, a due delivery is attempted through the WebhookTransport, signed", () =>
    Effect.gen(function*() {
      const { attempts, ok, start } = yield* setup(onTheHour)
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["export.succeeded"] })
      yield* ok("POST", `/v1/webhooks/${hook.webhook_id}/test`, { type: "export.succeeded" })
      yield* start({ webhooks: true })
      const sent = yield* eventually(Queue.poll(attempts), (a) => a._tag === "Some", { what: "a delivery attempt", timeoutMillis: 3_000 })
      assert.strictEqual(sent._tag === "Some" ? sent.value.url : undefined, "https://hooks.example.com/in")
      assert.strictEqual(sent._tag === "Some" ? sent.value.headers["x-service-event"] : undefined, "export.succeeded")
      const [delivery] = (yield* eventually(ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`), (page) => page.data[0]?.status === "succeeded")).data
      assert.deepStrictEqual(delivery.attempts.map((a: any) => a.status_code), [204])
    }).pipe(Effect.scoped))

  it.effect("with the scheduler on, a schedule come due is queued at the scheduler's next look, 10 s of clock later", () =>
    Effect.gen(function*() {
      // Five seconds before the hour: the hourly schedule is not due when the scheduler first looks.
      const { ok, reportId, start, stores } = yield* setup(onTheHour - 5_000)
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada", roles: ["admin"] })
      const schedule = yield* ok("POST", "/v1/export-schedules", {
        report_id: reportId,
        name: "Hourly",
        cron: "0 * * * *",
        timezone: "UTC",
        format: "csv",
        visual_id: "by_region",
        recipients: ["ada@example.com"]
      })
      assert.strictEqual(Date.parse(schedule.next_run_at), onTheHour)
      const queued = stores(Effect.map(Effect.flatMap(ExportStore.ExportStore, (store) => store.depth), (depth) => depth.queued))
      yield* start({ scheduler: true })
      yield* settle
      assert.strictEqual(yield* queued, 0, "not due at the first look")
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* eventually(queued, (n) => n === 1, { what: "the schedule's job queued", timeoutMillis: 3_000 }), 1)
      assert.isNotNull((yield* ok("GET", `/v1/export-schedules/${schedule.schedule_id}`)).last_run)
    }).pipe(Effect.scoped))

  it.effect("the purges run at start, whichever loops are on: expired idempotency records, console sessions past their lifetime", () =>
    Effect.gen(function*() {
      const { admin, server, start, stores, tenantId } = yield* setup(onTheHour)
      // A record a day and an hour old, past the 24 hours' retention.
      const record = { owner: tenantId, scope: "POST /v1/workspaces", key: "old-key", fingerprint: "f", createdAt: new Date(onTheHour - 25 * hour) }
      /** Whether the record is still there: reserving its key finds it, counting no record as expired. */
      const kept = stores(Effect.flatMap(Idempotency.IdempotencyStore, (store) =>
        Effect.map(store.reserve(record, { expiredBefore: new Date(0), abandonedBefore: new Date(0) }), (r) => r._tag === "Existing")))
      assert.isFalse(yield* kept, "reserved now")
      assert.isTrue(yield* kept)
      // A console session, then two hours of clock: past its hour idle.
      const signedIn = yield* server.request("POST", "/api/session/token", { body: { api_token: admin } })
      assert.strictEqual(signedIn.status, 200, signedIn.text)
      yield* TestClock.adjust("2 hours")
      const ended = stores(Effect.flatMap(AuditLog.AuditStore, (store) =>
        store.list(tenantId as Tenant.TenantId, { action: "session.ended" }, {
          take: 10,
          sort: { field: "created_at", direction: "desc" },
          after: undefined,
          createdAtOrBefore: new Date(8.64e15)
        })))
      assert.lengthOf(yield* ended, 0)
      yield* start({})
      yield* eventually(kept, (k) => !k, { what: "the idempotency record purged", timeoutMillis: 3_000 })
      const [entry] = yield* eventually(ended, (list) => list.length === 1, { what: "the session ended", timeoutMillis: 3_000 })
      assert.deepStrictEqual([entry.actor, entry.detail.reason], [{ type: "system", id: "service" }, "idle"])
    }).pipe(Effect.scoped))
})
