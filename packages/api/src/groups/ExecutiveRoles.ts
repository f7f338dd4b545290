/**
 * Executive roles (decision 0014): grants to a role reach whoever holds it.
 *
 * @since 0.1.0
 */
import { Group } from "@analytics/core"
import { Schema } from "effect"
import { groupEndpoints } from "./GroupEndpoints.ts"

/** An executive role as the API shows it. */
export const ExecutiveRoleJson = Schema.Struct({
  role_id: Group.GroupId,
  name: Schema.String,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** Executive roles (decision 0014): grants to a role reach whoever holds it when access is decided. Tenant admins only. */
export const ExecutiveRolesGroup = groupEndpoints(
  "executiveRoles",
  "/v1/executive-roles",
  ExecutiveRoleJson,
  "Executive roles (CFO, VP Sales…) and who holds them; a grant to a role reaches its holders as they are when access is decided. Tenant admins only."
)
