/**
 * The endpoints of one kind of principal group (teams, executive roles,
 * decision 0014): the same contract under its own path.
 *
 * @since 0.1.0
 */
import { Group } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { UserJson } from "./Users.ts"

const groupParams = { id: Schema.String }

/** The endpoints of one kind of group (teams, executive roles): the same contract under its own path. */
export const groupEndpoints = <const Name extends string, const Path extends `/${string}`, S extends Schema.Top>(
  name: Name,
  path: Path,
  json: S,
  description: string
) =>
  HttpApiGroup.make(name)
    .add(Endpoints.list("list", path, { item: json, error: [...Problems.cursorProblems, Problems.Forbidden] }))
    .add(Endpoints.create("create", path, { payload: Group.GroupInput, success: json, error: Problems.Forbidden }))
    .add(Endpoints.get("get", `${path}/:id`, { params: groupParams, success: json, error: [Problems.Forbidden, Problems.NotFound] }))
    .add(Endpoints.update("rename", `${path}/:id`, {
      params: groupParams,
      payload: Group.GroupInput,
      success: json,
      error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
    }))
    .add(Endpoints.remove("delete", `${path}/:id`, {
      params: groupParams,
      error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
    }))
    .add(Endpoints.list("listMembers", `${path}/:id/members`, {
      params: groupParams,
      item: UserJson,
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }))
    .add(Endpoints.action("addMember", `${path}/:id/members`, {
      params: groupParams,
      payload: Schema.Struct({ user_id: Schema.String }),
      success: UserJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider],
      description: "Adds a user (adding them again changes nothing); grants to the group reach them from their next request."
    }))
    .add(Endpoints.remove("removeMember", `${path}/:id/members/:user_id`, {
      params: { id: Schema.String, user_id: Schema.String },
      error: [Problems.Forbidden, Problems.NotFound, Problems.ManagedByIdentityProvider]
    }))
    .middleware(Authentication)
    .annotate(OpenApi.Description, description)
