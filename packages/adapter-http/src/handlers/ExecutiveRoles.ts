/**
 * The handlers of `/v1/executive-roles...`: tenant admins only.
 *
 * @since 0.1.0
 */
import type { Group } from "@analytics/core"
import { Api } from "@analytics/api"
import { Effect } from "effect"
import * as ApiHandlers from "../edge/ApiHandlers.ts"
import { groupHandlers } from "./GroupLayer.ts"

/** An executive role as the API shows it. */
const executiveRoleJson = (g: Group.Group) => ({
  role_id: g.group_id,
  name: g.name,
  created_at: g.created_at,
  updated_at: g.updated_at
})

/** `/v1/executive-roles...`: tenant admins only. */
export const executiveRolesLayer = ApiHandlers.group(Api, "executiveRoles", (handlers) =>
  Effect.map(groupHandlers("executiveRoles", "executive_role", executiveRoleJson), (all) => handlers.handleAll(all)))
