/**
 * The tenant's branding of its share pages: name, logo and accent colour.
 * Tenant admins only (decision 0014).
 *
 * @since 0.1.0
 */
import { TenantBranding } from "@analytics/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

/** The tenant's branding; a field `null` is the service's own. */
export const BrandingJson = TenantBranding.Branding

/** The tenant's branding: tenant admins only. */
export const BrandingGroup = HttpApiGroup.make("branding")
  .add(
    HttpApiEndpoint.get("get", "/v1/branding", {
      success: BrandingJson,
      error: Problems.Forbidden
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The tenant's branding of its share pages; a field null is the service's own.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/branding", {
      payload: TenantBranding.BrandingPatch,
      success: BrandingJson,
      error: Problems.Forbidden
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes the tenant's branding: each field given is set, null clears it. The logo is a data: URL of a PNG, JPEG or WebP of at most 48 KB; an SVG is refused (it can carry script). A refused change changes nothing."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "How the tenant's share pages (the report, the password form, the refusals) look: its name, logo and accent colour. Tenant admins only.")
