/**
 * Port: turns a bearer credential into a principal. The default reads API
 * tokens from the TenantStore and recognises the operator token; an
 * embedding app can provide its own (for example verifying its own JWTs).
 *
 * @since 0.1.0
 */
import { Cache, Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import * as ApiToken from "./ApiToken.ts"
import { type StoreError, Unauthenticated } from "./Errors.ts"
import { Member, Operator, type Principal } from "./Principal.ts"
import { TenantStore } from "./TenantStore.ts"

/** Authenticates bearer credentials. */
export class Authenticator extends Context.Service<Authenticator, {
  readonly authenticate: (credential: Redacted.Redacted<string>) => Effect.Effect<Principal, Unauthenticated | StoreError>
}>()("@analytics/core/Authenticator") {}

/** How long a verified token is remembered in process, to spare the store a lookup per request. */
const cacheMillis = 30_000
const cacheCapacity = 10_000

const invalid = new Unauthenticated({ detail: "The bearer token is not valid" })

/**
 * The built-in authenticator: the operator token (when configured) and the
 * API tokens stored by `TenantStore`.
 */
export const layerTokens = (options: {
  readonly operatorToken: Option.Option<Redacted.Redacted<string>>
}): Layer.Layer<Authenticator, never, TenantStore> =>
  Layer.effect(
    Authenticator,
    Effect.gen(function*() {
      const store = yield* TenantStore
      const operatorHash = Option.isSome(options.operatorToken)
        ? yield* ApiToken.hash(Redacted.value(options.operatorToken.value))
        : undefined
      const principals = yield* Cache.makeWith(
        (tokenHash: string) =>
          Effect.flatMap(store.findTokenByHash(tokenHash), (record): Effect.Effect<Principal, Unauthenticated> =>
            record === undefined
              ? Effect.fail(invalid)
              : Effect.succeed(
                new Member({ tenantId: record.tenantId, userId: record.userId, email: record.email, roles: record.roles })
              )),
        // Valid tokens are remembered; unknown ones and store failures are asked again.
        { capacity: cacheCapacity, timeToLive: (exit) => (Exit.isSuccess(exit) ? cacheMillis : 0) }
      )
      const operator = new Operator()
      return {
        authenticate: (credential) =>
          Effect.gen(function*() {
            const token = Redacted.value(credential)
            if (token.length === 0 || token.length > 512) return yield* invalid
            const tokenHash = yield* ApiToken.hash(token)
            if (tokenHash === operatorHash) return operator
            return yield* Cache.get(principals, tokenHash)
          })
      }
    })
  )
