/**
 * Each tenant's branding over `SqlClient`: one row per tenant that set any.
 *
 * @since 0.1.0
 */
import { TenantBranding } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { failAs, isId } from "./StoreErrors.ts"

// Its values were validated on the way in: only the row's shape is checked again.
const brandings = Rows.reader(Schema.Struct({
  name: Schema.NullOr(Schema.String),
  logo: Schema.NullOr(Schema.String),
  accent_color: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(Schema.Date)
}), (row): TenantBranding.Branding => row)

/** Each tenant's branding: one row per tenant that set any. */
export const make: Effect.Effect<TenantBranding.BrandingStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return TenantBranding.BrandingStore.of({
    find: (tenantId) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      return sql`SELECT name, logo, accent_color, updated_at FROM tenant_branding WHERE tenant_id = ${tenantId}`.pipe(
        brandings.first("BrandingStore.find")
      )
    },
    save: (tenantId, b) =>
      sql`INSERT INTO tenant_branding (tenant_id, name, logo, accent_color, updated_at)
        VALUES (${tenantId}, ${b.name}, ${b.logo}, ${b.accent_color}, ${b.updated_at})
        ON CONFLICT (tenant_id) DO UPDATE SET name = EXCLUDED.name, logo = EXCLUDED.logo,
          accent_color = EXCLUDED.accent_color, updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, failAs("BrandingStore.save"))
  })
})
