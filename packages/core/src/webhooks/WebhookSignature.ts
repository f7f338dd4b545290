/**
 * Webhook signatures (decision 0010): `X-Service-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`, keyed with
 * the webhook secret as its UTF-8 bytes — Stripe's scheme, so its
 * verifiers accept ours. During a secret rotation a delivery carries one
 * `v1=` per valid secret, so a receiver on either secret verifies.
 *
 * `verify` (Effect) and `verifyWebhook` (Promise) are what a receiver
 * drops in: signature and replay window checked, nothing else.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import * as Hex from "effect/encoding/Hex"
import * as Crypto from "../platform/Crypto.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/** The signature header's name. */
export const header = "x-service-signature"

/** A receiver rejects a timestamp further than this from its clock (decision 0010). */
export const defaultToleranceSeconds = 300

const encoder = new TextEncoder()

const keyOf = (secret: string) => Crypto.hmacKey(encoder.encode(secret))

/** The header value for `body` sent at `timestampSeconds`, one `v1=` per secret (current first). */
export const sign = (
  body: string,
  secrets: ReadonlyArray<string>,
  timestampSeconds: number
): Effect.Effect<string> =>
  Effect.map(
    Effect.forEach(secrets, (secret) =>
      Effect.flatMap(keyOf(secret), (key) => key.sign(`${timestampSeconds}.${body}`))),
    (signatures) => [`t=${timestampSeconds}`, ...signatures.map((s) => `v1=${Hex.encode(s)}`)].join(",")
  )

/** Why a webhook request was not verified. */
export class WebhookVerificationError extends TaggedFailure("WebhookVerificationError")<{
  readonly reason: "missing-header" | "malformed-header" | "timestamp-outside-tolerance" | "no-matching-signature"
  readonly message: string
}> {}

/** A verified request: when it was signed. */
export interface Verified {
  readonly timestampSeconds: number
}

/** The parts of a signature header; `undefined` when it is not one. */
export const parse = (value: string): { readonly timestampSeconds: number; readonly v1: ReadonlyArray<string> } | undefined => {
  let timestampSeconds: number | undefined
  const v1: Array<string> = []
  for (const part of value.split(",")) {
    const separator = part.indexOf("=")
    if (separator <= 0) return undefined
    const name = part.slice(0, separator).trim()
    const content = part.slice(separator + 1).trim()
    if (name === "t") {
      if (!/^\d{1,12}$/.test(content) || timestampSeconds !== undefined) return undefined
      timestampSeconds = Number(content)
    } else if (name === "v1") {
      if (/^[0-9a-f]{64}$/i.test(content)) v1.push(content.toLowerCase())
    }
    // Other schemes (v0, future versions) are ignored, as Stripe's verifiers do.
  }
  return timestampSeconds === undefined ? undefined : { timestampSeconds, v1 }
}

const headerValue = (headers: Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(header) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const key = Object.keys(record).find((name) => name.toLowerCase() === header)
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value.join(",") : value as string | undefined
}

/**
 * Verifies a delivery: `rawBody` exactly as received, its headers (a
 * `Headers` or Node's `IncomingHttpHeaders`), the secrets to accept (during
 * a rotation, both), and `now` (epoch ms; by default the clock's).
 */
export const verify = (
  rawBody: string,
  headers: Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  secrets: ReadonlyArray<string>,
  options: { readonly toleranceSeconds?: number | undefined; readonly now?: number | undefined } = {}
): Effect.Effect<Verified, WebhookVerificationError> =>
  Effect.gen(function*() {
    const value = headerValue(headers)
    if (value === undefined || value === "") {
      return yield* new WebhookVerificationError({ reason: "missing-header", message: `No ${header} header` })
    }
    const parsed = parse(value)
    if (parsed === undefined) {
      return yield* new WebhookVerificationError({ reason: "malformed-header", message: `${header} is not t=...,v1=...` })
    }
    const now = options.now ?? Date.now()
    const tolerance = options.toleranceSeconds ?? defaultToleranceSeconds
    if (Math.abs(Math.floor(now / 1000) - parsed.timestampSeconds) > tolerance) {
      return yield* new WebhookVerificationError({
        reason: "timestamp-outside-tolerance",
        message: `The signature's timestamp is more than ${tolerance} s from now`
      })
    }
    const signed = `${parsed.timestampSeconds}.${rawBody}`
    for (const secret of secrets) {
      const key = yield* keyOf(secret)
      for (const candidate of parsed.v1) {
        // `parse` kept only 64 hex digits.
        if (yield* key.verify(Result.getOrThrow(Hex.decode(candidate)), signed)) {
          return { timestampSeconds: parsed.timestampSeconds }
        }
      }
    }
    return yield* new WebhookVerificationError({
      reason: "no-matching-signature",
      message: "No v1 signature matches the body with any of the given secrets"
    })
  })

/** `verify` for receivers outside Effect: resolves when verified, rejects with a `WebhookVerificationError`. */
export const verifyWebhook = (
  rawBody: string,
  headers: Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  secrets: ReadonlyArray<string>,
  options: { readonly toleranceSeconds?: number | undefined; readonly now?: number | undefined } = {}
): Promise<Verified> => Effect.runPromise(verify(rawBody, headers, secrets, options))
