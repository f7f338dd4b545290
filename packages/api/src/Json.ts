/**
 * The JSON a schema of the contract travels as: its encoded side, what a
 * client reads from a response body or writes in a request's. The console
 * names its response shapes with it (`Json<typeof Groups.Webhooks.WebhookJson>`),
 * imported for its type only, so the contract is their one definition.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"

/** The JSON of a value of schema `S` (its `Encoded` type). */
export type Json<S extends Schema.Top> = S["Encoded"]
