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
import * as ExportSchedules from "../exports/ExportSchedules.ts"
import * as ExportWorker from "../exports/ExportWorker.ts"
import type * as Exports from "../exports/Exports.ts"
import * as Idempotency from "../platform/Idempotency.ts"
import * as Session from "../auth/Session.ts"
import * as Sessions from "../auth/Sessions.ts"
import * as WebhookDispatcher from "../webhooks/WebhookDispatcher.ts"
import * as Webhooks from "../webhooks/Webhooks.ts"

/** Which loops run, and how; a loop set to `false` (or left out, for the optional ones) does not run in this process. */
export interface Options {
  /**
   * Runs export jobs, their files made at `links`' signed URLs; `false` leaves them to another process.
   * `idleMillis`: how long the worker waits before looking again when it found no job (default: a second;
   * the export benchmark looks every 50 ms, so that a job's time is the export's, not the wait for a claim).
   */
  readonly exports: false | {
    readonly links: Exports.ResultLinks
    readonly leaseMillis?: number | undefined
    readonly idleMillis?: number | undefined
  }
  /** Delivers webhooks (and purges old deliveries); `false` leaves them to another process. */
  readonly webhooks: false | { readonly leaseMillis?: number | undefined }
  /** Queues scheduled exports every 10 s, and refreshes PostgreSQL datasets and checks alerts on their crons every minute (one process on a database). */
  readonly scheduler: boolean
  /** Console sessions' lifetimes, for the hourly purge of ended ones (default: `Session.defaultLifetimes`). */
  readonly sessions?: Session.Lifetimes | undefined
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

/** Runs due export jobs as soon as there are some, and looks again after `idleMillis` (a second) when there are none. */
export const exportWorker = (options: ExportWorker.Options, idleMillis = 1_000) =>
  ExportWorker.runDue(options).pipe(
    Effect.catchCause((cause) => Effect.as(Effect.logWarning("Running exports failed", cause), 0)),
    Effect.flatMap((claimed) => claimed > 0 ? Effect.void : Effect.sleep(idleMillis)),
    Effect.forever
  )

/** Every 5 seconds: the export queue's depth (queued, running), for its gauges. */
export const exportQueueGauges = ExportWorker.observeQueue.pipe(logged("Reading the export queue's depth"), Effect.repeat(Schedule.spaced("5 seconds")))

/** What the loops run in every process read and write: the purges of idempotency records and console sessions. */
export type BaseServices = Effect.Services<typeof purgeIdempotencyRecords> | Effect.Services<ReturnType<typeof purgeSessions>>

/** What the export worker reads and writes: the stores, the engines, the blob store, the renderers, the mailer, the event publisher. */
export type ExportServices = Effect.Services<ReturnType<typeof exportWorker>>

/** What webhook delivery reads and writes: the delivery store, the webhook transport, the mailer. */
export type WebhookServices = Effect.Services<ReturnType<typeof WebhookDispatcher.run>> | Effect.Services<typeof purgeWebhookDeliveries>

/** What the scheduler reads and writes: the schedules, the datasets' engines, the alerts, the event publisher. */
export type SchedulerServices = Effect.Services<typeof refreshesAndAlerts> | Effect.Services<typeof exportScheduler>

/** What the gauges read: the export store. */
export type GaugeServices = Effect.Services<typeof exportQueueGauges>

/**
 * What the loops `O` asks for read and write: a loop switched off by its
 * type (`exports: false`, `scheduler: false`, `gauges` left out) needs
 * nothing, so a process that only delivers webhooks provides no engine or
 * renderer; options known only at run time (a `boolean`) need everything.
 */
export type ServicesOf<O extends Options> =
  | BaseServices
  | (O extends { readonly exports: false } ? never : ExportServices)
  | (O extends { readonly webhooks: false } ? never : WebhookServices)
  | (O extends { readonly scheduler: false } ? never : SchedulerServices)
  | (O extends { readonly gauges?: false | undefined } ? never : GaugeServices)

/** What every loop reads and writes: the stores, the engines, the renderers, the mailer, the webhook transport, the event publisher. */
export type Services = ServicesOf<Options>

/** The loops `options` asks for, each forked into the scope, until it closes; the purges run at once. */
export const start = <const O extends Options>(options: O): Effect.Effect<void, never, ServicesOf<O> | Scope.Scope> =>
  Effect.gen(function*() {
    yield* Effect.forkScoped(purgeIdempotencyRecords)
    yield* Effect.forkScoped(purgeSessions(options.sessions ?? Session.defaultLifetimes))
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
      yield* Effect.forkScoped(exportWorker({ ...ExportWorker.defaults, leaseMillis, links: options.exports.links }, options.exports.idleMillis))
    }
    // The loops switched off by the options' type need none of their services (each needs only its own, above).
  }) as Effect.Effect<void, never, ServicesOf<O> | Scope.Scope>

/** The loops `options` asks for, running while the layer lives. */
export const layer = <const O extends Options>(options: O): Layer.Layer<never, never, ServicesOf<O>> => Layer.effectDiscard(start(options))
