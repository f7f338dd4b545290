/**
 * The handlers of `/v1/sharing/grants...`, `/v1/sharing/embed-previews` and `/v1/workspaces/{id}/links`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, Cursor, Datasets, EmbedPreviews, People, EventPublisher, Grant, Grants, InvitationStore, Mailer, type Pagination, PasswordHasher, Policy, Principal, ShareTokens, Transactor, type Workspace, Workspaces } from "@analytics/core"
import { Clock, Effect } from "effect"
import { ServiceInfo } from "../ServiceInfo.ts"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import * as SharedRoutes from "../routes/SharedRoutes.ts"
import { accessServices, caller, captured, listRequest, respond } from "./Handling.ts"
import { invitationLinks } from "./Invitations.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A grant as the API shows it: its state now, its absolute `link_url`; never its password, hash or an embed token. */
const grantJson = (grant: Grant.StoredGrant, now: Date, publicBaseUrl: string) => ({
  grant_id: grant.grant_id,
  workspace_id: grant.workspace_id as Workspace.Workspace["workspace_id"],
  subject_type: grant.subject_type,
  subject_id: grant.subject_id,
  principal_type: grant.principal_type,
  principal_id: grant.principal_id,
  email: grant.recipient_email,
  invitation_id: grant.invitation_id,
  actions: grant.actions,
  watermark: grant.watermark,
  expires_at: grant.expires_at,
  state: Grant.stateAt(grant, now),
  revoked_at: grant.revoked_at,
  paused: grant.paused,
  password_protected: grant.password_hash !== null,
  link_url: grant.link_slug === null ? null : SharedRoutes.linkUrl(publicBaseUrl, grant.link_slug),
  label: grant.label,
  last_opened_at: grant.last_opened_at,
  open_count: grant.open_count,
  created_by: grant.created_by,
  created_at: grant.created_at,
  updated_at: grant.updated_at
})

/** `/v1/sharing/grants...`, `/v1/workspaces/{id}/links` and the share dialog's `/v1/directory/people`. */
export const sharingLayer = ApiHandlers.group(Api, "sharing", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      ...accessServices,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor,
      PasswordHasher.PasswordHasher,
      InvitationStore.InvitationStore,
      Mailer.Mailer,
      ShareTokens.ShareTokens,
      Cursor.CursorCodec,
      Datasets.Engines
    )
    const { publicBaseUrl } = yield* ServiceInfo
    const links = invitationLinks(publicBaseUrl)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const json = (grant: Grant.StoredGrant) => Effect.map(now, (at) => grantJson(grant, at, publicBaseUrl))
    /** A page of grants, each with its state now. */
    const pageJson = (page: Pagination.Page<Grant.StoredGrant>) =>
      Effect.map(now, (at) => ({ data: page.data.map((g) => grantJson(g, at, publicBaseUrl)), page: page.page }))
    const embedJson = (token: { readonly token: string; readonly expires_at: Date }, title: string) => {
      const url = SharedRoutes.embedUrl(publicBaseUrl, token.token)
      return { ...token, embed_url: url, iframe: SharedRoutes.iframeSnippet(url, title) }
    }
    /** Runs a use case on one grant and answers it as JSON. */
    const onGrant = <E extends DomainError>(
      endpoint: Parameters<typeof respond>[0],
      operation: Policy.MemberOperation,
      useCase: (member: Principal.Member) => Effect.Effect<Grant.StoredGrant, E, Grants.Services | PasswordHasher.PasswordHasher>
    ) =>
      Effect.gen(function*() {
        const member = yield* caller(operation)
        const grant = yield* Effect.mapError(provide(useCase(member)), toProblem)
        return respond(endpoint, yield* json(grant))
      })
    return handlers
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.create")
          const grant = yield* Effect.mapError(provide(Grants.create(member, payload, links)), toProblem)
          const body = yield* json(grant)
          if (grant.principal_type !== "embed") return respond(endpoint, body)
          const token = yield* provide(Grants.firstEmbedToken(grant))
          return respond(endpoint, { ...body, embed: embedJson(token, "Shared report") })
        }))
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.list")
          const filter = {
            subjectType: query.subject_type,
            subjectId: query.subject_id,
            principalType: query.principal_type,
            principalId: query.principal_id,
            workspaceId: query.workspace_id,
            state: query.state
          }
          const page = yield* Effect.mapError(provide(Grants.list(member, filter, yield* listRequest(query))), toProblem)
          return respond(endpoint, yield* pageJson(page))
        }))
      .handle("get", ({ endpoint, params }) => onGrant(endpoint, "sharing.get", (member) => Grants.get(member, params.grant_id)))
      .handle("update", ({ endpoint, params, payload }) => onGrant(endpoint, "sharing.update", (member) => Grants.update(member, params.grant_id, payload)))
      .handle("revoke", ({ endpoint, params }) => onGrant(endpoint, "sharing.revoke", (member) => Grants.revoke(member, params.grant_id)))
      .handle("pause", ({ endpoint, params }) => onGrant(endpoint, "sharing.pause", (member) => Grants.setPaused(member, params.grant_id, true)))
      .handle("resume", ({ endpoint, params }) => onGrant(endpoint, "sharing.resume", (member) => Grants.setPaused(member, params.grant_id, false)))
      .handle("embedToken", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.embedToken")
          const token = yield* Effect.mapError(provide(Grants.embedToken(member, params.grant_id, payload)), toProblem)
          return respond(endpoint, embedJson(token, "Shared report"))
        }))
      .handle("embedPreview", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.embedPreview")
          const preview = yield* Effect.mapError(provide(EmbedPreviews.preview(member, payload)), toProblem)
          return respond(endpoint, preview)
        }))
      .handle("links", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("sharing.links")
          yield* Effect.mapError(provide(Workspaces.ensureExists(admin.tenantId, params.workspace_id)), toProblem)
          const filter = { principalTypes: ["link", "embed"], workspaceId: params.workspace_id, state: query.state } as const
          const page = yield* Effect.mapError(provide(Grants.list(admin, filter, yield* listRequest(query))), toProblem)
          return respond(endpoint, yield* pageJson(page))
        }))
      .handle("people", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("sharing.people")
          const found = yield* Effect.mapError(provide(People.page(member.tenantId, query.q, yield* listRequest(query))), toProblem)
          return respond(endpoint, found)
        }))
  }))
