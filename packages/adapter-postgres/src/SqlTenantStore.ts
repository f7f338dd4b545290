/**
 * The TenantStore over `SqlClient`: tenants, their API tokens, and the
 * changes announced to every process on the database.
 *
 * @since 0.1.0
 */
import { type Plan, Tenant, TenantStore } from "@analytics/core"
import { Effect, Option, PubSub, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { failAs, isId } from "./StoreErrors.ts"
import { listen } from "./Listen.ts"

interface TenantRow {
  readonly tenant_id: string
  readonly name: string
  readonly plan: string
  readonly limits: Plan.NegotiatedLimits | null
  readonly created_at: Date
}

/** A tenant's negotiated limits as a jsonb parameter (SQL NULL when none). */
const limitsJson = (tenant: Tenant.Tenant): string | null =>
  tenant.limits === undefined ? null : JSON.stringify(tenant.limits)

/** The channel tenant updates are announced on, to every process on the database. */
const tenantChangesChannel = "analytics_tenant_changes"

interface TokenRow {
  readonly token_id: string
  readonly tenant_id: string
  readonly token_hash: string
  readonly user_id: string
  readonly email: string | null
  readonly roles: ReadonlyArray<string>
  readonly created_at: Date
}

const toToken = (row: TokenRow): TenantStore.ApiTokenRecord => ({
  tokenId: row.token_id,
  tenantId: row.tenant_id as Tenant.TenantId,
  tokenHash: row.token_hash,
  userId: row.user_id,
  email: row.email,
  roles: row.roles,
  createdAt: row.created_at
})

/** The TenantStore on SQL. */
export const make: Effect.Effect<TenantStore.TenantStore["Service"], never, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const local = yield* PubSub.unbounded<Tenant.TenantId>()
    const tokenColumns = sql.literal("token_id, tenant_id, token_hash, user_id, email, roles, created_at")
    return TenantStore.TenantStore.of({
      insertTenant: (tenant) =>
        sql`INSERT INTO tenants (tenant_id, name, plan, limits, created_at)
          VALUES (${tenant.tenant_id}, ${tenant.name}, ${tenant.plan}, ${limitsJson(tenant)}::jsonb, ${tenant.created_at})`.pipe(
          Effect.asVoid,
          failAs("TenantStore.insertTenant")
        ),
      updateTenant: (tenant) => {
        if (!isId(tenant.tenant_id)) return Effect.succeed(false)
        // One statement updates and announces; the announcement is sent only if the update commits.
        return sql`WITH updated AS (
            UPDATE tenants SET plan = ${tenant.plan}, limits = ${limitsJson(tenant)}::jsonb
            WHERE tenant_id = ${tenant.tenant_id} RETURNING tenant_id
          )
          SELECT pg_notify(${tenantChangesChannel}, tenant_id::text) FROM updated`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.tap((updated) => updated ? PubSub.publish(local, tenant.tenant_id) : Effect.void),
          failAs("TenantStore.updateTenant")
        )
      },
      changes: Effect.gen(function*() {
        const here = Stream.fromSubscription(yield* PubSub.subscribe(local))
        // Other processes' updates (none on PGlite); while listening is down, they arrive by the cache's expiry.
        const remote = Option.map(yield* listen(tenantChangesChannel, "tenant changes"), Stream.map((id) => id as Tenant.TenantId))
        return Option.match(remote, { onNone: () => here, onSome: (others) => Stream.merge(here, others) })
      }),
      findTenant: (tenantId) => {
        if (!isId(tenantId)) return Effect.succeed(undefined)
        return sql<TenantRow>`SELECT tenant_id, name, plan, limits, created_at FROM tenants WHERE tenant_id = ${tenantId}`.pipe(
          // Rows were validated on the way in.
          Effect.map(([row]) =>
            row === undefined ? undefined : new Tenant.Tenant({
              tenant_id: row.tenant_id as Tenant.TenantId,
              name: row.name,
              plan: row.plan as Plan.Plan,
              ...(row.limits === null ? {} : { limits: row.limits }),
              created_at: row.created_at
            }, { disableChecks: true })
          ),
          failAs("TenantStore.findTenant")
        )
      },
      insertToken: (token) =>
        sql`INSERT INTO api_tokens (token_id, tenant_id, token_hash, user_id, email, roles, created_at)
          VALUES (${token.tokenId}, ${token.tenantId}, ${token.tokenHash}, ${token.userId}, ${token.email},
            ${token.roles}, ${token.createdAt})
          ON CONFLICT (token_hash) DO NOTHING
          RETURNING token_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          failAs("TenantStore.insertToken")
        ),
      findTokenByHash: (tokenHash) =>
        sql<TokenRow>`SELECT ${tokenColumns} FROM api_tokens WHERE token_hash = ${tokenHash}`.pipe(
          Effect.map(([row]) => row === undefined ? undefined : toToken(row)),
          failAs("TenantStore.findTokenByHash")
        ),
      listTokens: (tenantId, role) => {
        if (!isId(tenantId)) return Effect.succeed([])
        return sql<TokenRow>`SELECT ${tokenColumns} FROM api_tokens WHERE tenant_id = ${tenantId} AND ${role} = ANY (roles)
          ORDER BY created_at, token_id`.pipe(Effect.map((rows) => rows.map(toToken)), failAs("TenantStore.listTokens"))
      },
      removeToken: (tenantId, tokenId) => {
        if (!isId(tenantId) || !isId(tokenId)) return Effect.succeed(false)
        // Deletes and announces, as updateTenant does: authenticators everywhere forget the token.
        return sql`WITH removed AS (
            DELETE FROM api_tokens WHERE tenant_id = ${tenantId} AND token_id = ${tokenId} RETURNING tenant_id
          )
          SELECT pg_notify(${tenantChangesChannel}, tenant_id::text) FROM removed`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.tap((removed) => removed ? PubSub.publish(local, tenantId as Tenant.TenantId) : Effect.void),
          failAs("TenantStore.removeToken")
        )
      }
    })
  }
)
