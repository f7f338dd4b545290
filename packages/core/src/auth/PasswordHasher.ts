/**
 * Port: hashing public-link passwords (decision 0014: Argon2id). The
 * core only ever holds the hash; the algorithm lives in an adapter.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

/** Hashes passwords and checks them against a stored hash. */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** A self-describing hash (PHC string: algorithm, parameters, salt) of `password`. */
  readonly hash: (password: string) => Effect.Effect<string>
  /** Whether `password` matches `hash`; a malformed hash matches nothing. */
  readonly verify: (hash: string, password: string) => Effect.Effect<boolean>
}>()("@analytics/core/PasswordHasher") {}
