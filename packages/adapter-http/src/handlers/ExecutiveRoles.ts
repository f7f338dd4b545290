/**
 * The handlers of `/v1/executive-roles...`: tenant admins only.
 *
 * @since 0.1.0
 */
import type { Group } from "@analytics/core"
import { groupLayer } from "./GroupLayer.ts"

/** An executive role as the API shows it. */
const executiveRoleJson = (g: Group.Group) => ({
  role_id: g.group_id,
  name: g.name,
  created_at: g.created_at,
  updated_at: g.updated_at
})

/** `/v1/executive-roles...`: tenant admins only. */
export const executiveRolesLayer = groupLayer("executiveRoles", "executive_role", executiveRoleJson)
