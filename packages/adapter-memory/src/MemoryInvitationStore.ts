/**
 * The InvitationStore in memory.
 *
 * @since 0.1.0
 */
import { type Invitation, InvitationStore, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { set, write } from "./Transactions.ts"

/** A fresh in-memory store of invitations. */
export const make = Effect.sync(() => {
  const invitations = new Map<string, Invitation.Invitation>()
  const of = (tenantId: string, id: string) => {
    const invitation = invitations.get(id)
    return invitation !== undefined && invitation.tenant_id === tenantId ? invitation : undefined
  }
  const ofTenant = (tenantId: string) => [...invitations.values()].filter((i) => i.tenant_id === tenantId)
  return InvitationStore.InvitationStore.of({
    insert: (invitation) => write(() => [undefined, set(invitations, invitation.invitation_id, invitation)]),
    find: (tenantId, id) => Effect.sync(() => of(tenantId, id)),
    findByTokenHash: (tokenHash) => Effect.sync(() => [...invitations.values()].find((i) => i.token_hash === tokenHash)),
    findPending: (tenantId, email) =>
      Effect.sync(() =>
        ofTenant(tenantId)
          .filter((i) => i.email === email && i.status === "pending")
          .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())[0]
      ),
    list: (tenantId, query) =>
      Effect.sync(() => Pagination.applyInMemory(ofTenant(tenantId), query, InvitationStore.invitationKey, (i) => i.created_at)),
    update: (invitation, expected) =>
      write(() => {
        const current = of(invitation.tenant_id, invitation.invitation_id)
        if (current === undefined || current.updated_at.getTime() !== expected.getTime()) return [false, () => {}]
        return [true, set(invitations, invitation.invitation_id, invitation)]
      })
  })
})
