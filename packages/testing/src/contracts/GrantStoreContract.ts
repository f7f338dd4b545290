/**
 * The grants part of the store contract: grants round-trip (revoked and
 * expired ones kept, labels as given), are found by subject for access
 * evaluation, by a link's URL token across tenants, and listed with
 * filters in their tenant only; opens are counted without a change of the
 * grant writing them away. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { Grant, GrantStore, Ids, Pagination, Tenant } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant } from "../Fixtures.ts"

const at = (offset: number) => new Date(1_830_000_000_000 + offset)

const newestFirst = (take: number, after?: Grant.StoredGrant): Pagination.PageQuery<"created_at"> => ({
  take,
  sort: { field: "created_at", direction: "desc" },
  after: after === undefined ? undefined : { value: after.created_at.getTime(), id: after.grant_id },
  createdAtOrBefore: at(1_000_000)
})

/** Registers the grant tests on `it` (inside `storeContract`'s layer). */
export const grantStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("grants round-trip, are found by subject and by link token, listed with filters, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* GrantStore.GrantStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspaceId = yield* Ids.uuidv7
      const reportId = yield* Ids.uuidv7
      const grant = (offset: number, overrides: Partial<Grant.StoredGrant>): Effect.Effect<Grant.StoredGrant> =>
        Effect.map(Ids.uuidv7, (id) => ({
          grant_id: id as Grant.GrantId,
          tenant_id: tenant.tenant_id as Tenant.TenantId,
          workspace_id: workspaceId,
          subject_type: "report",
          subject_id: reportId,
          principal_type: "user",
          principal_id: "u-1",
          actions: ["view", "download"],
          watermark: false,
          expires_at: null,
          revoked_at: null,
          link_slug: null,
          password_hash: null,
          paused: false,
          invitation_id: null,
          recipient_email: null,
          label: null,
          last_opened_at: null,
          open_count: 0,
          created_by: { type: "user", id: "admin-1" },
          created_at: at(offset),
          updated_at: at(offset),
          ...overrides
        }))
      const toUser = yield* grant(1, {})
      const link = yield* grant(2, {
        principal_type: "link",
        principal_id: null,
        link_slug: `slug-${yield* Ids.uuidv7}`,
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        watermark: true,
        expires_at: at(500_000),
        recipient_email: "board@example.com",
        label: "Newsletter March \u00e9 \u{1F600}"
      })
      const onWorkspace = yield* grant(3, { subject_type: "workspace", subject_id: workspaceId, principal_type: "team", principal_id: "t-1" })
      for (const g of [toUser, link, onWorkspace]) yield* store.insert(g)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, link.grant_id), link)
      assert.deepStrictEqual(yield* store.findBySlug(link.link_slug!), link)
      assert.strictEqual(yield* store.findBySlug("no-such-slug"), undefined)
      const ids = (grants: ReadonlyArray<Grant.StoredGrant>) => grants.map((g) => g.grant_id).sort()
      assert.deepStrictEqual(ids(yield* store.onSubjects(tenant.tenant_id, [{ type: "report", id: reportId }])), ids([toUser, link]))
      assert.deepStrictEqual(
        ids(yield* store.onSubjects(tenant.tenant_id, [{ type: "report", id: reportId }, { type: "workspace", id: workspaceId }])),
        ids([toUser, link, onWorkspace])
      )
      const list = (filter: Parameters<typeof store.list>[1], take = 10, after?: Grant.StoredGrant) =>
        Effect.map(store.list(tenant.tenant_id, filter, newestFirst(take, after)), (gs) => gs.map((g) => g.grant_id))
      assert.deepStrictEqual(yield* list({}), [onWorkspace.grant_id, link.grant_id, toUser.grant_id])
      assert.deepStrictEqual(yield* list({}, 1, onWorkspace), [link.grant_id])
      assert.deepStrictEqual(yield* list({ principalType: "link", workspaceId }), [link.grant_id])
      assert.deepStrictEqual(yield* list({ subjectType: "report", subjectId: reportId, principalId: "u-1" }), [toUser.grant_id])
      assert.deepStrictEqual(yield* list({ createdById: "admin-1", principalType: "team" }), [onWorkspace.grant_id])
      assert.deepStrictEqual(yield* list({ createdById: "someone-else" }), [])
      // States at an instant: the link expires at 500 000.
      assert.deepStrictEqual(yield* list({ state: { is: "active", at: at(499_999) } }), [onWorkspace.grant_id, link.grant_id, toUser.grant_id])
      assert.deepStrictEqual(yield* list({ state: { is: "expired", at: at(500_000) } }), [link.grant_id])
      assert.deepStrictEqual(yield* list({ state: { is: "revoked", at: at(500_000) } }), [])
      // Opens: counted one write at a time, in their tenant only; a change of the grant read before an open keeps it.
      const before = (yield* store.find(tenant.tenant_id, link.grant_id))!
      yield* store.recordOpen(tenant.tenant_id, link.grant_id, at(5))
      yield* Effect.all([store.recordOpen(tenant.tenant_id, link.grant_id, at(6)), store.recordOpen(tenant.tenant_id, link.grant_id, at(6))], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, link.grant_id), { ...link, open_count: 3, last_opened_at: at(6) })
      assert.isTrue(yield* store.update({ ...before, label: "Customer portal", updated_at: at(7) }))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, link.grant_id), {
        ...link,
        label: "Customer portal",
        updated_at: at(7),
        open_count: 3,
        last_opened_at: at(6)
      })
      yield* store.recordOpen(tenant.tenant_id, "00000000-0000-7000-8000-000000000000" as Grant.GrantId, at(8))
      yield* store.recordOpen(tenant.tenant_id, "not-an-id" as Grant.GrantId, at(8))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, toUser.grant_id), toUser)
      // Revoked: kept, as it is.
      const revoked: Grant.StoredGrant = { ...link, label: null, revoked_at: at(10), paused: true, updated_at: at(10), open_count: 3, last_opened_at: at(6) }
      assert.isTrue(yield* store.update(revoked))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, link.grant_id), revoked)
      assert.deepStrictEqual(yield* list({ state: { is: "revoked", at: at(20) } }), [link.grant_id])
      // A grant waiting for an invitation goes to the user who accepted it, once.
      const invitationId = yield* Ids.uuidv7
      const waiting = yield* grant(4, { principal_id: null, invitation_id: invitationId, recipient_email: "new@example.com" })
      yield* store.insert(waiting)
      assert.strictEqual(yield* store.activateInvitation(tenant.tenant_id, invitationId, "u-new", at(30)), 1)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, waiting.grant_id), { ...waiting, principal_id: "u-new", updated_at: at(30) })
      assert.strictEqual(yield* store.activateInvitation(tenant.tenant_id, invitationId, "u-other", at(31)), 0)
      // Another tenant sees none of it.
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.strictEqual(yield* store.find(other.tenant_id, link.grant_id), undefined)
      assert.deepStrictEqual(yield* store.onSubjects(other.tenant_id, [{ type: "report", id: reportId }]), [])
      assert.deepStrictEqual(yield* store.list(other.tenant_id, {}, newestFirst(10)), [])
      assert.isFalse(yield* store.update({ ...revoked, tenant_id: other.tenant_id }))
      assert.strictEqual(yield* store.activateInvitation(other.tenant_id, invitationId, "u-new", at(32)), 0)
      yield* store.recordOpen(other.tenant_id, link.grant_id, at(33))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, link.grant_id), revoked)
    }))
}
