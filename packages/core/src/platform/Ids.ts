/**
 * Identifiers: UUIDv7 (time-ordered, so primary-key indexes stay append-mostly),
 * generated from Effect's Clock so they follow TestClock in tests.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema, SchemaTransformation } from "effect"

/** Each byte's two lowercase hex digits. */
const hexPairs = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/** Formats a UUIDv7 from a millisecond timestamp and 10 random bytes (every created record gets one: written by table lookups). */
export const uuidv7From = (millis: number, random: Uint8Array): string => {
  let ts = millis
  let time = ""
  for (let i = 0; i < 6; i++) {
    time = hexPairs[ts % 256]! + time
    ts = Math.floor(ts / 256)
  }
  const h = (i: number) => hexPairs[random[i]!]!
  const version = hexPairs[(random[0]! & 0x0f) | 0x70]!
  const variant = hexPairs[(random[2]! & 0x3f) | 0x80]!
  return `${time.slice(0, 8)}-${time.slice(8)}-${version}${h(1)}-${variant}${h(3)}-${h(4)}${h(5)}${h(6)}${h(7)}${h(8)}${h(9)}`
}

/** Random bytes drawn at once and handed out in slices, each byte once (as Node's `randomUUID` keeps a batch). */
const poolSize = 4096
let pool = new Uint8Array(0)
let poolOffset = 0

/**
 * Cryptographically secure random bytes (Web Crypto, present in Node and
 * browsers), synchronously, for code already running inside an effect (a
 * platform's seal). Small requests (nonces, ids: a dozen bytes on every list
 * page) are cut from a pool refilled 4 KiB at a time: one call to the
 * system's generator per few hundred requests rather than one each.
 */
export const randomBytesUnsafe = (length: number): Uint8Array<ArrayBuffer> => {
  if (length > 256) return crypto.getRandomValues(new Uint8Array(length))
  if (poolOffset + length > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(poolSize))
    poolOffset = 0
  }
  const bytes = pool.slice(poolOffset, poolOffset + length)
  poolOffset += length
  return bytes
}

/** Cryptographically secure random bytes, from the pool of `randomBytesUnsafe`. */
export const randomBytes = (length: number): Effect.Effect<Uint8Array> => Effect.sync(() => randomBytesUnsafe(length))

/** A new UUIDv7 stamped with the current Clock time. */
export const uuidv7: Effect.Effect<string> = Effect.flatMap(
  Clock.currentTimeMillis,
  (millis) => Effect.map(randomBytes(10), (random) => uuidv7From(millis, random))
)

const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether a string is a UUID in canonical lowercase form. */
export const isUuid = (input: string): boolean => canonicalUuid.test(input)

/** A UUID in canonical lowercase form. */
export const Uuid = Schema.String.check(Schema.isPattern(canonicalUuid)).annotate({
  description: "A UUID in canonical lowercase form",
  format: "uuid"
})

/** A UUID as a client may write it, in either case; decoded to its canonical lowercase form. */
export const UuidAnyCase = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)).pipe(
  Schema.decodeTo(Uuid, SchemaTransformation.toLowerCase())
).annotate({ description: "A UUID, in either case (RFC 9562: compared case-insensitively)", format: "uuid" })
