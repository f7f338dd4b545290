/**
 * Grants in core on the memory stores: who may grant what, the audit entry
 * written with each change (never a secret), revocation kept on record.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as AuditLog from "../src/AuditLog.ts"
import * as Directory from "../src/Directory.ts"
import { EventPublisher } from "../src/EventPublisher.ts"
import * as Grants from "../src/Grants.ts"
import { Member } from "../src/Principal.ts"
import * as Tenants from "../src/Tenants.ts"
import type { TenantId } from "../src/Tenant.ts"
import * as Workspaces from "../src/Workspaces.ts"

const stores = Layer.provideMerge(EventPublisher.layer, MemoryStores.layer)

const setup = Effect.gen(function*() {
  const { tenant } = yield* Tenants.provision({ name: "Acme", plan: "growth" })
  const tenantId = tenant.tenant_id as TenantId
  const workspace = yield* Workspaces.create(tenantId, { name: "Sales" })
  const ada = yield* Directory.createUser(tenantId, { email: "ada@example.com", name: "Ada" })
  const bob = yield* Directory.createUser(tenantId, { email: "bob@example.com", name: "Bob" })
  const admin = new Member({ tenantId, userId: "admin-1", email: null, roles: ["admin"] })
  const asUser = (userId: string) => new Member({ tenantId, userId, email: null, roles: ["member"] })
  return { tenantId, workspace, ada, bob, admin, asUser }
})

describe("Grants", () => {
  it.effect("who may grant: admins; holders of share, only what they hold; the audit log records each change without secrets", () =>
    Effect.gen(function*() {
      const { ada, admin, asUser, bob, tenantId, workspace } = yield* setup
      const onWorkspace = { subject_type: "workspace", subject_id: workspace.workspace_id } as const
      // A member without share may grant nothing.
      const refused = yield* Effect.flip(Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view"] }))
      assert.strictEqual(refused._tag, "Forbidden")
      // The admin gives Ada view and share on the workspace.
      const toAda = yield* Grants.create(admin, { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view", "share"] })
      assert.strictEqual(toAda.workspace_id, workspace.workspace_id)
      // Ada may re-share view, not download.
      const toBob = yield* Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view"] })
      const tooMuch = yield* Effect.flip(Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view", "download"] }))
      assert.strictEqual(tooMuch._tag, "Forbidden")
      assert.include((tooMuch as any).detail, "download")
      // Links get an unguessable token; the audit log never shows it.
      const link = yield* Grants.create(admin, { ...onWorkspace, principal_type: "link", actions: ["view"], watermark: true })
      assert.match(link.link_slug!, /^[A-Za-z0-9_-]{32}$/)
      // Bad requests.
      const invalid = [
        { ...onWorkspace, principal_type: "user", principal_id: "nobody", actions: ["view"] },
        { ...onWorkspace, principal_type: "link", principal_id: ada.user_id, actions: ["view"] },
        { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view"], expires_at: new Date(0) }
      ] as const
      for (const input of invalid) assert.strictEqual((yield* Effect.flip(Grants.create(admin, input as any)))._tag, "GrantInvalid")
      assert.strictEqual((yield* Effect.flip(Grants.create(admin, { subject_type: "report", subject_id: crypto.randomUUID(), principal_type: "link", actions: ["view"] })))._tag, "NotFound")
      // Revoking: by Ada (she holds share), kept on record; again, nothing changes.
      const revoked = yield* Grants.revoke(asUser(ada.user_id), toBob.grant_id)
      assert.isNotNull(revoked.revoked_at)
      assert.deepStrictEqual(yield* Grants.revoke(admin, toBob.grant_id), revoked)
      assert.strictEqual((yield* Effect.flip(Grants.revoke(asUser(bob.user_id), toAda.grant_id)))._tag, "Forbidden")
      const log = yield* (yield* AuditLog.AuditStore).list(tenantId, {}, {
        take: 50,
        sort: { field: "created_at", direction: "desc" },
        after: undefined,
        createdAtOrBefore: new Date(8.64e15)
      })
      assert.deepStrictEqual(log.map((e) => e.action).sort(), ["grant.created", "grant.created", "grant.created", "grant.revoked"])
      assert.deepStrictEqual(log.find((e) => e.action === "grant.revoked")!.actor, { type: "user", id: ada.user_id })
      const text = JSON.stringify(log)
      assert.notInclude(text, link.link_slug!)
      assert.notInclude(text, "password_hash")
      assert.deepInclude(log.find((e) => e.target.id === link.grant_id)!.detail, { principal_type: "link", watermark: true, password_protected: false })
    }).pipe(Effect.provide(stores)))
})
