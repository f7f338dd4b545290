/**
 * The service's own metrics, named and labelled the Prometheus way (base
 * units, `_total` counters, a `analytics_` prefix) with Effect's `Metric`:
 * whatever exports the process's metric registry (a Prometheus scrape, an
 * OTLP exporter) sees them. Labels are small closed sets (a format, an
 * outcome, an endpoint class): never a tenant, a user or an id, which
 * would make a series per customer.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Duration, Effect, type Exit, Metric } from "effect"

/** Seconds, from 5 ms to 5 minutes: long enough for exports, fine enough for webhook attempts. */
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

/** Runs `effect` and hands its exit and how long it took (by the Effect clock) to `record`. */
export const measured = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  record: (exit: Exit.Exit<A, E>, duration: Duration.Duration) => Effect.Effect<void>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.currentTimeNanos, (start) =>
    Effect.onExit(effect, (exit) =>
      Effect.flatMap(Clock.currentTimeNanos, (end) => record(exit, Duration.nanos(end - start)))))

/** One metric per label set, made once: a labelled metric caches its series key, so updates stay cheap. */
const labelled = <M>(make: (labels: Record<string, string>) => M) => {
  const made = new Map<string, M>()
  return (labels: Record<string, string>): M => {
    const key = Object.values(labels).join("\u0000")
    let metric = made.get(key)
    if (metric === undefined) {
      metric = make(labels)
      made.set(key, metric)
    }
    return metric
  }
}

const rateLimitRejections = labelled((labels) =>
  Metric.counter("analytics_rate_limit_rejections_total", {
    description: "Requests refused with 429 by rate limits, by endpoint class and problem code",
    incremental: true,
    attributes: labels
  })
)

/** Counts a request refused by a rate limit: its endpoint class (`read`, `write`...) and its problem code. */
export const rateLimitRejected = (endpointClass: string, code: string): Effect.Effect<void> =>
  Metric.update(rateLimitRejections({ class: endpointClass, code }), 1)

/** Where an export job stands, for the queue's gauge. */
export type ExportState = "queued" | "running"

const exportJobs = labelled((labels) =>
  Metric.gauge("analytics_export_jobs", {
    description: "Export jobs queued and running across every worker of the database, as last sampled",
    attributes: labels
  })
)

/** Sets the number of export jobs in a state. */
export const exportJobsIn = (state: ExportState, count: number): Effect.Effect<void> =>
  Metric.update(exportJobs({ state }), count)

/** How an export run ended: its file made, failed for good, failed to be tried again, or abandoned (canceled, taken over). */
export type ExportOutcome = "succeeded" | "failed" | "retrying" | "abandoned"

const exportDurations = labelled((labels) =>
  Metric.histogram("analytics_export_duration_seconds", {
    description: "Time to run one export job (render, store, mail), by format and outcome",
    boundaries: secondsBuckets,
    attributes: labels
  })
)

/** Records one export run. */
export const exportRan = (format: string, outcome: ExportOutcome, duration: Duration.Duration): Effect.Effect<void> =>
  Metric.update(exportDurations({ format, outcome }), Duration.toSeconds(duration))

/**
 * What an attempt did to its delivery: `success`, `retry` (another attempt
 * is scheduled), `failed` (no attempt left), `disabled` (the receiver said
 * it is gone; its webhook was disabled).
 */
export type DeliveryOutcome = "success" | "retry" | "failed" | "disabled"

const deliveries = labelled((labels) =>
  Metric.counter("analytics_webhook_deliveries_total", {
    description: "Webhook delivery attempts by outcome",
    incremental: true,
    attributes: labels
  })
)

const attemptDurations = labelled((labels) =>
  Metric.histogram("analytics_webhook_attempt_duration_seconds", {
    description: "Time of one webhook delivery attempt (the receiver's answer or the failure), by outcome",
    boundaries: secondsBuckets,
    attributes: labels
  })
)

/** Records one webhook delivery attempt. */
export const deliveryAttempted = (outcome: DeliveryOutcome, duration: Duration.Duration): Effect.Effect<void> =>
  Effect.andThen(
    Metric.update(deliveries({ outcome }), 1),
    Metric.update(attemptDurations({ outcome }), Duration.toSeconds(duration))
  )

/** How an AI question ended: the answer's status, or `error` when the stream failed. */
export type QuestionOutcome = "answered" | "cannot_answer" | "query_refused" | "error"

const questions = labelled((labels) =>
  Metric.counter("analytics_ai_questions_total", {
    description: "AI questions answered, by outcome",
    incremental: true,
    attributes: labels
  })
)

/** Counts one AI question by how it ended. */
export const questionAnswered = (outcome: QuestionOutcome): Effect.Effect<void> =>
  Metric.update(questions({ outcome }), 1)

const queryDurations = labelled((labels) =>
  Metric.histogram("analytics_dataset_query_duration_seconds", {
    description: "Time to run one semantic query on a dataset's engine, by engine and outcome",
    boundaries: secondsBuckets,
    attributes: labels
  })
)

/** Times a dataset query on its engine (`upload`, `postgres`), by whether it succeeded. */
export const timedQuery = (engine: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  measured(effect, (exit, duration) =>
    exit._tag === "Failure" && Cause.hasInterruptsOnly(exit.cause)
      ? Effect.void // interrupted (the client went away): neither a success nor a failure of the engine
      : Metric.update(queryDurations({ engine, outcome: exit._tag === "Success" ? "succeeded" : "failed" }), Duration.toSeconds(duration)))
