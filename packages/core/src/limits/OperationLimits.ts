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
 * Views of public links and embeds: 120 per minute per client address
 * (bursts of 120, refilled at 2 a second). Each view runs the report's
 * queries and no tenant token pays for it, so an address is metered.
 */
export const sharedViews = (clientIp: string): OperationLimit<"rate-limit/shared-views-exceeded"> => ({
  quotas: [{ name: "ip", key: `shared:ip:${clientIp}`, rule: RateLimit.bucket(120) }],
  code: "rate-limit/shared-views-exceeded",
  detail: () => "Too many views of shared content from this address in the last minute"
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
