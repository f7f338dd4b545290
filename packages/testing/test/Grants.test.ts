/**
 * Grants in core on the memory stores: who may grant what, the audit entry
 * written with each change (never a secret), revocation kept on record,
 * invitations of addresses that are no users, changes and pauses.
 *
 * Passwords are hashed with core's PBKDF2 hasher at a low iteration count
 * (fast tests); the Argon2id adapter is exercised by adapter-http's tests.
 */
import { Access, AuditLog, Cursor, DirectoryUseCases, EventPublisher, Grant, GrantStore, Grants, Invitations, Mailer, PasswordHasher, Principal, Report, ReportStore, Tenant, Tenants, Workspaces } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

/** The admin the directory changes of these tests are audited as. */
const byAdmin: AuditLog.Actor = { type: "user", id: "admin-1" }

const fastHasher = Layer.succeed(PasswordHasher.PasswordHasher, PasswordHasher.pbkdf2(1_000))

const stores = Layer.mergeAll(EventPublisher.EventPublisher.layer, Mailer.Mailer.layerMemory, fastHasher, Cursor.CursorCodec.layer).pipe(Layer.provideMerge(MemoryStores.layer))

const mailbox = Mailer.makeMemory()

const links: Invitations.Links = { acceptUrl: (token) => `https://analytics.example.com/accept?token=${token}` }

const setup = Effect.gen(function*() {
  const { tenant } = yield* Tenants.provision({ name: "Acme", plan: "growth" })
  const tenantId = tenant.tenant_id as Tenant.TenantId
  const workspace = yield* Workspaces.create(tenantId, { name: "Sales" })
  const ada = yield* DirectoryUseCases.createUser(tenantId, { email: "ada@example.com", name: "Ada" }, byAdmin)
  const bob = yield* DirectoryUseCases.createUser(tenantId, { email: "bob@example.com", name: "Bob" }, byAdmin)
  const admin = new Principal.Member({ tenantId, userId: "admin-1", email: null, roles: ["admin"] })
  const asUser = (userId: string) => new Principal.Member({ tenantId, userId, email: null, roles: ["member"] })
  const now = new Date()
  const report: Report.Report = {
    report_id: crypto.randomUUID() as Report.ReportId,
    tenant_id: tenantId,
    workspace_id: workspace.workspace_id,
    name: "Sales",
    description: null,
    pages: [],
    filters: [],
    settings: { query_timeout_seconds: 30 },
    created_at: now,
    updated_at: now
  }
  yield* (yield* ReportStore.ReportStore).insert(report)
  return { tenantId, workspace, report, ada, bob, admin, asUser }
})

