/**
 * The handlers of one kind of group (teams, executive roles): one implementation for both.
 *
 * @since 0.1.0
 */
import { DirectoryUseCases, type Group, type Policy } from "@analytics/core"
import { Effect } from "effect"
import { directoryTools, userJson } from "./DirectoryHandling.ts"
import { listRequest, respond } from "./Handling.ts"

/**
 * The handlers of one kind of group's endpoints (`/v1/teams`,
 * `/v1/executive-roles`): both groups have the same endpoints (see
 * `groupEndpoints` in `@analytics/api`), so one implementation serves them,
 * given to each group's typed `handleAll` (which checks every handler's
 * services and answers against that group's endpoints). The requests are
 * loosely typed here: the endpoints' types do not follow a group name
 * chosen by a type parameter.
 */
export const groupHandlers = (
  name: "teams" | "executiveRoles",
  kind: Group.GroupKind,
  toJson: (group: Group.Group) => unknown
) =>
  Effect.map(directoryTools, ({ asAdmin }) => {
    const as = (operation: string) => `${name}.${operation}` as Policy.MemberOperation
    return {
      list: ({ endpoint, query }: Loose) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin(as("list"), (tenantId) => DirectoryUseCases.listGroups(tenantId, kind, request))
          return respond(endpoint, { data: page.data.map(toJson), page: page.page })
        }),
      create: ({ endpoint, payload }: Loose) =>
        Effect.map(asAdmin(as("create"), (tenantId, by) => DirectoryUseCases.createGroup(tenantId, kind, payload, by)), (group) => respond(endpoint, toJson(group))),
      get: ({ endpoint, params }: Loose) =>
        Effect.map(asAdmin(as("get"), (tenantId) => DirectoryUseCases.getGroup(tenantId, kind, params.id)), (group) => respond(endpoint, toJson(group))),
      rename: ({ endpoint, params, payload }: Loose) =>
        Effect.map(asAdmin(as("rename"), (tenantId, by) => DirectoryUseCases.renameGroup(tenantId, kind, params.id, payload, by)), (group) => respond(endpoint, toJson(group))),
      delete: ({ params }: Loose) => asAdmin(as("delete"), (tenantId, by) => DirectoryUseCases.deleteGroup(tenantId, kind, params.id, by)),
      listMembers: ({ endpoint, params, query }: Loose) =>
        Effect.gen(function*() {
          const request = yield* listRequest(query)
          const page = yield* asAdmin(as("listMembers"), (tenantId) => DirectoryUseCases.listMembers(tenantId, kind, params.id, request))
          return respond(endpoint, { data: page.data.map(userJson), page: page.page })
        }),
      addMember: ({ endpoint, params, payload }: Loose) =>
        Effect.map(asAdmin(as("addMember"), (tenantId, by) => DirectoryUseCases.addMember(tenantId, kind, params.id, payload.user_id, by)), (user) => respond(endpoint, userJson(user))),
      removeMember: ({ params }: Loose) => asAdmin(as("removeMember"), (tenantId, by) => DirectoryUseCases.removeMember(tenantId, kind, params.id, params.user_id, by))
    }
  })

/** A request of either group, as the shared handlers read it. */
type Loose = { readonly endpoint?: any; readonly params?: any; readonly query?: any; readonly payload?: any }
