/**
 * The service's background work, in one place: the export worker, webhook
 * delivery, scheduled exports, dataset refreshes and alerts on their
 * schedules, the purges (idempotency records, console sessions, old
 * deliveries) and the export queue's gauges. The packaged host runs it
 * beside the API; an embedding app runs it in its own process, or in a
 * process of its own beside the API's (each loop is safe on any number of
 * processes on one database, except the refresh and alert scheduler, which
 * one process runs). Each loop logs a failure and tries again next time:
 * nothing here stops the process.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Schedule, type Scope } from "effect"
import * as Alerts from "../reports/Alerts.ts"
import * as Datasets from "../datasets/Datasets.ts"
import * as ExportSchedules from "../exporting/ExportSchedules.ts"
import * as ExportWorker from "../exporting/ExportWorker.ts"
import type * as Exports from "../exporting/Exports.ts"
import * as Idempotency from "../platform/Idempotency.ts"
import type * as Session from "../auth/Session.ts"
import * as Sessions from "../auth/Sessions.ts"
import * as WebhookDispatcher from "../webhooks/WebhookDispatcher.ts"
import * as Webhooks from "../webhooks/Webhooks.ts"

/** Which loops run, and how; a loop set to `false` (or left out, for the optional ones) does not run in this process. */
export interface Options {
  /** Runs export jobs, their files made at `links`' signed URLs; `false` leaves them to another process. */
  readonly exports: false | { readonly links: Exports.ResultLinks; readonly leaseMillis?: number | undefined }
  /** Delivers webhooks (and purges old deliveries); `false` leaves them to another process. */
  readonly webhooks: false | { readonly leaseMillis?: number | undefined }
  /** Queues scheduled exports every 10 s, and refreshes PostgreSQL datasets and checks alerts on their crons every minute (one process on a database). */
  readonly scheduler: boolean
  /** Console sessions' lifetimes, for the hourly purge of ended ones. */
  readonly sessions: Session.Lifetimes
  /** Reads the export queue's depth every 5 s for its gauges (when metrics are served or exported). */
  readonly gauges?: boolean | undefined
}

/** A loop's failure, logged; it is tried again at its next turn. */
const logged = (what: string) => Effect.catchCause((cause) => Effect.logWarning(`${what} failed`, cause))

/** Logs how many records a purge removed, when it removed any. */
const purged = (what: string) => (count: number) =>
  count > 0 ? Effect.logInfo(what).pipe(Effect.annotateLogs({ purged: count })) : Effect.void

/** Deletes expired idempotency records at start and every hour. */
export const purgeIdempotencyRecords = Idempotency.purgeExpired.pipe(
  Effect.tap(purged("Expired idempotency records purged")),
  logged("Purging idempotency records"),
  Effect.repeat(Schedule.spaced("1 hour"))
)

/** Ends (audited) the console sessions past their lifetimes and deletes what can sign no one in, at start and every hour. */
export const purgeSessions = (lifetimes: Session.Lifetimes) =>
  Sessions.purgeExpired(lifetimes).pipe(
    Effect.tap(purged("Ended console sessions purged")),
    logged("Purging console sessions"),
    Effect.repeat(Schedule.spaced("1 hour"))
  )

/** Deletes webhook deliveries past the log's retention at start and every hour. */
export const purgeWebhookDeliveries = Webhooks.purgeDeliveries().pipe(
  Effect.tap(purged("Old webhook deliveries purged")),
  logged("Purging webhook deliveries"),
  Effect.repeat(Schedule.spaced("1 hour"))
)

/** Every minute: refreshes the PostgreSQL datasets whose schedule has come (then checks their alerts), and checks the scheduled alerts that are due. */
export const refreshesAndAlerts = Effect.gen(function*() {
  const refreshed = yield* Datasets.refreshDue
  yield* Effect.forEach(refreshed, (d) => Alerts.afterRefresh(d.tenant_id, d.dataset_id), { discard: true })
  const checked = yield* Alerts.runDue
  if (refreshed.length + checked > 0) {
    yield* Effect.logInfo("Scheduled work done").pipe(Effect.annotateLogs({ refreshed: refreshed.length, alerts_checked: checked }))
  }
}).pipe(logged("Scheduled refreshes and alerts"), Effect.repeat(Schedule.spaced("1 minute")))

/** Every 10 seconds (at once again while a tick finds a full batch): queues the jobs of the schedules whose time has come. */
export const exportScheduler = ExportSchedules.runDue.pipe(
  Effect.tap((ran) => ran > 0 ? Effect.logInfo("Scheduled exports queued").pipe(Effect.annotateLogs({ schedules: ran })) : Effect.void),
  Effect.catchCause((cause) => Effect.as(Effect.logWarning("Queuing scheduled exports failed", cause), 0)),
  Effect.flatMap((ran) => ran > 0 ? Effect.void : Effect.sleep("10 seconds")),
  Effect.forever
)

/** Runs due export jobs as soon as there are some, and looks again every second when there are none. */
export const exportWorker = (options: ExportWorker.Options) =>
  ExportWorker.runDue(options).pipe(
    Effect.catchCause((cause) => Effect.as(Effect.logWarning("Running exports failed", cause), 0)),
    Effect.flatMap((claimed) => claimed > 0 ? Effect.void : Effect.sleep("1 second")),
    Effect.forever
  )

/** Every 5 seconds: the export queue's depth (queued, running), for its gauges. */
export const exportQueueGauges = ExportWorker.observeQueue.pipe(logged("Reading the export queue's depth"), Effect.repeat(Schedule.spaced("5 seconds")))

/** The loops `options` asks for, each forked into the scope, until it closes. */
export const start = (options: Options) =>
  Effect.gen(function*() {
    yield* Effect.forkScoped(purgeIdempotencyRecords)
    yield* Effect.forkScoped(purgeSessions(options.sessions))
    if (options.gauges === true) yield* Effect.forkScoped(exportQueueGauges)
    if (options.webhooks !== false) {
      const leaseMillis = options.webhooks.leaseMillis ?? WebhookDispatcher.defaults.leaseMillis
      yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, leaseMillis }))
      yield* Effect.forkScoped(purgeWebhookDeliveries)
    }
    if (options.scheduler) {
      yield* Effect.forkScoped(refreshesAndAlerts)
      yield* Effect.forkScoped(exportScheduler)
    }
    if (options.exports !== false) {
      const leaseMillis = options.exports.leaseMillis ?? ExportWorker.defaults.leaseMillis
      yield* Effect.forkScoped(exportWorker({ ...ExportWorker.defaults, leaseMillis, links: options.exports.links }))
    }
  })

/** What the loops read and write: the stores, the engines, the renderers, the mailer, the webhook transport, the event publisher. */
export type Services = Effect.Services<ReturnType<typeof start>> extends infer R ? Exclude<R, Scope.Scope> : never

/** The loops `options` asks for, running while the layer lives. */
export const layer = (options: Options): Layer.Layer<never, never, Services> => Layer.effectDiscard(start(options))
