/**
 * The handlers of `/v1/workspaces`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditedChanges, AuditLog, Cursor, EventPublisher, Transactor, type Workspace, WorkspaceStore, Workspaces } from "@analytics/core"
import { Effect } from "effect"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A workspace as the API shows it. */
const workspaceJson = (w: Workspace.Workspace) => ({
  workspace_id: w.workspace_id,
  name: w.name,
  description: w.description,
  created_at: w.created_at
})

/** `GET|POST /v1/workspaces`, `GET /v1/workspaces/{workspace_id}`. */
export const workspacesLayer = ApiHandlers.group(Api, "workspaces", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(WorkspaceStore.WorkspaceStore, Cursor.CursorCodec, AuditLog.AuditStore, EventPublisher.EventPublisher, Transactor.Transactor)
    return handlers
      .handle("list", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("workspaces.list")
          const list = yield* listRequest(request.query)
          const page = yield* Effect.mapError(
            provide(Workspaces.list(member.tenantId, { ...list, sort: request.query.sort })),
            toProblem
          )
          return respond(request.endpoint, { data: page.data.map(workspaceJson), page: page.page })
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("workspaces.get")
          const workspace = yield* Effect.mapError(provide(Workspaces.get(member.tenantId, params.workspace_id)), toProblem)
          return respond(endpoint, workspaceJson(workspace))
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("workspaces.create")
          const workspace = yield* Effect.mapError(provide(AuditedChanges.createWorkspace(member.tenantId, payload, AuditLog.actorOf(member))), toProblem)
          return respond(endpoint, workspaceJson(workspace))
        }))
  }))
