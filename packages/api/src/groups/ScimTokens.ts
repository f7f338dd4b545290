/**
 * Tokens for the tenant's identity provider to provision over SCIM.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import { IssuedTokenJson, TokenList } from "./Users.ts"

/** Tokens for the tenant's identity provider to provision over SCIM 2.0 at `/scim/v2`. Tenant admins only. */
export const ScimTokensGroup = HttpApiGroup.make("scimTokens")
  .add(
    HttpApiEndpoint.post("create", "/v1/scim-tokens", {
      headers: idempotencyHeader,
      success: Schema.Struct({
        ...IssuedTokenJson.fields,
        scim_url: Schema.String.annotate({ description: "The SCIM 2.0 base URL to configure in the identity provider" })
      }).pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/scim-tokens", {
      query: QueryParams.page,
      success: TokenList,
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The tenant's SCIM tokens (ids and dates, never the tokens), newest first.")
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/v1/scim-tokens/:token_id", {
      params: { token_id: Schema.String },
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(OpenApi.Description, "Revokes a SCIM token; it is refused from its next use.")
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "SCIM 2.0 provisioning (RFC 7643/7644) at /scim/v2: Users, Groups (synced as teams), ServiceProviderConfig, ResourceTypes, Schemas. A SCIM token serves /scim/v2 only."
  )
