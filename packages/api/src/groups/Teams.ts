/**
 * Teams (decision 0014): made here or synced over SCIM.
 *
 * @since 0.1.0
 */
import { Group } from "@analytics/core"
import { Schema } from "effect"
import { groupEndpoints } from "./GroupEndpoints.ts"

/** A team as the API shows it. */
export const TeamJson = Schema.Struct({
  team_id: Group.GroupId,
  name: Schema.String,
  source: Group.GroupSource.annotate({ description: "manual: made here; scim: the identity provider's group, changed there only" }),
  external_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** Teams (decision 0014): made here or synced over SCIM. Tenant admins only. */
export const TeamsGroup = groupEndpoints(
  "teams",
  "/v1/teams",
  TeamJson,
  "Teams: made here, or the identity provider's groups synced over SCIM (changed there only). Tenant admins only."
)
