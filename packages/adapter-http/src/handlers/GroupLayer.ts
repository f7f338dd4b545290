/**
 * The handlers of one kind of group (teams, executive roles): one implementation for both.
 *
 * @since 0.1.0
 */
import { Api, type Middleware } from "@analytics/api"
import { Cursor, Directory, DirectoryStore, type Group, Policy } from "@analytics/core"
import { Effect, type Layer } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { directoryTools, userJson } from "./Directory.ts"
import { listRequest, respond } from "./Handling.ts"

/**
 * The handlers of one kind of group's endpoints (`/v1/teams`,
 * `/v1/executive-roles`): both groups have the same endpoints (see
 * `groupEndpoints` in `@analytics/api`), so one implementation serves them; the handler
 * builder's types do not follow a group name chosen by a type parameter,
 * hence the loose typing inside and the declared type outside.
 */
export const groupLayer = <Name extends "teams" | "executiveRoles">(
  name: Name,
  kind: Group.GroupKind,
  toJson: (group: Group.Group) => unknown
): Layer.Layer<
  HttpApiGroup.Service<"analytics", Name>,
  never,
  Cursor.CursorCodec | DirectoryStore.DirectoryStore | Middleware.Authentication | Middleware.Idempotent | Middleware.Validation
> =>
  HttpApiBuilder.group(Api, name, (handlers: any) =>
    Effect.gen(function*() {
      const { asAdmin } = yield* directoryTools
      return handlers
        .handle("list", ({ endpoint, query }: any) =>
          Effect.gen(function*() {
            const request = yield* listRequest(query)
            const page = yield* asAdmin(`${name}.list` as Policy.MemberOperation, (tenantId) => Directory.listGroups(tenantId, kind, request))
            return respond(endpoint, { data: page.data.map(toJson), page: page.page })
          }))
        .handle("create", ({ endpoint, payload }: any) =>
          Effect.map(asAdmin(`${name}.create` as Policy.MemberOperation, (tenantId, by) => Directory.createGroup(tenantId, kind, payload, by)), (group) => respond(endpoint, toJson(group))))
        .handle("get", ({ endpoint, params }: any) =>
          Effect.map(asAdmin(`${name}.get` as Policy.MemberOperation, (tenantId) => Directory.getGroup(tenantId, kind, params.id)), (group) => respond(endpoint, toJson(group))))
        .handle("rename", ({ endpoint, params, payload }: any) =>
          Effect.map(
            asAdmin(`${name}.rename` as Policy.MemberOperation, (tenantId, by) => Directory.renameGroup(tenantId, kind, params.id, payload, by)),
            (group) => respond(endpoint, toJson(group))
          ))
        .handle("delete", ({ params }: any) => asAdmin(`${name}.delete` as Policy.MemberOperation, (tenantId, by) => Directory.deleteGroup(tenantId, kind, params.id, by)))
        .handle("listMembers", ({ endpoint, params, query }: any) =>
          Effect.gen(function*() {
            const request = yield* listRequest(query)
            const page = yield* asAdmin(`${name}.listMembers` as Policy.MemberOperation, (tenantId) => Directory.listMembers(tenantId, kind, params.id, request))
            return respond(endpoint, { data: page.data.map(userJson), page: page.page })
          }))
        .handle("addMember", ({ endpoint, params, payload }: any) =>
          Effect.map(
            asAdmin(`${name}.addMember` as Policy.MemberOperation, (tenantId, by) => Directory.addMember(tenantId, kind, params.id, payload.user_id, by)),
            (user) => respond(endpoint, userJson(user))
          ))
        .handle("removeMember", ({ params }: any) =>
          asAdmin(`${name}.removeMember` as Policy.MemberOperation, (tenantId, by) => Directory.removeMember(tenantId, kind, params.id, params.user_id, by)))
    })) as any
