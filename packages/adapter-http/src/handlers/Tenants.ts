/**
 * The handlers of `/v1/tenants`: the operator's.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { type Tenant, TenantStore, Tenants, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { toProblem } from "../edge/DomainProblems.ts"
import { captured, operatorCaller, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A tenant as the API shows it. */
const tenantJson = (tenant: Tenant.Tenant) => ({ ...tenant, limits: tenant.limits ?? null })

/** `POST /v1/tenants`, `PATCH /v1/tenants/{tenant_id}`. */
export const tenantsLayer = ApiHandlers.group(Api, "tenants", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantStore.TenantStore, Transactor.Transactor)
    return handlers
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          yield* operatorCaller("tenants.create")
          const { tenant, token } = yield* Effect.mapError(provide(Tenants.provision(payload)), toProblem)
          return respond(endpoint, { ...tenantJson(tenant), token })
        }))
      .handle("changePlan", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          yield* operatorCaller("tenants.changePlan")
          const tenant = yield* Effect.mapError(
            provide(Tenants.changePlan(params.tenant_id as Tenant.TenantId, payload)),
            toProblem
          )
          return respond(endpoint, tenantJson(tenant))
        }))
  }))
