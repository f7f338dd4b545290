/**
 * The per-operation limits of decision 0009, as definitions the features plug
 * into: each names its quotas (keyed by user, workspace or client IP), the
 * problem code a refusal answers, and how to say why.
 *
 * @since 0.1.0
 */
import type { ProblemCode } from "../platform/ProblemCode.ts"
import * as RateLimit from "./RateLimit.ts"

/** The codes a per-operation refusal answers with (all 429). */
export type RefusalCode = Extract<ProblemCode, `rate-limit/${string}`>

/** A limit on one operation: quotas counted together, all or nothing. */
export interface OperationLimit<Code extends RefusalCode = RefusalCode> {
  readonly quotas: ReadonlyArray<RateLimit.Quota>
  readonly code: Code
  /** The `detail` of a refusal, naming the quota that refused. */
  readonly detail: (refusedBy: string) => string
}

/** A cap on concurrent runs of an operation: `capacity` slots under `key`. */
export interface ConcurrencyLimit<Code extends RefusalCode = RefusalCode> {
  readonly key: string
  readonly capacity: number
  readonly code: Code
  readonly detail: string
}

/** `POST /v1/ai/ask`: 30 questions per minute per user (burst), 500 per hour per workspace; a streamed answer counts once. */
export const aiQuestions = (
  subject: { readonly userId: string; readonly workspaceId: string }
): OperationLimit<"rate-limit/ai-questions-exceeded"> => ({
  quotas: [
    { name: "user", key: `ai:user:${subject.userId}`, rule: RateLimit.bucket(30) },
    { name: "workspace", key: `ai:workspace:${subject.workspaceId}`, rule: RateLimit.window(500) }
  ],
  code: "rate-limit/ai-questions-exceeded",
  detail: (refusedBy) =>
    refusedBy === "user"
      ? "You have asked 30 questions in the last minute"
      : "This workspace has asked 500 questions in the last hour"
})

/** Exports started from the UI (a signed-in user): 30 per minute per user. */
export const userExports = (userId: string): OperationLimit<"rate-limit/exports-exceeded"> => ({
  quotas: [{ name: "user", key: `export:user:${userId}`, rule: RateLimit.bucket(30) }],
  code: "rate-limit/exports-exceeded",
  detail: () => "You have started 30 exports in the last minute"
})

/** Exports started with an API token: 300 per hour per workspace, in bursts of at most 10. */
export const apiExports = (workspaceId: string): OperationLimit<"rate-limit/exports-exceeded"> => ({
  quotas: [
    { name: "burst", key: `export:workspace:${workspaceId}:burst`, rule: RateLimit.bucket(10) },
    { name: "sustained", key: `export:workspace:${workspaceId}:sustained`, rule: RateLimit.window(300) }
  ],
  code: "rate-limit/exports-exceeded",
  detail: (refusedBy) =>
    refusedBy === "burst"
      ? "This workspace has started 10 exports in a burst; they refill at 10 a minute"
      : "This workspace has started 300 exports in the last hour"
})

/**
 * Exports asked through a share (`POST /s/{token}/export`, `POST
 * /embed/export`), a budget of their own so anonymous visitors never spend
 * the tenant's API or UI export buckets (decision 0009): per grant 300 an
 * hour in bursts of 10 (the API's numbers, on the grant's own keys), and
 * for a public link also per client address 30 an hour in bursts of 5, so
 * one address cannot take a link's whole budget. An embed's viewers are
 * the embedding app's, each with a token it minted: its grant alone counts.
 */
