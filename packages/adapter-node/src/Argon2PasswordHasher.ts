/**
 * The PasswordHasher on `argon2` (the reference implementation's Node
 * binding): Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane;
 * decision 0014). Hashing runs on libuv's thread pool, off the event loop.
 *
 * @since 0.1.0
 */
import { PasswordHasher } from "@analytics/core"
import argon2 from "argon2"
import { Effect, Layer } from "effect"

/** OWASP's minimum for Argon2id (Password Storage Cheat Sheet): m = 19 MiB, t = 2, p = 1. */
export const parameters = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/** Hashes with Argon2id; verifies any Argon2 PHC string (so stronger parameters later still verify old hashes). */
export const layer = Layer.succeed(PasswordHasher.PasswordHasher, {
  hash: (password) => Effect.promise(() => argon2.hash(password, parameters)),
  verify: (hash, password) => Effect.promise(() => argon2.verify(hash, password).catch(() => false))
})
