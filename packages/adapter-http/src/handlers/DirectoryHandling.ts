/**
 * What the directory handlers share (users, teams, executive roles, SCIM tokens,
 * invitations): a user and a token as the API shows them, and running a use case as the tenant's admin.
 *
 * @since 0.1.0
 */
import { AuditLog, Cursor, DeliveryStore, EventPublisher, Deprovisioning, DirectoryStore, ExportScheduleStore, Policy, SessionStore, type Tenant, TenantStore, TenantTokens, Transactor, type User, WebhookStore, WorkspaceStore } from "@analytics/core"
import { Effect } from "effect"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { caller, captured } from "./Handling.ts"

/** A user as the API shows it. */
export const userJson = (u: User.User) => ({
  user_id: u.user_id,
  email: u.email,
  name: u.name,
  status: u.status,
  roles: u.roles,
  external_id: u.external_id,
  created_at: u.created_at,
  updated_at: u.updated_at
})

/** What every directory handler needs: the admin's tenant and the stores. */
export const directoryTools = Effect.gen(function*() {
  const provide = yield* captured(
    DirectoryStore.DirectoryStore,
    TenantStore.TenantStore,
    Cursor.CursorCodec,
    Transactor.Transactor,
    WebhookStore.WebhookStore,
    DeliveryStore.DeliveryStore,
    ExportScheduleStore.ExportScheduleStore,
    WorkspaceStore.WorkspaceStore,
    SessionStore.SessionStore,
    AuditLog.AuditStore,
    EventPublisher.EventPublisher
  )
  /** Runs a use case for the calling admin's tenant (its changes audited as theirs), its errors as problems. */
  const asAdmin = <A, E extends DomainError>(
    operation: Policy.MemberOperation,
    f: (tenantId: Tenant.TenantId, by: AuditLog.Actor) => Effect.Effect<
      A,
      E,
      DirectoryStore.DirectoryStore | TenantStore.TenantStore | Cursor.CursorCodec | Transactor.Transactor | Deprovisioning.Services
    >
  ) => Effect.flatMap(caller(operation), (admin) => Effect.mapError(provide(f(admin.tenantId, AuditLog.actorOf(admin))), toProblem))
  return { asAdmin }
})

/** A token as listed. */
export const tokenJson = (token: TenantTokens.Listed) => ({ token_id: token.tokenId, created_at: token.createdAt })

/** A token as issued, the token shown this once. */
export const issuedTokenJson = (issued: TenantTokens.Issued) => ({ ...tokenJson(issued), token: issued.token })