export const sharedExports = (
  share: { readonly grantId: string; readonly clientIp?: string | undefined }
): OperationLimit<"rate-limit/exports-exceeded"> => ({
  quotas: [
    { name: "grant-burst", key: `export:grant:${share.grantId}:burst`, rule: RateLimit.bucket(10) },
    { name: "grant-sustained", key: `export:grant:${share.grantId}:sustained`, rule: RateLimit.window(300) },
    ...(share.clientIp === undefined ? [] : [
      { name: "address-burst", key: `export:grant:${share.grantId}:ip:${share.clientIp}:burst`, rule: RateLimit.bucket(5) },
      { name: "address-sustained", key: `export:grant:${share.grantId}:ip:${share.clientIp}:sustained`, rule: RateLimit.window(30) }
    ])
  ],
  code: "rate-limit/exports-exceeded",
  detail: (refusedBy) =>
    refusedBy === "grant-burst"
      ? "This share has started 10 exports in a burst; they refill at 10 a minute"
      : refusedBy === "grant-sustained"
      ? "This share has started 300 exports in the last hour"
      : refusedBy === "address-burst"
      ? "You have started 5 exports of this link in a burst; they refill at 5 a minute"
      : "You have started 30 exports of this link in the last hour"
})

/**
 * Public-link password attempts: at most 5 failed in any 5 minutes per
 * client IP (a right password is not counted). An exact sliding log, not the
 * weighted counter, which lets up to 8 through in 5 minutes (decision 0009);
 * its own key prefix, so a host still running the counter never reads a log.
 */
export const passwordAttempts = (clientIp: string): OperationLimit<"rate-limit/password-attempts-exceeded"> => ({
  quotas: [{ name: "ip", key: `password-failures:ip:${clientIp}`, rule: RateLimit.log(5, 5 * 60_000) }],
  code: "rate-limit/password-attempts-exceeded",
  detail: () => "Too many wrong passwords from this address in the last 5 minutes"
})

/**
 * Sign-in links (decision 0022): 5 in any 15 minutes per e-mail address
 * (keyed by its hash) and 30 per client address, counted whether or not
 * the address is a user's, so the answer tells nothing about accounts.
 */
export const signInLinks = (
  emailHash: string,
  clientIp: string
): OperationLimit<"rate-limit/sign-in-links-exceeded"> => ({
  quotas: [
    { name: "email", key: `sign-in:email:${emailHash}`, rule: RateLimit.log(5, 15 * 60_000) },
    { name: "ip", key: `sign-in:ip:${clientIp}`, rule: RateLimit.log(30, 15 * 60_000) }
  ],
  code: "rate-limit/sign-in-links-exceeded",
  detail: (refusedBy) =>
    refusedBy === "email"
      ? "Five sign-in links were asked for this address in the last 15 minutes; use the newest, or wait"
      : "Too many sign-in links were asked from this address in the last 15 minutes"
})

/**
 * Requests to public links and embeds, per client address: at most 120 in
 * any minute, exactly (a sliding log: the bucket this replaced, refilling 2
 * a second, let 122 through in a minute), and 3 600 an hour. Each view runs
 * the report's queries and no tenant token pays for it, so an address is
 * metered. Named `burst` and `sustained`, so a share's answers carry the
 * same `X-RateLimit-*` headers as the API's (decision 0009); keys of their
 * own, so a host still running the bucket never reads a log.
 */
export const sharedViews = (clientIp: string): OperationLimit<"rate-limit/shared-views-exceeded"> => ({
  quotas: [
    { name: "burst", key: `shared-views:ip:${clientIp}:burst`, rule: RateLimit.log(120, 60_000) },
    { name: "sustained", key: `shared-views:ip:${clientIp}:sustained`, rule: RateLimit.window(3_600) }
  ],
  code: "rate-limit/shared-views-exceeded",
  detail: (refusedBy) =>
    refusedBy === "sustained"
      ? "Too many requests to shared content from this address in the last hour"
      : "Too many requests to shared content from this address in the last minute"
})

/**
 * Concurrent semantic queries per workspace: `capacity` is the tenant's
 * (`Plan.limitsFor(plan, limits).queryConcurrency`: Starter 4, Growth 8,
 * Scale 32, Custom as negotiated).
 */
export const queryConcurrency = (
  workspaceId: string,
  capacity: number
): ConcurrencyLimit<"rate-limit/query-concurrency"> => ({
  key: `query:workspace:${workspaceId}`,
  capacity,
  code: "rate-limit/query-concurrency",
  detail: `This workspace already runs ${capacity} queries; retry when one finishes`
})
