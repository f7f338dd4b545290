/**
 * Port: turns a bearer credential into a principal. The default reads API
 * tokens from the TenantStore and recognises the operator token; an
 * embedding app can provide its own (for example verifying its own JWTs).
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
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
      const cache = new Map<string, { readonly principal: Principal; readonly until: number }>()
      const operator = new Operator()
      return {
        authenticate: (credential) =>
          Effect.gen(function*() {
            const token = Redacted.value(credential)
            if (token.length === 0 || token.length > 512) return yield* invalid
            const tokenHash = yield* ApiToken.hash(token)
            if (tokenHash === operatorHash) return operator
            const now = yield* Clock.currentTimeMillis
            const cached = cache.get(tokenHash)
            if (cached !== undefined && cached.until > now) return cached.principal
            const record = yield* store.findTokenByHash(tokenHash)
            if (record === undefined) return yield* invalid
            const principal = new Member({
              tenantId: record.tenantId,
              userId: record.userId,
              email: record.email,
              roles: record.roles
            })
            if (cache.size >= cacheCapacity) cache.clear()
            cache.set(tokenHash, { principal, until: now + cacheMillis })
            return principal
          })
      }
    })
  )
