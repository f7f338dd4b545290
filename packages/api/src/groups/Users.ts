/**
 * The tenant's users and their personal tokens.
 *
 * @since 0.1.0
 */
import { User } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"

/** A user as the API shows it. */
export const UserJson = Schema.Struct({
  user_id: User.UserId,
  email: Schema.String,
  name: Schema.String,
  status: User.UserStatus,
  roles: Schema.Array(User.ServiceRole),
  external_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** The path parameters of one user. */
const userParams = { user_id: Schema.String }

/** A bearer token as listed: never the token itself. */
export const TokenJson = Schema.Struct({ token_id: Schema.String, created_at: Schema.Date })

/** The tokens of a holder, newest first, a page at a time like every list. */
export const TokenList = ListEnvelope.make(TokenJson)

/** A bearer token as issued, the token shown this once. */
export const IssuedTokenJson = Schema.Struct({
  token_id: Schema.String,
  token: Schema.String.annotate({ description: "Shown this once; stored only as a hash" }),
  created_at: Schema.Date
})

/** The tenant's users and their personal tokens. Tenant admins only. */
export const UsersGroup = HttpApiGroup.make("users")
  .add(Endpoints.list("list", "/v1/users", { item: UserJson, error: [...Problems.cursorProblems, Problems.Forbidden] }))
  .add(Endpoints.create("create", "/v1/users", { payload: User.UserCreate, success: UserJson, error: [Problems.Forbidden, Problems.EmailTaken] }))
  .add(Endpoints.get("get", "/v1/users/:user_id", { params: userParams, success: UserJson, error: [Problems.Forbidden, Problems.NotFound] }))
  .add(Endpoints.update("update", "/v1/users/:user_id", {
    params: userParams,
    payload: User.UserUpdate,
    success: UserJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Changes a user's name, service roles or status; a deprovisioned user has no access from their next request."
  }))
  .add(Endpoints.action("issueToken", "/v1/users/:user_id/tokens", {
    params: userParams,
    success: IssuedTokenJson.pipe(HttpApiSchema.status(201)),
    error: [Problems.Forbidden, Problems.NotFound, Problems.UserDeprovisioned],
    description: "Issues a personal API token of an active user, shown this once. It acts as the user as the directory has them at each request: their service roles, and no access once deprovisioned."
  }))
  .add(Endpoints.list("listTokens", "/v1/users/:user_id/tokens", {
    params: userParams,
    item: TokenJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "A user's personal tokens (ids and dates, never the tokens), newest first."
  }))
  .add(Endpoints.remove("revokeToken", "/v1/users/:user_id/tokens/:token_id", {
    params: { user_id: Schema.String, token_id: Schema.String },
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Revokes a user's token; it is refused from the next request."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The tenant's users and their personal tokens. Tenant admins only.")
