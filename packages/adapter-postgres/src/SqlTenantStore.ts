/**
 * The TenantStore over `SqlClient`: tenants, their API tokens, and the
 * changes announced to every process on the database.
 *
 * @since 0.1.0
 */
import { Plan, Tenant, TenantStore } from "@analytics/core"
import { Effect, Option, PubSub, Schema, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { failAs, isId } from "./StoreErrors.ts"
import { listen } from "./Listen.ts"

const TenantRow = Schema.Struct({
  tenant_id: Schema.String,
  name: Schema.String,
  plan: Plan.Plan,
  limits: Schema.NullOr(Rows.Jsonb(Plan.NegotiatedLimits)),
  created_at: Schema.Date
})

// Rows were validated on the way in; read back, their shape is checked (and the plan and the limits, which are small).
const tenants = Rows.reader(TenantRow, ({ limits, ...row }) =>
  new Tenant.Tenant({
    ...row,
    tenant_id: row.tenant_id as Tenant.TenantId,
    ...(limits === null ? {} : { limits })
  }, { disableChecks: true }))

/** A tenant's negotiated limits as a jsonb parameter (SQL NULL when none). */
const limitsJson = (tenant: Tenant.Tenant): string | null =>
  tenant.limits === undefined ? null : JSON.stringify(tenant.limits)

/** The channel tenant updates are announced on, to every process on the database. */
const tenantChangesChannel = "analytics_tenant_changes"

const TokenRow = Schema.Struct({
  token_id: Schema.String,
  tenant_id: Schema.String,
  token_hash: Schema.String,
  user_id: Schema.String,
  email: Schema.NullOr(Schema.String),
  roles: Schema.Array(Schema.String),
  created_at: Schema.Date
})

const tokens = Rows.reader(TokenRow, (row): TenantStore.ApiTokenRecord => ({
  tokenId: row.token_id,
  tenantId: row.tenant_id as Tenant.TenantId,
  tokenHash: row.token_hash,
  userId: row.user_id,
  email: row.email,
  roles: row.roles,
  createdAt: row.created_at
}))

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
        return sql`SELECT tenant_id, name, plan, limits, created_at FROM tenants WHERE tenant_id = ${tenantId}`.pipe(
          tenants.first("TenantStore.findTenant")
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
        sql`SELECT ${tokenColumns} FROM api_tokens WHERE token_hash = ${tokenHash}`.pipe(tokens.first("TenantStore.findTokenByHash")),
      listTokens: (tenantId, role) => {
        if (!isId(tenantId)) return Effect.succeed([])
        return sql`SELECT ${tokenColumns} FROM api_tokens WHERE tenant_id = ${tenantId} AND ${role} = ANY (roles)
          ORDER BY created_at, token_id`.pipe(tokens.all("TenantStore.listTokens"))
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
