/**
 * Port: tenants and their API tokens.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Scope, type Stream } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Tenant, TenantId } from "./Tenant.ts"

/** An API token as stored: only its SHA-256 hash, never the token. */
export interface ApiTokenRecord {
  readonly tokenId: string
  readonly tenantId: TenantId
  readonly tokenHash: string
  readonly userId: string
  readonly email: string | null
  readonly roles: ReadonlyArray<string>
  readonly createdAt: Date
}

/** Tenants and their API tokens. */
export class TenantStore extends Context.Service<TenantStore, {
  readonly insertTenant: (tenant: Tenant) => Effect.Effect<void, StoreError>
  readonly findTenant: (tenantId: TenantId) => Effect.Effect<Tenant | undefined, StoreError>
  /** Replaces a tenant's plan and limits; `false` when there is no such tenant. */
  readonly updateTenant: (tenant: Tenant) => Effect.Effect<boolean, StoreError>
  /**
   * Subscribes to changes of tenants (updates, removed tokens), by this
   * process or (for a shared store) any other, so caches can drop them at
   * once: the stream carries the ids of tenants changed after the
   * subscription is made, until the scope closes.
   */
  readonly changes: Effect.Effect<Stream.Stream<TenantId>, never, Scope.Scope>
  /** Stores a token; a hash already stored is left as it is and reported `false`. */
  readonly insertToken: (token: ApiTokenRecord) => Effect.Effect<boolean, StoreError>
  readonly findTokenByHash: (tokenHash: string) => Effect.Effect<ApiTokenRecord | undefined, StoreError>
  /** The tenant's tokens holding `role`, oldest first. */
  readonly listTokens: (tenantId: TenantId, role: string) => Effect.Effect<ReadonlyArray<ApiTokenRecord>, StoreError>
  /** Deletes one of the tenant's tokens and announces the change; `false` when it had none with this id. */
  readonly removeToken: (tenantId: TenantId, tokenId: string) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/TenantStore") {}
