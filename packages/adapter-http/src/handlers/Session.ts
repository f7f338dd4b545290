/**
 * The handlers of the console's sign-in and session endpoints
 * (`/api/session…`, decision 0022): each sign-in sets the
 * `analytics_session` cookie and answers the session's `SessionInfo`.
 *
 * @since 0.1.0
 */
import { Api, type Groups, Problems } from "@analytics/api"
import {
  AuditLog,
  Authenticator,
  DirectoryStore,
  EventPublisher,
  GrantStore,
  InvitationStore,
  Invitations,
  Limiter,
  Mailer,
  Sessions,
  SessionStore,
  TenantCache,
  TenantStore,
  Transactor
} from "@analytics/core"
import { Effect, Option, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import * as SessionCookie from "../edge/SessionCookie.ts"
import * as SessionInfo from "../edge/SessionInfo.ts"
import { ServiceInfo } from "../ServiceInfo.ts"
import { captured, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

const notSignedIn = new Problems.Unauthenticated({ detail: "You are not signed in, or your session has ended: sign in again" })

/** `POST /api/session/sign-in-links`, `POST /api/session`, `/token`, `/invitation`, `GET` and `DELETE /api/session`. */
export const sessionLayer = ApiHandlers.group(Api, "session", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const lifetimes = yield* SessionCookie.SessionLifetimes
    const tenants = yield* TenantCache.TenantCache
    const provideTenants = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(Effect.provideService(effect, TenantCache.TenantCache, tenants), SessionCookie.SessionLifetimes, lifetimes)
    const provide = yield* captured(
      SessionStore.SessionStore,
      DirectoryStore.DirectoryStore,
      TenantStore.TenantStore,
      Mailer.Mailer,
      Limiter.Limiter,
      Authenticator.Authenticator,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor,
      InvitationStore.InvitationStore,
      GrantStore.GrantStore
    )
    const links: Sessions.Links = { signInUrl: (token) => `${info.publicBaseUrl}/sign-in#token=${token}` }

    /** The answer to a sign-in: the session's info and its cookie. */
    const signedIn = <E extends DomainError>(
      answer: (body: Groups.Session.SessionInfo) => HttpServerResponse.HttpServerResponse,
      opened: Effect.Effect<Sessions.Opened, E>
    ) =>
      Effect.gen(function*() {
        const session = yield* Effect.mapError(opened, toProblem)
        const body = yield* Effect.mapError(provideTenants(SessionInfo.ofSession(session, yield* Sessions.csrfToken(session.cookie))), toProblem)
        return SessionCookie.set(answer(body), session.cookie, info.publicBaseUrl)
      })

    return handlers
      .handle("requestSignInLink", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const address = Option.getOrElse(request.remoteAddress, () => "unknown")
          yield* Effect.mapError(provide(Sessions.requestLink(payload.email, address, links)), toProblem)
          return respond(endpoint, { sent: true as const })
        }))
      .handle("signInWithLink", ({ endpoint, payload }) =>
        signedIn((body) => respond(endpoint, body), provide(Sessions.openWithLink(payload.link_token, lifetimes))))
      .handle("signInWithToken", ({ endpoint, payload }) =>
        signedIn((body) => respond(endpoint, body), provide(Sessions.openWithToken(Redacted.make(payload.api_token), lifetimes))))
      .handle("signInWithInvitation", ({ endpoint, payload }) =>
        signedIn(
          (body) => respond(endpoint, body),
          provide(Effect.flatMap(Invitations.acceptWithoutToken(payload), ({ user }) => Sessions.openForUser(user, "invitation", lifetimes)))
        ))
      .handle("current", ({ endpoint }) =>
        Effect.gen(function*() {
          const session = yield* Effect.mapError(provideTenants(SessionInfo.current), toProblem)
          return session === undefined ? yield* notSignedIn : respond(endpoint, session)
        }))
      .handle("signOut", () =>
        Effect.gen(function*() {
          const cookie = yield* SessionCookie.read
          if (cookie !== "") yield* Effect.mapError(provide(Sessions.end(cookie)), toProblem)
          return SessionCookie.clear(HttpServerResponse.empty({ status: 204 }), info.publicBaseUrl)
        }))
  }))
