/**
 * Invitations by e-mail (decision 0014).
 *
 * @since 0.1.0
 */
import { Invitation } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"

/** An invitation as the API shows it (never its token, which only the e-mail carries). */
export const InvitationJson = Schema.Struct({
  invitation_id: Invitation.InvitationId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  status: Invitation.InvitationStatus,
  expires_at: Schema.Date,
  user_id: Schema.NullOr(Schema.String).annotate({ description: "The user made by accepting it" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const invitationParams = { id: Schema.String }

/** Invitations by e-mail (decision 0014). Tenant admins only. */
export const InvitationsGroup = HttpApiGroup.make("invitations")
  .add(Endpoints.list("list", "/v1/invitations", { item: InvitationJson, error: [...Problems.cursorProblems, Problems.Forbidden] }))
  .add(Endpoints.create("create", "/v1/invitations", {
    payload: Invitation.InvitationCreate,
    success: InvitationJson,
    error: [Problems.Forbidden, Problems.EmailTaken],
    description: "Invites an address that is no user yet and e-mails the invitation (valid 7 days); a pending one of the same address is renewed."
  }))
  .add(Endpoints.action("resend", "/v1/invitations/:id/resend", {
    params: invitationParams,
    success: InvitationJson,
    error: [Problems.Forbidden, Problems.NotFound, Problems.InvitationClosed],
    description: "Sends the invitation again with a new link, valid 7 days from now; the previous link stops working."
  }))
  .add(Endpoints.remove("revoke", "/v1/invitations/:id", {
    params: invitationParams,
    success: InvitationJson,
    error: [Problems.Forbidden, Problems.NotFound, Problems.InvitationClosed]
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Invitations by e-mail. Tenant admins only.")
