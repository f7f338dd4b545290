/**
 * The handlers of `/v1/users...`: tenant admins only.
 *
 * @since 0.1.0
 */
import { Api, Problems } from "@analytics/api"
import { DirectoryUseCases, TenantTokens, UserUpdates } from "@analytics/core"
import { Effect } from "effect"
import { directoryTools, issuedTokenJson, tokenJson, userJson } from "./DirectoryHandling.ts"
import { listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `/v1/users...`: tenant admins only. */
export const usersLayer = ApiHandlers.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const { asAdmin } = yield* directoryTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin("users.list", (tenantId) => DirectoryUseCases.listUsers(tenantId, request))
          return respond(endpoint, { data: page.data.map(userJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.map(asAdmin("users.create", (tenantId, by) => DirectoryUseCases.createUser(tenantId, payload, by)), (user) => respond(endpoint, userJson(user))))
      .handle("get", ({ endpoint, params }) =>
        Effect.map(asAdmin("users.get", (tenantId) => DirectoryUseCases.getUser(tenantId, params.user_id)), (user) => respond(endpoint, userJson(user))))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.map(
          asAdmin("users.update", (tenantId, by) => UserUpdates.updateUser(tenantId, params.user_id, payload, by)),
          (user) => respond(endpoint, userJson(user))
        ))
      .handle("issueToken", ({ endpoint, params }) =>
        Effect.map(
          asAdmin("users.issueToken", (tenantId, by) => TenantTokens.issueForUserId(tenantId, params.user_id, by)),
          (issued) => respond(endpoint, issuedTokenJson(issued))
        ))
      .handle("listTokens", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin("users.listTokens", (tenantId) =>
            Effect.andThen(
              DirectoryUseCases.getUser(tenantId, params.user_id),
              TenantTokens.listPage(tenantId, TenantTokens.userRole, request, params.user_id)
            ))
          return respond(endpoint, { data: page.data.map(tokenJson), page: page.page })
        }))
      .handle("revokeToken", ({ params }) =>
        Effect.gen(function*() {
          const revoked = yield* asAdmin("users.revokeToken", (tenantId, by) =>
            TenantTokens.revoke(tenantId, TenantTokens.userRole, params.token_id, by, params.user_id)
          )
          if (!revoked) return yield* new Problems.NotFound({ detail: `User ${params.user_id} has no token ${params.token_id}` })
        }))
  }))
