/**
 * Idempotency keys (decision 0004, after Stripe and the IETF draft).
 *
 * A POST with an `Idempotency-Key` reserves (owner, scope, key) before it
 * runs. The first request runs and stores its response; a retry with the same
 * body replays that response; a retry with another body is refused (422); a
 * retry while the first still runs is refused (409). Records live 24 hours.
 * A reservation whose request died without finishing is taken over after
 * `inFlightTimeout`, so a crash never blocks a key for a day.
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Duration, Effect } from "effect"
import { sha256Hex } from "./Crypto.ts"
import type { StoreError } from "./Errors.ts"

/** How long a stored response is replayed. */
export const retention = Duration.hours(24)
/** After this long without a stored response, a reservation is considered abandoned. */
export const inFlightTimeout = Duration.minutes(1)
/** The longest key accepted (Stripe's bound). */
export const maxKeyLength = 255

/** A response kept for replay. */
export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** What the store holds for one key. */
export interface IdempotencyRecord {
  /** The tenant id, or `operator` for the operator's requests. */
  readonly owner: string
  /** Method and path, e.g. `POST /v1/workspaces`. */
  readonly scope: string
  readonly key: string
  /** SHA-256 of the canonical request body. */
  readonly fingerprint: string
  readonly createdAt: Date
  /** Absent while the first request is still running. */
  readonly response: StoredResponse | undefined
}

/**
 * Which reservation a request holds: its key and the instant it reserved
 * it. A request whose reservation was taken over as abandoned no longer
 * matches, so it can neither complete nor release its successor's.
 */
export interface Reservation {
  readonly owner: string
  readonly scope: string
  readonly key: string
  readonly createdAt: Date
}

/** The outcome of reserving a key. */
export type ReserveResult =
  | { readonly _tag: "Reserved" }
  | { readonly _tag: "Existing"; readonly record: IdempotencyRecord }

/** Port: where idempotency records live. */
export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /**
   * Atomically reserves the key, unless a live record holds it. A record
   * older than `expiredBefore`, or one still without a response and older
   * than `abandonedBefore`, counts as absent and is replaced.
   */
  readonly reserve: (
    record: Omit<IdempotencyRecord, "response">,
    cutoffs: { readonly expiredBefore: Date; readonly abandonedBefore: Date }
  ) => Effect.Effect<ReserveResult, StoreError>
  /** Stores the response of the request holding `reservation`; nothing if it no longer holds it. */
  readonly complete: (reservation: Reservation, response: StoredResponse) => Effect.Effect<void, StoreError>
  /** Drops `reservation` while it has no response (validation failure, 5xx); nothing if it is not held. */
  readonly release: (reservation: Reservation) => Effect.Effect<void, StoreError>
  /** Deletes records created before `before`; returns how many. */
  readonly purgeExpired: (before: Date) => Effect.Effect<number, StoreError>
}>()("@analytics/core/IdempotencyStore") {}

/** The key is empty, too long or not printable ASCII. */
export class IdempotencyKeyInvalid extends Data.TaggedError("IdempotencyKeyInvalid")<{ readonly detail: string }> {
  readonly code = "idempotency/invalid-key" as const
}
/** The key was used before with a different request body. */
export class IdempotencyKeyReused extends Data.TaggedError("IdempotencyKeyReused")<{}> {
  readonly code = "idempotency/key-reused" as const
}
/** The first request with this key has not finished yet. */
export class IdempotencyInProgress extends Data.TaggedError("IdempotencyInProgress")<{}> {
  readonly code = "idempotency/in-progress" as const
}

/** Checks a key: 1 to 255 printable ASCII characters. */
export const validateKey = (key: string): Effect.Effect<string, IdempotencyKeyInvalid> =>
  key.length === 0 || key.length > maxKeyLength
    ? Effect.fail(new IdempotencyKeyInvalid({ detail: `The key must be 1 to ${maxKeyLength} characters` }))
    : /^[\x21-\x7e]+$/.test(key)
    ? Effect.succeed(key)
    : Effect.fail(new IdempotencyKeyInvalid({ detail: "The key must be printable ASCII without spaces" }))

const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/**
 * The fingerprint of a request body: SHA-256 of its canonical JSON (so key
 * order and white space do not matter), or of the raw text when not JSON.
 */
export const fingerprint = (body: string): Effect.Effect<string> => {
  let canonical = body
  try {
    canonical = body.trim() === "" ? "" : canonicalJson(JSON.parse(body))
  } catch {
    // not JSON: the raw text is the request
  }
  return sha256Hex(canonical)
}

/** What to do with a request, given what the store already holds for its key. */
export type Decision =
  | { readonly _tag: "Run"; readonly reservation: Reservation }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }

/**
 * Reserves the key for a request, or decides from the existing record:
 * replay it, or refuse with 422 (another body) or 409 (still running).
 */
export const begin = (
  owner: string,
  scope: string,
  key: string,
  requestFingerprint: string
): Effect.Effect<Decision, IdempotencyKeyReused | IdempotencyInProgress | StoreError, IdempotencyStore> =>
  Effect.gen(function*() {
    const store = yield* IdempotencyStore
    const now = yield* Clock.currentTimeMillis
    const reservation: Reservation = { owner, scope, key, createdAt: new Date(now) }
    const result = yield* store.reserve(
      { ...reservation, fingerprint: requestFingerprint },
      {
        expiredBefore: new Date(now - Duration.toMillis(retention)),
        abandonedBefore: new Date(now - Duration.toMillis(inFlightTimeout))
      }
    )
    if (result._tag === "Reserved") return { _tag: "Run", reservation } as const
    const record = result.record
    if (record.fingerprint !== requestFingerprint) return yield* new IdempotencyKeyReused()
    if (record.response === undefined) return yield* new IdempotencyInProgress()
    return { _tag: "Replay", response: record.response } as const
  })

/** Deletes the records past their retention; the host runs it periodically. */
export const purgeExpired: Effect.Effect<number, StoreError, IdempotencyStore> = Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const now = yield* Clock.currentTimeMillis
  return yield* store.purgeExpired(new Date(now - Duration.toMillis(retention)))
})

/** Whether a response is kept for replay: everything the handler decided, not 5xx. */
export const isStorable = (status: number): boolean => status < 500
