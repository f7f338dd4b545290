/**
 * The delivery worker: claims due deliveries from the DeliveryStore, signs
 * and sends each through the WebhookTransport, and settles the result by
 * the retry schedule (decision 0010). It runs apart from the API, in any number
 * of processes on one store.
 *
 * Concurrency is bounded overall and per webhook, so one slow receiver
 * cannot take every slot. Time is the Effect Clock: under a TestClock the
 * whole schedule runs in milliseconds.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Duration, Effect, Queue, Stream } from "effect"
import { type Claim, DeliveryStore, type Settlement } from "./DeliveryStore.ts"
import { Mailer } from "../platform/Mailer.ts"
import * as Metrics from "../platform/Metrics.ts"
import * as RetrySchedule from "./RetrySchedule.ts"
import type { WebhookId } from "./Webhook.ts"
import * as WebhookSecrets from "./WebhookSecrets.ts"
import * as WebhookSignature from "./WebhookSignature.ts"
import { type Answer, notPublicAddress, type TransportFailure, WebhookTransport } from "./WebhookTransport.ts"

/** How a dispatcher works. */
export interface Options {
  /** How long a claimed delivery is held before another worker may take it (a crashed worker's, say). */
  readonly leaseMillis: number
  /** Deliveries in flight at once, in this process. */
  readonly concurrency: number
  /** Deliveries to one webhook in flight at once, in this process. */
  readonly perWebhook: number
  /** The longest wait for a wake-up before looking for due deliveries anyway (the next due one is waited for exactly). */
  readonly pollMillis: number
  /** The retry schedule. */
  readonly waitsSeconds: ReadonlyArray<number>
  readonly attemptTimeoutMillis: number
}

/** The defaults: decision 0010's schedule and timeout. */
export const defaults: Options = {
  leaseMillis: 30_000,
  concurrency: 256,
  perWebhook: 16,
  pollMillis: 1_000,
  waitsSeconds: RetrySchedule.defaultWaitsSeconds,
  attemptTimeoutMillis: RetrySchedule.attemptTimeoutMillis
}

/** The headers of one attempt (decision 0010). */
export const headers = (claim: Claim, signature: string): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": "analytics-service-webhooks/0.1",
  [WebhookSignature.header]: signature,
  "x-service-event": claim.delivery.event.type,
  "x-service-delivery": claim.delivery.delivery_id
})

/**
 * What an attempt's answer (or failure) does to the delivery, by the
 * schedule. A target the egress guard refuses fails the delivery at once
 * (no retry would reach it), recording only the generic reason, whatever
 * the transport said.
 */
export const settlementOf = (
  claim: Claim,
  result: { readonly answer: Answer } | { readonly failure: TransportFailure },
  attemptedAt: Date,
  latencyMs: number,
  waitsSeconds: ReadonlyArray<number>,
  requestHeaders: Readonly<Record<string, string>> | null = null
): Settlement => {
  if ("failure" in result && result.failure.reason === "refused") {
    return {
      attempt: {
        attempted_at: attemptedAt,
        status_code: null,
        latency_ms: latencyMs,
        error: `refused: ${notPublicAddress}`,
        request_headers: requestHeaders,
        response_headers: null
      },
      status: "failed",
      failures: claim.delivery.failures + 1,
      nextAttemptAt: null
    }
  }
  const answer = "answer" in result ? result.answer : undefined
  const outcome = answer === undefined
    ? { _tag: "Retryable", retryAfterSeconds: undefined } as const
    : RetrySchedule.outcome(answer.status, answer.retryAfterSeconds)
  const error = "failure" in result
    ? `${result.failure.reason}: ${result.failure.message}`
    : outcome._tag === "Succeeded" ? null : `The receiver answered ${answer!.status}`
  const attempt = {
    attempted_at: attemptedAt,
    status_code: answer?.status ?? null,
    latency_ms: latencyMs,
    error,
    response_excerpt: answer?.bodyExcerpt ?? null,
    request_headers: requestHeaders,
    response_headers: answer === undefined ? null : answer.headers ?? {}
  }
  switch (outcome._tag) {
    case "Succeeded":
      return { attempt, status: "succeeded", failures: claim.delivery.failures, nextAttemptAt: null }
    case "Gone":
      return {
        attempt,
        status: "failed",
        failures: claim.delivery.failures + 1,
        nextAttemptAt: null,
        disableWebhook: `The receiver answered ${answer!.status} at ${attemptedAt.toISOString()}`
      }
    case "Retryable": {
      const failures = claim.delivery.failures + 1
      const next = RetrySchedule.nextAttemptAt(failures, attemptedAt.getTime() + latencyMs, outcome.retryAfterSeconds, waitsSeconds)
      return next === undefined
        ? { attempt, status: "failed", failures, nextAttemptAt: null }
        : { attempt, status: "retrying", failures, nextAttemptAt: new Date(next) }
    }
  }
}

/** The e-mail telling a webhook's owner it was disabled (decision 0010). */
export const disabledMail = (claim: Claim, reason: string) => ({
  subject: `Webhook disabled: ${claim.webhook.url}`,
  text: [
    `Your webhook ${claim.webhook.webhook_id} (${claim.webhook.url}) was disabled.`,
    "",
    `${reason}: the receiver says it is gone, so no more events are sent to it.`,
    "Fix the receiver, enable the webhook again (PATCH /v1/webhooks/{id} with {\"enabled\": true}),",
    "then recover the failed deliveries (POST /v1/webhooks/{id}/recover)."
  ].join("\n")
})

