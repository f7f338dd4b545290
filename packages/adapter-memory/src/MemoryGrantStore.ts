/**
 * The GrantStore in memory.
 *
 * @since 0.1.0
 */
import { type Grant, GrantStore, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { set, write } from "./Transactions.ts"

/** A fresh in-memory grant store. */
export const make = Effect.sync(() => {
  const grants = new Map<string, Grant.StoredGrant>()
  const of = (tenantId: string, grantId: string) => {
    const grant = grants.get(grantId)
    return grant !== undefined && grant.tenant_id === tenantId ? grant : undefined
  }
  return GrantStore.GrantStore.of({
    insert: (grant) => write(() => [undefined, set(grants, grant.grant_id, grant)]),
    find: (tenantId, grantId) => Effect.sync(() => of(tenantId, grantId)),
    findBySlug: (slug) => Effect.sync(() => [...grants.values()].find((g) => g.link_slug === slug)),
    list: (tenantId, filter, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...grants.values()].filter((g) => g.tenant_id === tenantId && GrantStore.matches(g, filter)),
          query,
          GrantStore.grantKey,
          (g) => g.created_at
        )
      ),
    onSubjects: (tenantId, subjects) =>
      Effect.sync(() =>
        [...grants.values()].filter((g) => g.tenant_id === tenantId && subjects.some((s) => s.type === g.subject_type && s.id === g.subject_id))
      ),
    update: (grant) =>
      write(() => {
        const stored = of(grant.tenant_id, grant.grant_id)
        if (stored === undefined) return [false, () => {}]
        // The opens as counted, not as the change read them.
        return [true, set(grants, grant.grant_id, { ...grant, open_count: stored.open_count, last_opened_at: stored.last_opened_at })]
      }),
    recordOpen: (tenantId, grantId, at) =>
      write(() => {
        const stored = of(tenantId, grantId)
        if (stored === undefined) return [undefined, () => {}]
        return [undefined, set(grants, grantId, { ...stored, open_count: stored.open_count + 1, last_opened_at: at })]
      }),
    activateInvitation: (tenantId, invitationId, userId, at) =>
      write(() => {
        const waiting = [...grants.values()].filter((g) => g.tenant_id === tenantId && g.invitation_id === invitationId && g.principal_id === null)
        const undo = waiting.map((g) => set(grants, g.grant_id, { ...g, principal_id: userId, updated_at: at }))
        return [waiting.length, () => undo.forEach((f) => f())]
      })
  })
})
