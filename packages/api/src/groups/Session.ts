/**
 * Console sessions (decision 0022): sign in with an e-mailed one-time link,
 * a tenant admin's API token or an accepted invitation; read and end the
 * session. Outside `/v1`, like the public configuration: these are the
 * console's, and its cookie (`analytics_session`) is the credential.
 *
 * @since 0.1.0
 */
import { Invitation, User } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Problems from "../Problems.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import * as ResponseHeaders from "../ResponseHeaders.ts"

/** The name of the session cookie. */
export const cookieName = "analytics_session"

/** How a session was opened; `embedded` when the embedding app's own sign-in says who the user is. */
export const Via = Schema.Literals(["link", "api-token", "invitation", "embedded"])

/** The signed-in user, their tenant, and what the console needs to act for them. */
export const SessionInfo = Schema.Struct({
  user: Schema.Struct({
    user_id: Schema.String,
    email: Schema.NullOr(Schema.String),
    display_name: Schema.NullOr(Schema.String),
    roles: Schema.Array(Schema.String)
  }),
  tenant: Schema.Struct({ tenant_id: Schema.String, name: Schema.String }),
  via: Via,
  csrf_token: Schema.String.annotate({
    description: "Send it back as the X-CSRF-Token header on every POST, PUT, PATCH and DELETE made with the cookie"
  }),
  idle_expires_at: Schema.NullOr(Schema.String).annotate({
    description: "When the session ends unless used again (ISO 8601); null when embedded"
  }),
  expires_at: Schema.NullOr(Schema.String).annotate({
    description: "When the session ends whatever happens (ISO 8601); null when embedded"
  })
})
/** The signed-in user, their tenant, and what the console needs to act for them. */
export type SessionInfo = typeof SessionInfo.Type

/** A request for a sign-in link. */
export const SignInLinkRequest = Schema.Struct({ email: User.Email })

/** A session opened from an e-mailed link. */
export const LinkSignIn = Schema.Struct({
  link_token: Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(512))
})

/** A session opened with an API token. */
export const TokenSignIn = Schema.Struct({
  api_token: Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(512))
})

const signInProblems = [Problems.CsrfFailed, Problems.ServiceUnavailable, ...Problems.rateLimitProblems] as const

/** The session cookie a sign-in sets (HttpOnly, SameSite=Lax). */
const signsIn = ResponseHeaders.declare(200, "Set-Cookie", { description: "The `analytics_session` cookie of the session opened (HttpOnly, SameSite=Lax)" })
/** The session cookie a sign-out clears. */
const signsOut = ResponseHeaders.declare(204, "Set-Cookie", { description: "The `analytics_session` cookie, cleared (Max-Age=0)" })

/** Console sign-in and sessions. */
export const SessionGroup = HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("requestSignInLink", "/api/session/sign-in-links", {
      payload: SignInLinkRequest,
      success: Schema.Struct({ sent: Schema.Literal(true) }).pipe(HttpApiSchema.status(202)),
      error: [Problems.SignInLinksExceeded, ...signInProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "E-mails a one-time sign-in link (valid 15 minutes) to each tenant where the address is an active user. The answer is the same whether or not it is anyone's address. Limited per address and per client address."
    )
  )
  .add(
    HttpApiEndpoint.post("signInWithLink", "/api/session", {
      payload: LinkSignIn,
      success: SessionInfo,
      error: [Problems.SignInLinkInvalid, ...signInProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Opens a session with the token of an e-mailed link (once) and sets the `analytics_session` cookie."
    ).annotate(OpenApi.Transform, signsIn)
  )
  .add(
    HttpApiEndpoint.post("signInWithToken", "/api/session/token", {
      payload: TokenSignIn,
      success: SessionInfo,
      error: [Problems.Unauthenticated, Problems.Forbidden, ...signInProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Opens a session with a tenant admin's API token and sets the `analytics_session` cookie; a member's or the operator's token is refused (403). Revoking the token ends the session."
    ).annotate(OpenApi.Transform, signsIn)
  )
  .add(
    HttpApiEndpoint.post("signInWithInvitation", "/api/session/invitation", {
      payload: Invitation.InvitationAccept,
      success: SessionInfo,
      error: [Problems.InvitationNotFound, Problems.InvitationClosed, Problems.EmailTaken, ...signInProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Accepts an invitation as POST /v1/invitations/accept does, then signs the new user in (no API token is issued)."
    ).annotate(OpenApi.Transform, signsIn)
  )
  .add(
    HttpApiEndpoint.get("current", "/api/session", {
      success: SessionInfo,
      error: [Problems.Unauthenticated, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The signed-in user and the session's CSRF token, or 401 when not signed in or the session has ended."
    )
  )
  .add(
    HttpApiEndpoint.delete("signOut", "/api/session", {
      success: HttpApiSchema.NoContent,
      error: [Problems.CsrfFailed, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Signs out: ends the session and clears the cookie."
    ).annotate(OpenApi.Transform, signsOut)
  )
  .annotate(
    OpenApi.Description,
    "Console sign-in: the `analytics_session` cookie (HttpOnly, SameSite=Lax). Every /v1 endpoint accepts it instead of a bearer token; requests that change something then need the X-CSRF-Token header."
  )
