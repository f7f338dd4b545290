/**
 * The export worker: claims due jobs from the queue, makes each file, keeps
 * it in the `BlobStore` and settles the job, with `export.succeeded` or
 * `export.failed` written in the transaction of the job's final state.
 * Any number of workers share one queue; a worker that dies leaves its
 * jobs to the next claim once their leases run out.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import { BlobStore, collect } from "./BlobStore.ts"
import { type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { type EventPublisher, publish } from "../webhooks/EventPublisher.ts"
import * as ExportFiles from "./ExportFiles.ts"
import { type ExportJob, type Failure, next, type Result } from "./ExportJob.ts"
import { type Claimed, ExportStore } from "./ExportStore.ts"
import * as ExportMail from "./ExportMail.ts"
import * as Metrics from "../platform/Metrics.ts"
import type { ResultLinks } from "./Exports.ts"
import { Mailer } from "../platform/Mailer.ts"
import { Transactor } from "../platform/Transactor.ts"

/** How a worker claims. */
export interface Options {
  /** How long a claimed job is held before another worker may take it over. */
  readonly leaseMillis: number
  /** Jobs run at once by this worker. */
  readonly concurrency: number
  /** Jobs of one workspace run at once, across every worker (decision 0015). */
  readonly perWorkspace: number
  readonly links: ResultLinks
}

/** The defaults: two-minute leases, four jobs at once, two per workspace. */
export const defaults: Omit<Options, "links"> = { leaseMillis: 120_000, concurrency: 4, perWorkspace: 2 }

/** What running jobs reads and writes. */
export type Services = ExportStore | BlobStore | Transactor | EventPublisher | Mailer | ExportFiles.Services

/** Whether an error is worth another run: the store, the engine or a timeout may do better later; a bad request never will. */
const failureOf = (error: { readonly _tag: string; readonly detail?: string }): Failure =>
  error._tag === "StoreError" || error._tag === "EngineError" || error._tag === "QueryTimedOut" || error._tag === "MailError"
    ? {
      kind: "transient",
      detail: error._tag === "QueryTimedOut"
        ? "A query ran past the report's timeout"
        : error._tag === "MailError"
        ? "The file was made but could not be mailed; it will be tried again"
        : "The service could not finish the export; it will be tried again"
    }
    : { kind: "permanent", detail: error.detail ?? (error._tag === "NotFound" ? "The report or its visual no longer exists" : "The export cannot be made") }

/** Writes a claimed job's new state and, for a final one, its event, together. */
const settle = (claimed: Claimed, job: ExportJob, options: Options) =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const saved = yield* (yield* ExportStore).save(claimed, job, new Date(job.updated_at.getTime() + options.leaseMillis))
      if (!saved) return false
      const base = { job_id: job.job_id, report_id: job.report_id, format: job.request.format }
      if (job.status === "succeeded" && job.result !== null) {
        const { bytes, contentType, filename } = job.result
        yield* publish(job.tenant_id, "export.succeeded", job.workspace_id, { ...base, filename, content_type: contentType, bytes })
      } else if (job.status === "failed") {
        yield* publish(job.tenant_id, "export.failed", job.workspace_id, {
          ...base,
          error: { code: job.failure?.kind === "permanent" ? "export/invalid" : "service/unavailable", message: job.failure?.detail ?? "" }
        })
      }
      return true
    }))).pipe(Effect.catchTag("SchemaError", Effect.die))

/** The job was canceled, or another worker took it over: this run stops without writing. */
class LeaseLost extends TaggedFailure("LeaseLost")<{}> {}

/**
 * Renews a running job's lease every third of its length, for as long as
 * the job runs; fails with `LeaseLost` when the store refuses (canceled, or
 * taken over after this worker stalled past its lease).
 */
const heartbeat = (claimed: Claimed, options: Options) =>
  Effect.gen(function*() {
    const store = yield* ExportStore
    while (true) {
      yield* Effect.sleep(Math.max(1, Math.floor(options.leaseMillis / 3)))
      const at = yield* Clock.currentTimeMillis
      if (!(yield* store.save(claimed, { ...claimed.job, updated_at: new Date(at) }, new Date(at + options.leaseMillis)))) {
        return yield* new LeaseLost()
      }
    }
  })

