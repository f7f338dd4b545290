/**
 * Each tenant's branding over `SqlClient`: one row per tenant that set any.
 *
 * @since 0.1.0
 */
import { TenantBranding } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { failAs, isId } from "./StoreErrors.ts"

interface BrandingRow {
  readonly name: string | null
  readonly logo: string | null
  readonly accent_color: string | null
  readonly updated_at: Date | null
}

/** Each tenant's branding: one row per tenant that set any. */
export const make: Effect.Effect<TenantBranding.BrandingStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return TenantBranding.BrandingStore.of({
    find: (tenantId) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      // Validated on the way in.
      return sql<BrandingRow>`SELECT name, logo, accent_color, updated_at FROM tenant_branding WHERE tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => rows[0] as TenantBranding.Branding | undefined),
        failAs("BrandingStore.find")
      )
    },
    save: (tenantId, b) =>
      sql`INSERT INTO tenant_branding (tenant_id, name, logo, accent_color, updated_at)
        VALUES (${tenantId}, ${b.name}, ${b.logo}, ${b.accent_color}, ${b.updated_at})
        ON CONFLICT (tenant_id) DO UPDATE SET name = EXCLUDED.name, logo = EXCLUDED.logo,
          accent_color = EXCLUDED.accent_color, updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, failAs("BrandingStore.save"))
  })
})
