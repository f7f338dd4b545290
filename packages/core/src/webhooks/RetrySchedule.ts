/**
 * When a webhook delivery is attempted again (decision 0010), as a
 * value an operator may lengthen: the waits after each failed attempt, and
 * what an attempt's outcome means.
 *
 * @since 0.1.0
 */

/**
 * Waits (seconds) after each failed attempt (decision 0010): the first
 * attempt, then 6 retries (the contract's "6 attempts" counts the retries, as its
 * six waits do), the last one 195 s after the first.
 */
export const defaultWaitsSeconds: ReadonlyArray<number> = [5, 10, 20, 40, 60, 60]

/** The per-attempt timeout (decision 0010). */
export const attemptTimeoutMillis = 5_000

/** What one attempt's answer means for the delivery. */
export type Outcome =
  /** 2xx. */
  | { readonly _tag: "Succeeded" }
  /** 404 or 410: the receiver is gone; the webhook is disabled and its owner told (rule 5). */
  | { readonly _tag: "Gone" }
  /** Anything else (5xx, a network error, a timeout, a redirect, another 4xx): try again if the schedule allows. */
  | { readonly _tag: "Retryable"; readonly retryAfterSeconds: number | undefined }

/**
 * The outcome of an attempt answered `status` (`undefined`: no answer — a
 * network error or the timeout). 3xx is never followed and counts as a
 * failure (rule 7); other 4xx are retried like 5xx, as Svix and Stripe do,
 * since a receiver's misconfiguration is often fixed within minutes.
 * `Retry-After` of a 429 or 503 is honoured within the schedule.
 */
export const outcome = (status: number | undefined, retryAfterSeconds?: number): Outcome => {
  if (status !== undefined && status >= 200 && status < 300) return { _tag: "Succeeded" }
  if (status === 404 || status === 410) return { _tag: "Gone" }
  const honoured = status === 429 || status === 503 ? retryAfterSeconds : undefined
  return { _tag: "Retryable", retryAfterSeconds: honoured }
}

/**
 * When to attempt again after the `failedAttempts`-th failed attempt ended
 * at `endedAt` (epoch ms); `undefined` when the schedule is exhausted and
 * the delivery is failed (rule 8). A receiver's `Retry-After` can lengthen
 * a wait up to the longest wait of the schedule, never shorten it.
 */
export const nextAttemptAt = (
  failedAttempts: number,
  endedAt: number,
  retryAfterSeconds: number | undefined = undefined,
  waitsSeconds: ReadonlyArray<number> = defaultWaitsSeconds
): number | undefined => {
  if (failedAttempts < 1 || failedAttempts > waitsSeconds.length) return undefined
  const wait = waitsSeconds[failedAttempts - 1]
  const longest = Math.max(...waitsSeconds)
  const asked = retryAfterSeconds === undefined ? wait : Math.min(longest, Math.max(wait, retryAfterSeconds))
  return endedAt + asked * 1000
}