/**
 * Mails a scheduled job's file to its recipient, attached when small
 * enough; the result says whether it was sent or only logged (no mail
 * service). Sent before the job is settled: a job that succeeded was mailed
 * (a crash in between mails it again on the next run: at least once).
 */
const mail = (job: ExportJob, result: Result, options: Options) =>
  Effect.gen(function*() {
    if (job.delivery === null) return result
    const link = yield* options.links.url(job)
    const stored = result.bytes <= ExportMail.maxAttachmentBytes ? yield* (yield* BlobStore).get(result.key) : undefined
    const content = stored === undefined ? undefined : yield* collect(stored.body)
    const sent = yield* (yield* Mailer).send(ExportMail.compose(job.delivery, result, link, content))
    return { ...result, mail: sent === "logged" ? "logged" : "sent" } satisfies Result
  })

/** Runs one claimed job to its next state, timed by format and outcome, in a span. */
const run = (claimed: Claimed, options: Options): Effect.Effect<void, StoreError, Services> => {
  // Abandoned unless settled: canceled or taken over meanwhile, or the store failed.
  let outcome: Metrics.ExportOutcome = "abandoned"
  return runOnce(claimed, options, (settled) => (outcome = settled)).pipe(
    (effect) => Metrics.measured(effect, (_, duration) => Metrics.exportRan(claimed.job.request.format, outcome, duration)),
    Effect.withSpan("export.run", {
      attributes: { "export.job_id": claimed.job.job_id, "export.format": claimed.job.request.format, "export.attempt": claimed.job.attempts }
    })
  )
}

const runOnce = (claimed: Claimed, options: Options, settledAs: (outcome: Metrics.ExportOutcome) => void): Effect.Effect<void, StoreError, Services> =>
  Effect.gen(function*() {
    const job = claimed.job
    const blobs = yield* BlobStore
    const made = yield* ExportFiles.render(job).pipe(
      Effect.flatMap((file: ExportFiles.Rendered) => {
        const key = `exports/${job.tenant_id}/${job.job_id}/${file.filename}`
        // A store on a local disk takes the engine's own file where it will live; others take the stream.
        const kept = file.toFile !== undefined && blobs.putFile !== undefined ? blobs.putFile(key, file.toFile) : blobs.put(key, file.body)
        return Effect.map(kept, (bytes): Result => ({
          key,
          filename: file.filename,
          contentType: file.contentType,
          bytes,
          warnings: file.warnings
        }))
      }),
      Effect.flatMap((result) => mail(job, result, options)),
      Effect.raceFirst(heartbeat(claimed, options)),
      Effect.result
    )
    if (made._tag === "Failure" && made.failure._tag === "LeaseLost") return
    const at = new Date(yield* Clock.currentTimeMillis)
    const settled = made._tag === "Success"
      ? next(job, { _tag: "Succeeded", at, result: made.success })
      : next(job, { _tag: "Failed", at, failure: failureOf(made.failure as { readonly _tag: string; readonly detail?: string }) })
    if (settled !== undefined && (yield* settle(claimed, settled, options))) {
      settledAs(settled.status === "succeeded" ? "succeeded" : settled.status === "failed" ? "failed" : "retrying")
    }
  })

/** Claims the jobs due now and runs them; how many were claimed. */
export const runDue = (options: Options): Effect.Effect<number, StoreError, Services> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const claims = yield* (yield* ExportStore).claim({
      now,
      leaseMillis: options.leaseMillis,
      limit: options.concurrency,
      perWorkspace: options.perWorkspace
    })
    yield* Effect.forEach(claims, (claimed) => run(claimed, options), { concurrency: options.concurrency, discard: true })
    return claims.length
  })

/**
 * Sets the queue's gauges from the store: jobs queued and running across
 * every worker (a host runs it every few seconds; each host reports the
 * same numbers, so take their `max` across instances).
 */
export const observeQueue: Effect.Effect<void, StoreError, ExportStore> = Effect.gen(function*() {
  const { queued, running } = yield* (yield* ExportStore).depth
  yield* Metrics.exportJobsIn("queued", queued)
  yield* Metrics.exportJobsIn("running", running)
})