describe("Grants", () => {
  it.effect("who may grant: admins; holders of share, only what they hold; the audit log records each change without secrets", () =>
    Effect.gen(function*() {
      const { ada, admin, asUser, bob, report, tenantId, workspace } = yield* setup
      const onWorkspace = { subject_type: "workspace", subject_id: workspace.workspace_id } as const
      // A member without share may grant nothing.
      const refused = yield* Effect.flip(Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view"] }, links))
      assert.strictEqual(refused._tag, "Forbidden")
      // The admin gives Ada view and share on the workspace.
      const toAda = yield* Grants.create(admin, { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view", "share"] }, links)
      assert.strictEqual(toAda.workspace_id, workspace.workspace_id)
      // Ada may re-share view, not download.
      const toBob = yield* Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view"] }, links)
      const tooMuch = yield* Effect.flip(Grants.create(asUser(ada.user_id), { ...onWorkspace, principal_type: "user", principal_id: bob.user_id, actions: ["view", "download"] }, links))
      assert.strictEqual(tooMuch._tag, "Forbidden")
      assert.include((tooMuch as any).detail, "download")
      // Links get an unguessable token; the audit log never shows it.
      const link = yield* Grants.create(admin, { subject_type: "report", subject_id: report.report_id, principal_type: "link", actions: ["view"], watermark: true, password: "correct horse" }, links)
      assert.match(link.link_slug!, /^[A-Za-z0-9_-]{32}$/)
      // Bad requests.
      const invalid = [
        { ...onWorkspace, principal_type: "user", principal_id: "nobody", actions: ["view"] },
        { ...onWorkspace, principal_type: "link", principal_id: ada.user_id, actions: ["view"] },
        // Only links have passwords; a user grant names a user or an address, not both.
        { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view"], password: "long enough" },
        { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, email: "ada@example.com", actions: ["view"] },
        { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view"], expires_at: new Date(0) }
      ] as const
      for (const input of invalid) assert.strictEqual((yield* Effect.flip(Grants.create(admin, input as any, links)))._tag, "GrantInvalid")
      assert.strictEqual((yield* Effect.flip(Grants.create(admin, { subject_type: "report", subject_id: crypto.randomUUID(), principal_type: "link", actions: ["view"] }, links)))._tag, "NotFound")
      // Revoking: by Ada (she holds share), kept on record; again, refused as not active, nothing changes.
      const revoked = yield* Grants.revoke(asUser(ada.user_id), toBob.grant_id)
      assert.isNotNull(revoked.revoked_at)
      assert.deepStrictEqual(yield* Effect.flip(Grants.revoke(admin, toBob.grant_id)), new Grants.GrantNotActive({ state: "revoked" }))
      assert.deepStrictEqual(yield* Grants.get(admin, toBob.grant_id), revoked)
      // Bob neither made it nor holds share: to him it is no grant at all.
      assert.strictEqual((yield* Effect.flip(Grants.revoke(asUser(bob.user_id), toAda.grant_id)))._tag, "NotFound")
      const log = yield* (yield* AuditLog.AuditStore).list(tenantId, {}, {
        take: 50,
        sort: { field: "created_at", direction: "desc" },
        after: undefined,
        createdAtOrBefore: new Date(8.64e15)
      })
      // (and the two users the setup made, audited as the directory's changes)
      assert.deepStrictEqual(log.map((e) => e.action).sort(), ["grant.created", "grant.created", "grant.created", "grant.revoked", "user.created", "user.created"])
      assert.deepStrictEqual(log.find((e) => e.action === "grant.revoked")!.actor, { type: "user", id: ada.user_id })
      const text = JSON.stringify(log)
      assert.notInclude(text, link.link_slug!)
      assert.notInclude(text, "password_hash")
      assert.notInclude(text, "correct horse")
      assert.notInclude(text, link.password_hash!)
      assert.deepInclude(log.find((e) => e.target.id === link.grant_id)!.detail, { principal_type: "link", watermark: true, password_protected: true })
    }).pipe(Effect.provide(stores)))

  it.effect("a user grant to an address that is no user invites it and applies once the invitation is accepted", () =>
    Effect.gen(function*() {
      const { ada, admin, report } = yield* setup
      const onReport = { subject_type: "report", subject_id: report.report_id, principal_type: "user", actions: ["view"] } as const
      // A user's address: granted to that user at once.
      const toAda = yield* Grants.create(admin, { ...onReport, email: "ada@example.com" }, links)
      assert.strictEqual(toAda.principal_id, ada.user_id)
      assert.isNull(toAda.invitation_id)
      // Anyone else: an invitation by e-mail, and the grant waits for it.
      const waiting = yield* Grants.create(admin, { ...onReport, email: "carol@example.com" }, links)
      assert.isNull(waiting.principal_id)
      assert.isNotNull(waiting.invitation_id)
      assert.strictEqual(waiting.recipient_email, "carol@example.com")
      const [invitation] = mailbox.sent.filter((m) => m.to.includes("carol@example.com"))
      const token = new URL(/https:\S+/.exec(invitation!.text)![0]).searchParams.get("token")!
      const { user: carol } = yield* Invitations.accept({ token })
      const activated = yield* Grants.get(admin, waiting.grant_id)
      assert.strictEqual(activated.principal_id, carol.user_id)
      // She now has view on the report, as access evaluation sees it.
      const grants = yield* (yield* GrantStore.GrantStore).onSubjects(report.tenant_id, [{ type: "report", id: report.report_id }])
      const decision = yield* Access.decideForUser(report.tenant_id, carol.user_id, { type: "report", id: report.report_id }, "view", grants, new Date())
      assert.strictEqual(decision._tag, "Allow")
    }).pipe(Effect.provide(Layer.provideMerge(Layer.succeed(Mailer.Mailer, mailbox.mailer), stores))))

  it.effect("changes, pauses and lists: actions and expiry change, a link pauses, members list what they made, revoked grants change no more", () =>
    Effect.gen(function*() {
      const { ada, admin, asUser, report, workspace } = yield* setup
      const onWorkspace = { subject_type: "workspace", subject_id: workspace.workspace_id } as const
      yield* Grants.create(admin, { ...onWorkspace, principal_type: "user", principal_id: ada.user_id, actions: ["view", "download", "share"] }, links)
      const link = yield* Grants.create(asUser(ada.user_id), { subject_type: "report", subject_id: report.report_id, principal_type: "link", actions: ["view"] }, links)
      const changed = yield* Grants.update(asUser(ada.user_id), link.grant_id, { actions: ["view", "download"], password: "a new secret", expires_at: new Date(Date.now() + 60_000) })
      assert.deepStrictEqual(changed.actions, ["view", "download"])
      assert.isNotNull(changed.password_hash)
      // Ada cannot give what she does not hold.
      assert.strictEqual((yield* Effect.flip(Grants.update(asUser(ada.user_id), link.grant_id, { actions: ["edit"] })))._tag, "Forbidden")
      const paused = yield* Grants.setPaused(asUser(ada.user_id), link.grant_id, true)
      assert.isTrue(paused.paused)
      assert.isFalse((yield* Grants.setPaused(admin, link.grant_id, false)).paused)
      const request = { endpoint: "GET /v1/sharing/grants", params: {}, tenant: admin.tenantId, limit: undefined, cursor: undefined }
      const mine = yield* Grants.list(asUser(ada.user_id), {}, request)
      assert.deepStrictEqual(mine.data.map((g) => g.grant_id), [link.grant_id])
      assert.strictEqual((yield* Grants.list(admin, {}, request)).data.length, 2)
      assert.deepStrictEqual((yield* Grants.list(admin, { principalType: "link", state: "active" }, request)).data.map((g) => g.grant_id), [link.grant_id])
      yield* Grants.revoke(admin, link.grant_id)
      assert.deepStrictEqual((yield* Grants.list(admin, { state: "revoked" }, request)).data.map((g) => g.grant_id), [link.grant_id])
      const late = yield* Effect.flip(Grants.update(admin, link.grant_id, { watermark: true }))
      assert.deepStrictEqual(late, new Grants.GrantNotActive({ state: "revoked" }))
      const log = yield* (yield* AuditLog.AuditStore).list(report.tenant_id, { targetId: link.grant_id }, {
        take: 50,
        sort: { field: "created_at", direction: "desc" },
        after: undefined,
        createdAtOrBefore: new Date(8.64e15)
      })
      assert.deepStrictEqual(log.map((e) => e.action).sort(), ["grant.created", "grant.paused", "grant.resumed", "grant.revoked", "grant.updated"])
      assert.notInclude(JSON.stringify(log), "a new secret")
    }).pipe(Effect.provide(stores)))

  it.effect("an expired grant is not revoked: it stays expired, unchanged, and writes no entry", () =>
    Effect.gen(function*() {
      const { admin, report } = yield* setup
      const start = yield* Clock.currentTimeMillis
      const link = yield* Grants.create(admin, {
        subject_type: "report",
        subject_id: report.report_id,
        principal_type: "link",
        actions: ["view"],
        expires_at: new Date(start + 1_000)
      }, links)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(Grant.stateAt(link, new Date(yield* Clock.currentTimeMillis)), "expired")
      assert.deepStrictEqual(yield* Effect.flip(Grants.revoke(admin, link.grant_id)), new Grants.GrantNotActive({ state: "expired" }))
      const after = yield* Grants.get(admin, link.grant_id)
      assert.deepStrictEqual(after, link)
      assert.isNull(after.revoked_at)
      const log = yield* (yield* AuditLog.AuditStore).list(report.tenant_id, { targetId: link.grant_id }, {
        take: 50,
        sort: { field: "created_at", direction: "desc" },
        after: undefined,
        createdAtOrBefore: new Date(8.64e15)
      })
      assert.deepStrictEqual(log.map((e) => e.action), ["grant.created"])
    }).pipe(Effect.provide(stores)))
})
