/**
 * The handlers of `/v1/teams...`: tenant admins only.
 *
 * @since 0.1.0
 */
import type { Group } from "@analytics/core"
import { Api } from "@analytics/api"
import { Effect } from "effect"
import * as ApiHandlers from "../edge/ApiHandlers.ts"
import { groupHandlers } from "./GroupLayer.ts"

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
export const teamsLayer = ApiHandlers.group(Api, "teams", (handlers) =>
  Effect.map(groupHandlers("teams", "team", teamJson), (all) => handlers.handleAll(all)))
