/**
 * Port: invitations, scoped by tenant except the lookup by token hash (the
 * token is the only credential its holder has).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Invitation, InvitationId } from "./Invitation.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** The keyset position of an invitation (lists sort by `created_at`). */
export const invitationKey = (invitation: Invitation): Keyset => ({
  value: invitation.created_at.getTime(),
  id: invitation.invitation_id
})

/** Invitations. */
export class InvitationStore extends Context.Service<InvitationStore, {
  readonly insert: (invitation: Invitation) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, invitationId: InvitationId) => Effect.Effect<Invitation | undefined, StoreError>
  readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Invitation | undefined, StoreError>
  /** The tenant's pending invitation of an address, if any (the newest). */
  readonly findPending: (tenantId: TenantId, email: string) => Effect.Effect<Invitation | undefined, StoreError>
  /** One page, in `Pagination.applyInMemory` order. */
  readonly list: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Invitation>, StoreError>
  /** Replaces an invitation's fields if it is still as `expected` says (`updated_at`); `false` otherwise. */
  readonly update: (invitation: Invitation, expected: Date) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/InvitationStore") {}
