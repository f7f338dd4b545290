/**
 * API tokens: random, shown once, stored as a SHA-256 hash (the tokens carry
 * 256 bits of entropy, so a slow password hash would add nothing but latency).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { sha256Hex } from "../platform/Crypto.ts"
import { randomBytes } from "../platform/Ids.ts"

/** Prefix of every token, so leaked tokens are easy to recognise and scan for. */
export const tokenPrefix = "ast_"

/** A new random token. */
export const generate: Effect.Effect<string> = Effect.map(randomBytes(32), (bytes) => tokenPrefix + Base64Url.encode(bytes))

/** The hash under which a token is stored and looked up. */
export const hash = (token: string): Effect.Effect<string> => sha256Hex(token)
