/**
 * The handler of `GET /v1/audit-log`: tenant admins only.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, Cursor } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"

/** `GET /v1/audit-log`: tenant admins only. */
export const auditLogLayer = HttpApiBuilder.group(Api, "auditLog", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(AuditLog.AuditStore, Cursor.CursorCodec)
    return handlers.handle("list", ({ endpoint, query }) =>
      Effect.gen(function*() {
        const admin = yield* caller("auditLog.list")
        const filter = { action: query.action, targetType: query.target_type, targetId: query.target_id, actorId: query.actor_id }
        const page = yield* Effect.mapError(provide(AuditLog.list(admin.tenantId, filter, yield* listRequest(query))), toProblem)
        return respond(endpoint, {
          data: page.data.map((e) => ({
            entry_id: e.entry_id,
            workspace_id: e.workspace_id,
            action: e.action,
            actor: e.actor,
            target: e.target,
            detail: e.detail,
            created_at: e.created_at
          })),
          page: page.page
        })
      }))
  }))
