/**
 * The handlers of `/v1/branding`: tenant admins only (decision 0014).
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, EventPublisher, TenantBranding, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `GET|PATCH /v1/branding`: tenant admins only. */
export const brandingLayer = ApiHandlers.group(Api, "branding", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantBranding.BrandingStore, AuditLog.AuditStore, EventPublisher.EventPublisher, Transactor.Transactor)
    return handlers
      .handle("get", ({ endpoint }) =>
        Effect.gen(function*() {
          const admin = yield* caller("branding.get")
          return respond(endpoint, yield* Effect.mapError(provide(TenantBranding.get(admin.tenantId)), toProblem))
        }))
      .handle("update", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("branding.update")
          return respond(endpoint, yield* Effect.mapError(provide(TenantBranding.update(admin.tenantId, payload, AuditLog.actorOf(admin))), toProblem))
        }))
  }))
