/**
 * Accepting an invitation: its token is the credential.
 *
 * @since 0.1.0
 */
import { Invitation } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Problems from "../Problems.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import { UserJson } from "./Users.ts"

/** Accepting an invitation: its token is the credential. */
export const InvitationAcceptanceGroup = HttpApiGroup.make("invitationAcceptance")
  .add(
    HttpApiEndpoint.post("accept", "/v1/invitations/accept", {
      payload: Invitation.InvitationAccept,
      success: Schema.Struct({
        user: UserJson,
        tenant_id: Schema.String,
        token: Schema.String.annotate({ description: "The new user's personal API token, shown this once" })
      }).pipe(HttpApiSchema.status(201)),
      // Counted by client address, as every /v1 request without a credential (decision 0009).
      error: [Problems.InvitationNotFound, Problems.InvitationClosed, Problems.EmailTaken, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Accepts an invitation with the token from its e-mail (no bearer token): the user is made, active, with a personal API token, and the invitation is used."
    )
  )
