/**
 * Provisioning tenants: the operator's endpoints.
 *
 * @since 0.1.0
 */
import { Plan, Tenant } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"

/** A tenant as the API shows it. */
export const TenantJson = Schema.Struct({
  tenant_id: Tenant.TenantId,
  name: Tenant.Name,
  plan: Plan.Plan,
  limits: Schema.NullOr(Plan.NegotiatedLimits).annotate({
    description: "The custom plan's negotiated limits; null on other plans (their limits are the plan's)"
  }),
  created_at: Schema.Date
})

/** A plan, with negotiated limits when it is custom. */
const PlanChoice = {
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.NegotiatedLimits)
}

/** A provisioned tenant, with its admin token shown this once. */
export const ProvisionedTenant = Schema.Struct({
  ...TenantJson.fields,
  token: Schema.String.annotate({ description: "The tenant's admin API token; shown once, stored only as a hash" })
})

/** Provisioning tenants: the operator token only. */
export const TenantsGroup = HttpApiGroup.make("tenants")
  .add(Endpoints.create("create", "/v1/tenants", {
    payload: Schema.Struct({ name: Tenant.Name, ...PlanChoice }),
    success: ProvisionedTenant,
    error: Problems.Forbidden
  }))
  .add(Endpoints.update("changePlan", "/v1/tenants/:tenant_id", {
    params: { tenant_id: Schema.String },
    payload: Schema.Struct(PlanChoice),
    success: TenantJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Moves a tenant to another plan; its limits apply from its next request. Negotiated limits go with the custom plan only."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Tenant provisioning and plans, for the service operator's token only.")
