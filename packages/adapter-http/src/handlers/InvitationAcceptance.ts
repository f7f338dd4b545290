/**
 * The handler of `POST /v1/invitations/accept`: the token is the credential.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, DirectoryStore, EventPublisher, GrantStore, InvitationStore, Invitations, TenantStore, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { toProblem } from "../edge/DomainProblems.ts"
import { userJson } from "./DirectoryHandling.ts"
import { captured, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `POST /v1/invitations/accept`: the token is the credential. */
export const invitationAcceptanceLayer = ApiHandlers.group(Api, "invitationAcceptance", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      InvitationStore.InvitationStore,
      DirectoryStore.DirectoryStore,
      TenantStore.TenantStore,
      GrantStore.GrantStore,
      Transactor.Transactor,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher
    )
    return handlers.handle("accept", ({ endpoint, payload }) =>
      Effect.gen(function*() {
        const { user, token } = yield* Effect.mapError(provide(Invitations.accept(payload)), toProblem)
        return respond(endpoint, { user: userJson(user), tenant_id: user.tenant_id, token: token.token })
      }))
  }))
