/**
 * Who a bearer credential names: its principal and, for a tenant member,
 * the tenant (read through the cached TenantCache). Authentication and
 * rate limiting both start from this.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { Authenticator } from "./Authenticator.ts"
import type { StoreError, Unauthenticated } from "../platform/Errors.ts"
import type { Principal } from "./Principal.ts"
import type { Tenant } from "../tenancy/Tenant.ts"
import { TenantCache } from "../tenancy/TenantCache.ts"

/** A credential's principal, with the member's tenant (`undefined` for the operator, or when the tenant does not exist). */
export interface Caller {
  readonly principal: Principal
  readonly tenant: Tenant | undefined
}

/** Builds the resolver of bearer tokens once, from the Authenticator and TenantCache in context. */
export const resolver = Effect.gen(function*() {
  const authenticator = yield* Authenticator
  const directory = yield* TenantCache
  const authenticate = authenticator.authenticateToken ?? ((token: string) => authenticator.authenticate(Redacted.make(token)))
  return (token: string): Effect.Effect<Caller, Unauthenticated | StoreError> =>
    Effect.flatMap(authenticate(token), (principal): Effect.Effect<Caller, StoreError> =>
      principal._tag === "Operator"
        ? Effect.succeed({ principal, tenant: undefined })
        : Effect.map(directory.get(principal.tenantId), (tenant) => ({ principal, tenant })))
})
