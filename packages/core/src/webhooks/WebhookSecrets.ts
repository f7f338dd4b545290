/**
 * A webhook's signing secrets and their rotation (decision 0010): after
 * a rotation the old secret still signs for 24 hours, beside the new one,
 * so receivers can switch over without losing a delivery.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { randomBytes } from "../platform/Ids.ts"

/** How long a replaced secret keeps signing (decision 0010). */
export const overlapMillis = 24 * 60 * 60 * 1000

/** The prefix of generated secrets, so a leaked one is recognisable (as Stripe's `whsec_`). */
export const prefix = "whsec_"

/** A fresh secret: 256 random bits. */
export const generate: Effect.Effect<string> = Effect.map(randomBytes(32), (bytes) => prefix + Base64Url.encode(bytes))

/** A webhook's secrets: the current one, and the one it replaced while it still signs. */
export interface Secrets {
  readonly current: string
  readonly previous?: { readonly secret: string; readonly until: number } | undefined
}

/** Replaces the current secret at `now`; the replaced one signs on for `overlapMillis`. */
export const rotate = (secrets: Secrets, next: string, now: number): Secrets => ({
  current: next,
  previous: { secret: secrets.current, until: now + overlapMillis }
})

/** The secrets that sign a delivery made at `now`: the current one first. */
export const signing = (secrets: Secrets, now: number): ReadonlyArray<string> =>
  secrets.previous !== undefined && now < secrets.previous.until
    ? [secrets.current, secrets.previous.secret]
    : [secrets.current]
