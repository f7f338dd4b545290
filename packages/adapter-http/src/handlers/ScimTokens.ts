/**
 * The handlers of `/v1/scim-tokens`: tenant admins only.
 *
 * @since 0.1.0
 */
import { Api, Problems } from "@analytics/api"
import { AuditLog, Cursor, EventPublisher, TenantStore, TenantTokens, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { ServiceInfo } from "../ServiceInfo.ts"
import { toProblem } from "../edge/DomainProblems.ts"
import { issuedTokenJson, tokenJson } from "./DirectoryHandling.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `POST /v1/scim-tokens`: tenant admins only. */
export const scimTokensLayer = ApiHandlers.group(Api, "scimTokens", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantStore.TenantStore, Cursor.CursorCodec, AuditLog.AuditStore, EventPublisher.EventPublisher, Transactor.Transactor)
    const info = yield* ServiceInfo
    return handlers
      .handle("create", ({ endpoint }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.create")
          const issued = yield* Effect.mapError(provide(TenantTokens.issueScim(admin.tenantId, AuditLog.actorOf(admin))), toProblem)
          return respond(endpoint, { ...issuedTokenJson(issued), scim_url: `${info.publicBaseUrl}/scim/v2` })
        }))
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.list")
          const request = yield* listRequest(query)
          const page = yield* Effect.mapError(provide(TenantTokens.listPage(admin.tenantId, TenantTokens.scimRole, request)), toProblem)
          return respond(endpoint, { data: page.data.map(tokenJson), page: page.page })
        }))
      .handle("revoke", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("scimTokens.revoke")
          const revoked = yield* Effect.mapError(provide(TenantTokens.revoke(admin.tenantId, TenantTokens.scimRole, params.token_id, AuditLog.actorOf(admin))), toProblem)
          if (!revoked) return yield* new Problems.NotFound({ detail: `No SCIM token ${params.token_id}` })
        }))
  }))
