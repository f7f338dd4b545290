/**
 * The JSON a schema of the contract travels as: what a client reads from a
 * response body or writes in a request's. It is the schema's encoded side
 * as the HTTP layer serializes it (`Schema.toCodecJson`): an instant
 * (`Schema.Date`) is its ISO 8601 text. The console names its response
 * shapes with it (`Json<typeof Groups.Webhooks.WebhookJson>`), imported for
 * its type only, so the contract is their one definition.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"

/** A value of the encoded side as it is written in JSON: dates as text, everything else as it is, read only. */
export type Wire<A> = A extends Date ? string : A extends object ? { readonly [K in keyof A]: Wire<A[K]> } : A

/** The JSON of a value of schema `S`: its `Encoded` type, as the wire carries it. */
export type Json<S extends Schema.Top> = Wire<S["Encoded"]>
