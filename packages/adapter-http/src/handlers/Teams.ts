/**
 * The handlers of `/v1/teams...`: tenant admins only.
 *
 * @since 0.1.0
 */
import type { Group } from "@analytics/core"
import { groupLayer } from "./GroupLayer.ts"

/** A team as the API shows it. */
const teamJson = (g: Group.Group) => ({
  team_id: g.group_id,
  name: g.name,
  source: g.source,
  external_id: g.external_id,
  created_at: g.created_at,
  updated_at: g.updated_at
})

/** `/v1/teams...`: tenant admins only. */
export const teamsLayer = groupLayer("teams", "team", teamJson)