/** Makes, sends and settles one attempt of a claimed delivery. */
export const attempt = (claim: Claim, options: Pick<Options, "waitsSeconds" | "attemptTimeoutMillis">) =>
  Effect.gen(function*() {
    const transport = yield* WebhookTransport
    const store = yield* DeliveryStore
    const started = yield* Clock.currentTimeMillis
    const signature = yield* WebhookSignature.sign(
      claim.body,
      WebhookSecrets.signing(claim.webhook.secrets, started),
      Math.floor(started / 1000)
    )
    const sent = headers(claim, signature)
    const result = yield* transport.send({
      url: claim.webhook.url,
      body: claim.body,
      headers: sent,
      timeoutMillis: options.attemptTimeoutMillis
    }).pipe(
      Effect.map((answer) => ({ answer })),
      Effect.catch((failure) => Effect.succeed({ failure }))
    )
    const ended = yield* Clock.currentTimeMillis
    // The content-length Node adds is part of what was sent too.
    const requestHeaders = { ...sent, "content-length": String(new TextEncoder().encode(claim.body).length) }
    const settlement = settlementOf(claim, result, new Date(started), ended - started, options.waitsSeconds, requestHeaders)
    const settled = yield* store.settle(claim, settlement, new Date(ended))
    // Counted once settled: an attempt whose lease was lost meanwhile is another worker's to count.
    if (settled) yield* Metrics.deliveryAttempted(outcomeOf(settlement), Duration.millis(ended - started))
    if (settled && settlement.disableWebhook !== undefined) yield* tellOwner(claim, settlement.disableWebhook)
    return settlement
  }).pipe(
    Effect.withSpan("webhook.attempt", {
      attributes: {
        "webhook.event": claim.delivery.event.type,
        "webhook.delivery_id": claim.delivery.delivery_id,
        "webhook.attempt": claim.delivery.failures + 1
      }
    })
  )

/** A settlement as the deliveries metric counts it. */
const outcomeOf = (settlement: Settlement): Metrics.DeliveryOutcome =>
  settlement.disableWebhook !== undefined
    ? "disabled"
    : settlement.status === "succeeded"
    ? "success"
    : settlement.status === "retrying"
    ? "retry"
    : "failed"

/** Mails a disabled webhook's owner; a mail failure is logged, the webhook stays disabled. */
const tellOwner = (claim: Claim, reason: string) =>
  Effect.gen(function*() {
    const email = claim.webhook.owner.email
    if (email === null) {
      return yield* Effect.logWarning("A webhook was disabled; its owner has no e-mail address", {
        webhook_id: claim.webhook.webhook_id
      })
    }
    const mailer = yield* Mailer
    yield* mailer.send({ to: [email], ...disabledMail(claim, reason) }).pipe(
      Effect.catch((error) => Effect.logWarning("Could not e-mail the owner of a disabled webhook", error))
    )
  })

/**
 * Runs the worker until interrupted: claims due deliveries whenever the
 * store signals (or every `pollMillis`), within the concurrency bounds.
 * Store failures are logged and retried; nothing here fails.
 */
export const run = (options: Options = defaults): Effect.Effect<never, never, DeliveryStore | WebhookTransport | Mailer> =>
  Effect.scoped(Effect.gen(function*() {
    const store = yield* DeliveryStore
    const wake = yield* Queue.sliding<void>(1)
    yield* (yield* store.wakeups).pipe(
      Stream.runForEach(() => Queue.offer(wake, undefined)),
      Effect.forkScoped
    )
    const inFlight = new Map<WebhookId, number>()
    let total = 0
    const finished = (claim: Claim) =>
      Effect.sync(() => {
        total--
        const left = (inFlight.get(claim.webhook.webhook_id) ?? 1) - 1
        if (left === 0) inFlight.delete(claim.webhook.webhook_id)
        else inFlight.set(claim.webhook.webhook_id, left)
      }).pipe(Effect.andThen(Queue.offer(wake, undefined)))
    const idle = (millis: number) => Effect.raceFirst(Queue.take(wake), Effect.sleep(millis))
    while (true) {
      const capacity = options.concurrency - total
      if (capacity <= 0) {
        yield* idle(options.pollMillis)
        continue
      }
      const exclude = [...inFlight].filter(([, n]) => n >= options.perWebhook).map(([id]) => id)
      const now = new Date(yield* Clock.currentTimeMillis)
      const claims = yield* store.claim({
        now,
        leaseMillis: options.leaseMillis,
        limit: Math.min(capacity, 100),
        perWebhook: options.perWebhook,
        exclude
      }).pipe(
        Effect.catch((error) => Effect.as(Effect.logWarning("Claiming webhook deliveries failed; retrying", error), []))
      )
      for (const claim of claims) {
        total++
        inFlight.set(claim.webhook.webhook_id, (inFlight.get(claim.webhook.webhook_id) ?? 0) + 1)
        yield* attempt(claim, options).pipe(
          Effect.catchCause((cause) =>
            Effect.logError("A webhook attempt failed; its lease will run out and it will be tried again", Cause.pretty(cause))
          ),
          Effect.ensuring(finished(claim)),
          Effect.forkScoped
        )
      }
      if (claims.length === 0) {
        // Sleep until the next delivery comes due (a retry), a wake-up, or the poll, whichever is first.
        const due = yield* store.nextDue(exclude).pipe(Effect.catch(() => Effect.succeed(undefined)))
        const wait = due === undefined ? options.pollMillis : Math.max(1, Math.min(options.pollMillis, due.getTime() - now.getTime()))
        yield* idle(wait)
      }
    }
  }))
