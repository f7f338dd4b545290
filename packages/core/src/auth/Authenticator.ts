/**
 * Port: turns a bearer credential into a principal. The default reads API
 * tokens from the TenantStore and recognises the operator token; an
 * embedding app can provide its own (for example verifying its own JWTs).
 *
 * @since 0.1.0
 */
import { Cache, Clock, Context, Effect, Exit, Layer, Option, Redacted, Stream } from "effect"
import * as HitPath from "../platform/HitPath.ts"
import * as ApiToken from "../tenancy/ApiToken.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { type StoreError, Unauthenticated } from "../platform/Errors.ts"
import { Member, Operator, type Principal } from "./Principal.ts"
import { TenantStore } from "../tenancy/TenantStore.ts"
import * as TenantTokens from "./TenantTokens.ts"
import type { UserId } from "../directory/User.ts"

/** What of a request an embedding app's own sign-in may read: its headers and cookies (lower-case header names). */
export interface IncomingRequest {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly cookies: Readonly<Record<string, string | undefined>>
}

/** Authenticates bearer credentials and, optionally, requests signed in by the embedding app. */
export class Authenticator extends Context.Service<Authenticator, {
  readonly authenticate: (credential: Redacted.Redacted<string>) => Effect.Effect<Principal, Unauthenticated | StoreError>
  /**
   * `authenticate` for a bearer token the caller holds as a plain string
   * (the edge reads every request's token so): an authenticator may offer it
   * to spare a `Redacted` wrapper per request, whose registration in a
   * global `WeakMap` costs the collector too. Optional: without it, the
   * token is wrapped and given to `authenticate`.
   */
  readonly authenticateToken?: ((token: string) => Effect.Effect<Principal, Unauthenticated | StoreError>) | undefined
  /**
   * An embedding app that mounts the service beside its own pages says who
   * its signed-in user is, from its own session (decision 0022): the member,
   * or `undefined` when the request is not signed in there. Asked only for
   * requests with neither a bearer token nor the console's session cookie;
   * the member acts on the `embedded` channel, and unsafe requests need the
   * embedded CSRF token (`GET /api/session`).
   */
  readonly authenticateRequest?: ((request: IncomingRequest) => Effect.Effect<Principal | undefined, Unauthenticated | StoreError>) | undefined
}>()("@analytics/core/Authenticator") {}

/** How long a verified token is remembered in process, to spare the store a lookup per request. */
const cacheMillis = 30_000
const cacheCapacity = 10_000

const invalid = new Unauthenticated({ detail: "The bearer token is not valid" })

/** A verified token: its member, and whether that member is a directory user read afresh per request. */
interface Verified {
  readonly member: Member
  readonly userBound: boolean
}

/**
 * The built-in authenticator: the operator token (when configured) and the
 * API tokens stored by `TenantStore`. A user's personal token
 * (`TenantTokens.issueForUser`) acts as that user as the directory has them
 * at each request: deprovisioned, they are refused from their next request;
 * their service roles are the directory's. Verified tokens are remembered
 * for 30 s, and forgotten at once when the store announces a change of their
 * tenant (a revoked token, a new plan).
 */
export const layerTokens = (options: {
  readonly operatorToken: Option.Option<Redacted.Redacted<string>>
}): Layer.Layer<Authenticator, never, TenantStore | DirectoryStore> =>
  Layer.effect(
    Authenticator,
    Effect.gen(function*() {
      const store = yield* TenantStore
      const directory = yield* DirectoryStore
      const operatorHash = Option.isSome(options.operatorToken)
        ? yield* ApiToken.hash(Redacted.value(options.operatorToken.value))
        : undefined
      // The per-request hit path (decision 0008): a plain Map answers a remembered token in one step; the cache below shares
      // the lookups of a miss. Keyed by the token's hash, like the cache and the store: raw tokens are kept nowhere
      // beyond a request, so a heap dump shows no usable credential, and the hash costs about a microsecond.
      const remembered = HitPath.make<string, Verified>(cacheCapacity)
      const verified = yield* Cache.makeWith(
        (tokenHash: string) =>
          HitPath.answer(
            remembered,
            cacheMillis,
            Effect.flatMap(store.findTokenByHash(tokenHash), (record): Effect.Effect<Verified, Unauthenticated> =>
              record === undefined ? Effect.fail(invalid) : Effect.succeed({
                member: new Member({ tenantId: record.tenantId, userId: record.userId, email: record.email, roles: record.roles }),
                userBound: record.roles.includes(TenantTokens.userRole)
              }))
          ),
        // Valid tokens are remembered; unknown ones and store failures are asked again.
        { capacity: cacheCapacity, timeToLive: (exit) => (Exit.isSuccess(exit) ? cacheMillis : 0) }
      )
      // Changes are rare (revocations, plan changes): forgetting every token then is simpler than indexing them by tenant.
      // The cache first, then the hit path: a request between the two steps can only find the cache's fresh answers, and
      // whatever it keeps in the hit path is dropped by the second step.
      yield* Effect.forkScoped(Stream.runForEach(yield* store.changes, () =>
        Effect.andThen(Cache.invalidateAll(verified), Effect.sync(remembered.invalidateAll))))
      /** The directory user behind a personal token, as they are now. */
      const asUserNow = (member: Member) =>
        Effect.flatMap(directory.findUser(member.tenantId, member.userId as UserId), (user) =>
          user === undefined || user.status !== "active"
            ? Effect.fail(new Unauthenticated({ detail: "The token's user is deprovisioned" }))
            : Effect.succeed(new Member({ tenantId: user.tenant_id, userId: user.user_id, email: user.email, roles: user.roles })))
      const operator = new Operator()
      /** The principal of a verified token: a personal token's user as the directory has them now. */
      const principalOf = (found: Verified): Effect.Effect<Principal, Unauthenticated | StoreError> =>
        found.userBound ? asUserNow(found.member) : Effect.succeed(found.member)
      const authenticateToken = (token: string): Effect.Effect<Principal, Unauthenticated | StoreError> => {
        if (token.length === 0 || token.length > 512) return Effect.fail(invalid)
        return Effect.flatMap(ApiToken.hash(token), (tokenHash) => {
          if (tokenHash === operatorHash) return Effect.succeed(operator)
          return Clock.clockWith((clock) => {
            const known = remembered.get(tokenHash, clock.currentTimeMillisUnsafe())
            return known !== undefined ? principalOf(known) : Effect.flatMap(HitPath.lookUp(remembered, verified, tokenHash), principalOf)
          })
        })
      }
      return {
        authenticate: (credential) => authenticateToken(Redacted.value(credential)),
        authenticateToken
      }
    })
  )
