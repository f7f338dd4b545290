/**
 * The handlers of `/v1/invitations...`: tenant admins only.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, Cursor, DirectoryStore, EventPublisher, Invitation, InvitationStore, Invitations, Mailer, Transactor } from "@analytics/core"
import { Clock, Effect } from "effect"
import { ServiceInfo } from "../ServiceInfo.ts"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** An invitation as the API shows it. */
const invitationJson = (i: Invitation.Invitation, now: number) => ({
  invitation_id: i.invitation_id,
  email: i.email,
  name: i.name,
  status: Invitation.statusAt(i, now),
  expires_at: i.expires_at,
  user_id: i.user_id,
  created_at: i.created_at,
  updated_at: i.updated_at
})

/** Where invitation e-mails send people: the page a frontend serves at the public base URL, which posts the token to accept. */
export const invitationLinks = (publicBaseUrl: string): Invitations.Links => ({
  acceptUrl: (token) => `${publicBaseUrl}/invitations/accept?token=${encodeURIComponent(token)}`
})

/** `/v1/invitations...`: tenant admins only. */
export const invitationsLayer = ApiHandlers.group(Api, "invitations", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      InvitationStore.InvitationStore,
      DirectoryStore.DirectoryStore,
      Mailer.Mailer,
      Cursor.CursorCodec,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor
    )
    const links = invitationLinks((yield* ServiceInfo).publicBaseUrl)
    const now = Clock.currentTimeMillis
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.list")
          const page = yield* Effect.mapError(provide(Invitations.list(admin.tenantId, yield* listRequest(query))), toProblem)
          const at = yield* now
          return respond(endpoint, { data: page.data.map((i) => invitationJson(i, at)), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.create")
          const invitation = yield* Effect.mapError(provide(Invitations.invite(admin.tenantId, admin.userId, payload, links)), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
      .handle("resend", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.resend")
          const invitation = yield* Effect.mapError(provide(Invitations.resend(admin.tenantId, params.id, links, AuditLog.actorOf(admin))), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
      .handle("revoke", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("invitations.revoke")
          const invitation = yield* Effect.mapError(provide(Invitations.revoke(admin.tenantId, params.id, AuditLog.actorOf(admin))), toProblem)
          return respond(endpoint, invitationJson(invitation, yield* now))
        }))
  }))
