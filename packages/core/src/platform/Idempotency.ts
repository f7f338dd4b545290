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
import { Clock, Context, Duration, Effect } from "effect"
import { sha256Hex } from "./Crypto.ts"
import { type StoreError, TaggedFailure } from "./Errors.ts"

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
export class IdempotencyKeyInvalid extends TaggedFailure("IdempotencyKeyInvalid")<{ readonly detail: string }> {
  readonly code = "idempotency/invalid-key" as const
}
/** The key was used before with a different request body. */
export class IdempotencyKeyReused extends TaggedFailure("IdempotencyKeyReused")<{}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "This Idempotency-Key was used with a different request body; use a new key"
  }
  readonly code = "idempotency/key-reused" as const
}
/** The first request with this key has not finished yet. */
export class IdempotencyInProgress extends TaggedFailure("IdempotencyInProgress")<{}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "The first request with this Idempotency-Key is still running; retry shortly"
  }
  readonly code = "idempotency/in-progress" as const
}

const printableAscii = /^[\x21-\x7e]+$/

/**
 * Why a key is refused, or `undefined` when it is 1 to 255 printable ASCII
 * characters: `validateKey` without an Effect, for the request path.
 */
export const keyProblem = (key: string): IdempotencyKeyInvalid | undefined =>
  key.length === 0 || key.length > maxKeyLength
    ? new IdempotencyKeyInvalid({ detail: `The key must be 1 to ${maxKeyLength} characters` })
    : printableAscii.test(key)
    ? undefined
    : new IdempotencyKeyInvalid({ detail: "The key must be printable ASCII without spaces" })

/** Checks a key: 1 to 255 printable ASCII characters. */
export const validateKey = (key: string): Effect.Effect<string, IdempotencyKeyInvalid> => {
  const problem = keyProblem(key)
  return problem === undefined ? Effect.succeed(key) : Effect.fail(problem)
}

/**
 * The canonical JSON of a parsed value: object keys sorted (by UTF-16 code
 * units, as `Array.prototype.sort` compares strings), no white space,
 * primitives as `JSON.stringify` writes them. Built by concatenation rather
 * than through `Object.entries`/`map`/`join`: it runs on every idempotent
 * POST, and the stored fingerprints depend on this exact form.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ","
      out += canonicalJson(value[i])
    }
    return out + "]"
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  let out = "{"
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out += ","
    out += JSON.stringify(keys[i]) + ":" + canonicalJson(record[keys[i]])
  }
  return out + "}"
}

/**
 * The fingerprint of a request body: SHA-256 of its canonical JSON (so key
 * order and white space do not matter), or of the raw text when not JSON.
 */
export const fingerprint = (body: string): Effect.Effect<string> => {
  let parsed: { readonly value: unknown } | undefined
  try {
    parsed = body.trim() === "" ? undefined : { value: JSON.parse(body) }
  } catch {
    // not JSON: the raw text is the request
  }
  return fingerprintParsed(body, parsed)
}

/**
 * `fingerprint(body)` for a body the caller already parsed, so a request's
 * body is parsed once (the payload decoder reuses the parse): `parsed` is
 * `JSON.parse(body)`'s result, or `undefined` when it threw. A blank body
 * needs no parse.
 */
export const fingerprintParsed = (body: string, parsed: { readonly value: unknown } | undefined): Effect.Effect<string> =>
  sha256Hex(body.trim() === "" ? "" : parsed === undefined ? body : canonicalJson(parsed.value))

/** What to do with a request, given what the store already holds for its key. */
export type Decision =
  | { readonly _tag: "Run"; readonly reservation: Reservation }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }

const retentionMillis = Duration.toMillis(retention)
const inFlightTimeoutMillis = Duration.toMillis(inFlightTimeout)

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
  Effect.flatMap(IdempotencyStore, (store) => beginWith(store, owner, scope, key, requestFingerprint))

/**
 * `begin` on a store the caller holds (the HTTP middleware resolves it once,
 * not per request): one reserve, then the decision from its answer.
 */
export const beginWith = (
  store: IdempotencyStore["Service"],
  owner: string,
  scope: string,
  key: string,
  requestFingerprint: string
): Effect.Effect<Decision, IdempotencyKeyReused | IdempotencyInProgress | StoreError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const createdAt = new Date(now)
    return Effect.flatMap(
      store.reserve(
        { owner, scope, key, fingerprint: requestFingerprint, createdAt },
        { expiredBefore: new Date(now - retentionMillis), abandonedBefore: new Date(now - inFlightTimeoutMillis) }
      ),
      (result): Effect.Effect<Decision, IdempotencyKeyReused | IdempotencyInProgress> => {
        if (result._tag === "Reserved") return Effect.succeed({ _tag: "Run", reservation: { owner, scope, key, createdAt } })
        const record = result.record
        if (record.fingerprint !== requestFingerprint) return Effect.fail(new IdempotencyKeyReused())
        if (record.response === undefined) return Effect.fail(new IdempotencyInProgress())
        return Effect.succeed({ _tag: "Replay", response: record.response })
      }
    )
  })

/** Deletes the records past their retention; the host runs it periodically. */
export const purgeExpired: Effect.Effect<number, StoreError, IdempotencyStore> = Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const now = yield* Clock.currentTimeMillis
  return yield* store.purgeExpired(new Date(now - Duration.toMillis(retention)))
})

/** Whether a response is kept for replay: everything the handler decided, not 5xx. */
export const isStorable = (status: number): boolean => status < 500
