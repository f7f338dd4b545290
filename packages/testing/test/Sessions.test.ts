import {
  ApiToken,
  AuditLog,
  Authenticator,
  DirectoryUseCases,
  Errors,
  EventPublisher,
  Limiter,
  Mailer,
  RateLimitStore,
  ScimProvisioning,
  Session,
  Sessions,
  SessionStore,
  type Stores,
  type Tenant,
  TenantStore,
  TenantTokens,
  Transactor,
  type User,
  UserUpdates
} from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { insertTenant } from "../src/Fixtures.ts"

/** The admin the directory changes of these tests are audited as. */
const byAdmin: AuditLog.Actor = { type: "user", id: "admin-1" }

const operatorToken = "ast_operator-token-for-session-tests"
const links: Sessions.Links = { signInUrl: (token) => `https://analytics.example.com/sign-in#token=${token}` }

/** Fresh memory stores, the built-in authenticator, a memory mailer and the limiter, with the mails sent exposed. */
const setup = () => {
  const memory = Mailer.makeMemory()
  const stores = MemoryStores.layer
  const layer = Layer.mergeAll(
    Authenticator.layerTokens({ operatorToken: Option.some(Redacted.make(operatorToken)) }),
    EventPublisher.EventPublisher.layer,
    Layer.succeed(Mailer.Mailer, memory.mailer),
    Limiter.Limiter.layer.pipe(Layer.provide(RateLimitStore.RateLimitStore.layerMemory))
  ).pipe(Layer.provideMerge(stores))
  return { layer, sent: memory.sent }
}

type Services = Stores | Authenticator.Authenticator | EventPublisher.EventPublisher | Mailer.Mailer | Limiter.Limiter

const run = <A, E>(f: (sent: ReadonlyArray<Mailer.Mail>) => Effect.Effect<A, E, Services>) => {
  const { layer, sent } = setup()
  return Effect.provide(f(sent), layer)
}

/** A tenant with an active user of `email` (an admin when asked). */
/** A tenant and a user; `userName` makes them one the identity provider provisioned (the only users SCIM manages). */
const tenantWithUser = (email: string, roles: ReadonlyArray<User.ServiceRole> = ["member"], userName?: string) =>
  Effect.gen(function*() {
    const tenant = yield* insertTenant({ name: `Tenant of ${email}` })
    const user = yield* DirectoryUseCases.createUser(tenant.tenant_id, { email, name: "Ada Lovelace", roles, userName }, byAdmin)
    return { tenant, user }
  })

const tokenIn = (mail: Mailer.Mail) => {
  const match = /#token=([A-Za-z0-9_-]+)/.exec(mail.text)
  assert.isNotNull(match)
  return match![1]
}

/** Signs `user` in through an e-mailed link. */
const signIn = (email: string, sent: ReadonlyArray<Mailer.Mail>, lifetimes?: Session.Lifetimes) =>
  Effect.gen(function*() {
    const before = sent.length
    yield* Sessions.requestLink(email, "192.0.2.1", links)
    assert.strictEqual(sent.length, before + 1)
    return yield* Sessions.openWithLink(tokenIn(sent[sent.length - 1]), lifetimes)
  })

const refused = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.flip(effect), (error) => (error as { readonly _tag: string })._tag)

const storeToken = (tenantId: Tenant.TenantId, userId: string, roles: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const token = yield* ApiToken.generate
    yield* (yield* TenantStore.TenantStore).insertToken({
      tokenId: `token-${userId}`,
      tenantId,
      tokenHash: yield* ApiToken.hash(token),
      userId,
      email: null,
      roles,
      createdAt: new Date(0)
    })
    return token
  })

describe("Sessions", () => {
  it.effect("a link is mailed to each tenant where the address is an active user, and nothing to anyone else", () =>
    run((sent) =>
      Effect.gen(function*() {
        const first = yield* tenantWithUser("ada@example.com")
        const second = yield* tenantWithUser("ada@example.com")
        const gone = yield* tenantWithUser("ada@example.com")
        yield* UserUpdates.updateUser(gone.tenant.tenant_id, gone.user.user_id, { status: "deprovisioned" }, byAdmin)
        yield* Sessions.requestLink("ada@example.com", "192.0.2.1", links)
        assert.deepStrictEqual(sent.map((m) => m.to), [["ada@example.com"], ["ada@example.com"]])
        assert.deepStrictEqual(sent.map((m) => m.subject), [
          `Sign in to Analytics (${first.tenant.name})`,
          `Sign in to Analytics (${second.tenant.name})`
        ])
        // Each link signs in to its own tenant.
        const opened = yield* Effect.forEach(sent, (mail) => Sessions.openWithLink(tokenIn(mail)))
        // (In no particular order: both tenants were made in the same instant.)
        assert.deepStrictEqual(opened.map((o) => o.member.tenantId).sort(), [first.tenant.tenant_id, second.tenant.tenant_id].sort())
        assert.strictEqual(opened[0].session.via, "link")
        // A session is the console's channel: its exports count in the UI class (decision 0022).
        assert.strictEqual(opened[0].member.channel, "session")
        assert.strictEqual((yield* Sessions.resolve(opened[0].cookie)).member.channel, "session")
        assert.strictEqual(opened[0].name, "Ada Lovelace")
        yield* Sessions.requestLink("nobody@example.com", "192.0.2.1", links)
        assert.strictEqual(sent.length, 2)
      })))

  it.effect("a link signs in once, not after 15 minutes, and one of two concurrent uses wins", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("bea@example.com")
        yield* Sessions.requestLink("bea@example.com", "192.0.2.1", links)
        const token = tokenIn(sent[0])
        yield* Sessions.openWithLink(token)
        assert.strictEqual(yield* refused(Sessions.openWithLink(token)), "SignInLinkInvalid")
        assert.strictEqual(yield* refused(Sessions.openWithLink("made-up")), "SignInLinkInvalid")
        yield* Sessions.requestLink("bea@example.com", "192.0.2.1", links)
        yield* TestClock.adjust(Duration.minutes(15))
        assert.strictEqual(yield* refused(Sessions.openWithLink(tokenIn(sent[1]))), "SignInLinkInvalid")
        for (let round = 0; round < 3; round++) {
          yield* Sessions.requestLink("bea@example.com", "192.0.2.1", links)
          const raced = tokenIn(sent[sent.length - 1])
          const exits = yield* Effect.all([Sessions.openWithLink(raced), Sessions.openWithLink(raced)].map(Effect.exit), {
            concurrency: "unbounded"
          })
          assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
        }
      })))

  it.effect("a session ends after 60 idle minutes, is kept alive by use, and ends 12 hours after sign-in anyway", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("cy@example.com")
        const idle = yield* signIn("cy@example.com", sent)
        yield* TestClock.adjust(Duration.minutes(59))
        const resolved = yield* Sessions.resolve(idle.cookie)
        assert.strictEqual(resolved.member.email, "cy@example.com")
        assert.deepStrictEqual(
          Session.idleExpiresAt(resolved.session, Session.defaultLifetimes),
          new Date(resolved.session.last_seen_at.getTime() + 60 * 60_000)
        )
        yield* TestClock.adjust(Duration.minutes(60))
        assert.strictEqual(yield* refused(Sessions.resolve(idle.cookie)), "Unauthenticated")

        const busy = yield* signIn("cy@example.com", sent)
        for (let minutes = 50; minutes < 12 * 60; minutes += 50) {
          yield* TestClock.adjust(Duration.minutes(50))
          yield* Sessions.resolve(busy.cookie)
        }
        yield* TestClock.adjust(Duration.minutes(20))
        assert.strictEqual(yield* refused(Sessions.resolve(busy.cookie)), "Unauthenticated")
      })))

  it.effect("the audit log says why each session ended: signed out, idle, expired, deprovisioned (by whom), by the identity provider; once each", () =>
    run((sent) =>
      Effect.gen(function*() {
        const { tenant, user } = yield* tenantWithUser("ian@example.com")
        const entries = Effect.map(
          Effect.flatMap(AuditLog.AuditStore, (store) =>
            store.list(tenant.tenant_id, { targetType: "session" }, { take: 100, sort: { field: "created_at", direction: "desc" }, after: undefined, createdAtOrBefore: new Date(8.64e15) })),
          (list) => list.map((e) => ({ action: e.action, session: e.target.id, actor: e.actor, reason: e.detail.reason, user: e.detail.user_id })).reverse()
        )
        const signedOut = yield* signIn("ian@example.com", sent)
        yield* Sessions.end(signedOut.cookie)
        const idle = yield* signIn("ian@example.com", sent)
        const busy = yield* signIn("ian@example.com", sent)
        yield* TestClock.adjust(Duration.minutes(60))
        // Presented past its idle hour, twice: ended, and recorded, once.
        yield* refused(Sessions.resolve(idle.cookie))
        yield* refused(Sessions.resolve(idle.cookie))
        const kept = yield* signIn("ian@example.com", sent)
        for (let minutes = 60; minutes < 12 * 60; minutes += 50) {
          yield* TestClock.adjust(Duration.minutes(50))
          yield* Sessions.resolve(kept.cookie)
        }
        yield* TestClock.adjust(Duration.minutes(50))
        yield* refused(Sessions.resolve(kept.cookie))
        const open = yield* signIn("ian@example.com", sent)
        yield* UserUpdates.updateUser(tenant.tenant_id, user.user_id, { status: "deprovisioned" }, byAdmin)
        const system = { type: "system", id: "service" }
        const mine = (session: Sessions.Opened) => session.session.session_id
        // (Entries of one test-clock millisecond order by id, not by arrival: compared as sets.)
        const expected: Array<unknown> = [
          { action: "session.signed_in", session: mine(signedOut), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id },
          { action: "session.signed_out", session: mine(signedOut), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id },
          { action: "session.signed_in", session: mine(idle), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id },
          { action: "session.signed_in", session: mine(busy), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id },
          { action: "session.ended", session: mine(idle), actor: system, reason: "idle", user: user.user_id },
          { action: "session.signed_in", session: mine(kept), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id },
          { action: "session.ended", session: mine(kept), actor: system, reason: "expired", user: user.user_id },
          { action: "session.signed_in", session: mine(open), actor: { type: "user", id: user.user_id }, reason: undefined, user: user.user_id }
        ]
        // The deprovisioning ends the sessions still open (`busy` was never presented again, `open`), as the admin's doing.
        assert.sameDeepMembers(yield* entries, [
          ...expected,
          { action: "session.ended", session: mine(busy), actor: byAdmin, reason: "deprovisioned", user: user.user_id },
          { action: "session.ended", session: mine(open), actor: byAdmin, reason: "deprovisioned", user: user.user_id }
        ])

        const scim = yield* tenantWithUser("jo@example.com", ["member"], "jo@example.com")
        const viaScim = yield* signIn("jo@example.com", sent)
        yield* ScimProvisioning.patchUser(scim.tenant.tenant_id, scim.user.user_id, {
          schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
          Operations: [{ op: "replace", value: { active: false } }]
        })
        const scimEnded = (yield* Effect.flatMap(AuditLog.AuditStore, (store) =>
          store.list(scim.tenant.tenant_id, { action: "session.ended" }, { take: 10, sort: { field: "created_at", direction: "desc" }, after: undefined, createdAtOrBefore: new Date(8.64e15) })))
        assert.deepStrictEqual(scimEnded.map((e) => [e.target.id, e.actor, e.detail.reason]), [
          [viaScim.session.session_id, { type: "scim", id: `scim:${scim.tenant.tenant_id}` }, "deprovisioned"]
        ])
      })))

  it.effect("the hourly purge first ends, audited, the sessions never presented again: idle, then past their absolute lifetime; a live one stays", () =>
    run((sent) =>
      Effect.gen(function*() {
        const { tenant, user } = yield* tenantWithUser("lu@example.com")
        const ended = (sessionId: string) =>
          Effect.map(
            Effect.flatMap(AuditLog.AuditStore, (store) =>
              store.list(tenant.tenant_id, { action: "session.ended" }, { take: 100, sort: { field: "created_at", direction: "desc" }, after: undefined, createdAtOrBefore: new Date(8.64e15) })),
            (list) => list.filter((e) => e.target.id === sessionId).map((e) => [e.actor, e.detail.reason, e.detail.user_id])
          )
        const system = { type: "system", id: "service" }
        const lifetimes = Session.lifetimesOf({ idleMinutes: 30, absoluteHours: 2 })
        const idle = yield* signIn("lu@example.com", sent, lifetimes)
        const lasting = yield* signIn("lu@example.com", sent, lifetimes)
        // `lasting` is used every 20 minutes or less: never idle, until its absolute lifetime (2 hours).
        yield* TestClock.adjust(Duration.minutes(20))
        yield* Sessions.resolve(lasting.cookie, lifetimes)
        yield* TestClock.adjust(Duration.minutes(11))
        const live = yield* signIn("lu@example.com", sent, lifetimes)
        yield* Sessions.resolve(lasting.cookie, lifetimes)
        const store = yield* SessionStore.SessionStore
        yield* Sessions.purgeExpired(lifetimes)
        assert.deepStrictEqual(yield* ended(idle.session.session_id), [[system, "idle", user.user_id]])
        // Ended now, kept until its expiry like a session signed out.
        assert.isNotNull((yield* store.findByHash(idle.session.token_hash))?.ended_at)
        assert.deepStrictEqual(yield* ended(lasting.session.session_id), [])
        for (const _ of [51, 71, 91, 111]) {
          yield* TestClock.adjust(Duration.minutes(20))
          yield* Sessions.resolve(lasting.cookie, lifetimes)
          yield* Sessions.resolve(live.cookie, lifetimes)
        }
        yield* TestClock.adjust(Duration.minutes(10))
        // At 2 h 1 min, never presented since 1 h 51: `lasting` expired (not idle); `live`, signed in 31 minutes later, still signs in.
        yield* Sessions.purgeExpired(lifetimes)
        assert.deepStrictEqual(yield* ended(lasting.session.session_id), [[system, "expired", user.user_id]])
        assert.deepStrictEqual(yield* ended(live.session.session_id), [])
        assert.strictEqual((yield* Sessions.resolve(live.cookie, lifetimes)).session.session_id, live.session.session_id)
        // Past their expiry they are deleted, and a second pass records nothing more.
        assert.strictEqual(yield* store.findByHash(lasting.session.token_hash), undefined)
        yield* Sessions.purgeExpired(lifetimes)
        assert.lengthOf(yield* ended(idle.session.session_id), 1)
        assert.lengthOf(yield* ended(lasting.session.session_id), 1)
      })))

  it.effect("a use is written at most once a minute", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("di@example.com")
        const opened = yield* signIn("di@example.com", sent)
        const store = yield* SessionStore.SessionStore
        const lastSeen = () => Effect.map(store.findByHash(opened.session.token_hash), (s) => s!.last_seen_at.getTime())
        const start = yield* lastSeen()
        yield* TestClock.adjust(Duration.seconds(30))
        yield* Sessions.resolve(opened.cookie)
        yield* TestClock.adjust(Duration.seconds(29))
        yield* Sessions.resolve(opened.cookie)
        assert.strictEqual(yield* lastSeen(), start)
        yield* TestClock.adjust(Duration.seconds(1))
        const touched = yield* Sessions.resolve(opened.cookie)
        assert.strictEqual(yield* lastSeen(), start + 60_000)
        assert.strictEqual(touched.session.last_seen_at.getTime(), start + 60_000)
      })))

  it.effect("a session reads its user afresh: roles change at once, deprovisioning (API or SCIM) ends it", () =>
    run((sent) =>
      Effect.gen(function*() {
        const { tenant, user } = yield* tenantWithUser("ed@example.com")
        const opened = yield* signIn("ed@example.com", sent)
        yield* UserUpdates.updateUser(tenant.tenant_id, user.user_id, { roles: ["admin"] }, byAdmin)
        assert.deepStrictEqual((yield* Sessions.resolve(opened.cookie)).member.roles, ["admin"])
        const stopped = yield* Effect.flatMap(Transactor.Transactor, (t) => t.transaction(Effect.gen(function*() {
          const updated = yield* UserUpdates.updateUser(tenant.tenant_id, user.user_id, { status: "deprovisioned" }, byAdmin)
          return updated
        })))
        assert.strictEqual(stopped.status, "deprovisioned")
        const row = yield* (yield* SessionStore.SessionStore).findByHash(opened.session.token_hash)
        assert.isNotNull(row!.ended_at)
        assert.strictEqual(yield* refused(Sessions.resolve(opened.cookie)), "Unauthenticated")

        const scim = yield* tenantWithUser("fay@example.com", ["member"], "fay@example.com")
        const viaScim = yield* signIn("fay@example.com", sent)
        yield* ScimProvisioning.patchUser(scim.tenant.tenant_id, scim.user.user_id, {
          schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
          Operations: [{ op: "replace", value: { active: false } }]
        })
        const scimRow = yield* (yield* SessionStore.SessionStore).findByHash(viaScim.session.token_hash)
        assert.isNotNull(scimRow!.ended_at)
        assert.strictEqual(yield* refused(Sessions.resolve(viaScim.cookie)), "Unauthenticated")
      })))

  it.effect("a deprovisioning that fails leaves the sessions open", () =>
    run((sent) =>
      Effect.gen(function*() {
        const { tenant, user } = yield* tenantWithUser("gil@example.com")
        const opened = yield* signIn("gil@example.com", sent)
        const failed = yield* Effect.flatMap(Transactor.Transactor, (t) =>
          t.transaction(Effect.andThen(
            UserUpdates.updateUser(tenant.tenant_id, user.user_id, { status: "deprovisioned" }, byAdmin),
            Effect.fail(new Errors.Forbidden({ detail: "rolled back" }))
          ))).pipe(Effect.exit)
        assert.isTrue(Exit.isFailure(failed))
        assert.strictEqual((yield* Sessions.resolve(opened.cookie)).member.userId, user.user_id)
      })))

  it.effect("sign-out ends the session", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("hal@example.com")
        const opened = yield* signIn("hal@example.com", sent)
        assert.strictEqual((yield* Sessions.end(opened.cookie))?.session_id, opened.session.session_id)
        assert.strictEqual(yield* Sessions.end(opened.cookie), undefined)
        assert.strictEqual(yield* refused(Sessions.resolve(opened.cookie)), "Unauthenticated")
        assert.strictEqual(yield* refused(Sessions.resolve("")), "Unauthenticated")
      })))

  it.effect("an admin's API token signs in until it is revoked; a member's, the operator's or a bad one does not", () =>
    run(() =>
      Effect.gen(function*() {
        const tenant = yield* insertTenant()
        // A provisioning token: no directory user behind it.
        const admin = yield* storeToken(tenant.tenant_id, "provisioning-admin", ["admin"])
        const opened = yield* Sessions.openWithToken(Redacted.make(admin))
        assert.strictEqual(opened.session.via, "api-token")
        assert.strictEqual(opened.name, null)
        assert.deepStrictEqual((yield* Sessions.resolve(opened.cookie)).member.roles, ["admin"])
        assert.strictEqual((yield* Sessions.resolve(opened.cookie)).member.channel, "session")
        const member = yield* storeToken(tenant.tenant_id, "someone", ["member"])
        assert.strictEqual(yield* refused(Sessions.openWithToken(Redacted.make(member))), "Forbidden")
        assert.strictEqual(yield* refused(Sessions.openWithToken(Redacted.make(operatorToken))), "Forbidden")
        assert.strictEqual(yield* refused(Sessions.openWithToken(Redacted.make("ast_nothing"))), "Unauthenticated")
        assert.isTrue(yield* TenantTokens.revoke(tenant.tenant_id, "admin", "token-provisioning-admin", byAdmin))
        assert.strictEqual(yield* refused(Sessions.resolve(opened.cookie)), "Unauthenticated")
      })))

  it.effect("an admin's personal token signs in as their directory user, who is read afresh", () =>
    run(() =>
      Effect.gen(function*() {
        const { tenant, user } = yield* tenantWithUser("ida@example.com", ["admin"])
        const issued = yield* TenantTokens.issueForUser(user)
        const opened = yield* Sessions.openWithToken(Redacted.make(issued.token))
        assert.strictEqual(opened.name, "Ada Lovelace")
        assert.strictEqual((yield* Sessions.resolve(opened.cookie)).member.userId, user.user_id)
        yield* UserUpdates.updateUser(tenant.tenant_id, user.user_id, { roles: ["member"] }, byAdmin)
        assert.deepStrictEqual((yield* Sessions.resolve(opened.cookie)).member.roles, ["member"])
        yield* UserUpdates.updateUser(tenant.tenant_id, user.user_id, { status: "deprovisioned" }, byAdmin)
        assert.strictEqual(yield* refused(Sessions.resolve(opened.cookie)), "Unauthenticated")
      })))

  it.effect("sign-in links are limited to 5 in 15 minutes per address, whether or not it is a user's", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("jo@example.com", ["member"], "jo@example.com")
        for (let i = 0; i < 5; i++) yield* Sessions.requestLink("jo@example.com", `192.0.2.${i}`, links)
        for (let i = 0; i < 5; i++) yield* Sessions.requestLink("nobody@example.com", `198.51.100.${i}`, links)
        const error = yield* Effect.flip(Sessions.requestLink("jo@example.com", "192.0.2.99", links))
        assert.strictEqual(error._tag === "RateLimited" ? error.code : error._tag, "rate-limit/sign-in-links-exceeded")
        const unknown = yield* Effect.flip(Sessions.requestLink("nobody@example.com", "192.0.2.99", links))
        assert.strictEqual(unknown._tag === "RateLimited" ? unknown.code : unknown._tag, "rate-limit/sign-in-links-exceeded")
        assert.strictEqual(sent.length, 5)
        yield* TestClock.adjust(Duration.minutes(15))
        yield* Sessions.requestLink("jo@example.com", "192.0.2.99", links)
        assert.strictEqual(sent.length, 6)
      })))

  it.effect("the CSRF token is the session's own, stable, and not its stored hash", () =>
    run((sent) =>
      Effect.gen(function*() {
        yield* tenantWithUser("kim@example.com")
        const opened = yield* signIn("kim@example.com", sent)
        const csrf = yield* Sessions.csrfToken(opened.cookie)
        assert.strictEqual(yield* Sessions.csrfToken(opened.cookie), csrf)
        assert.notStrictEqual(csrf, opened.session.token_hash)
        assert.notStrictEqual(csrf, yield* Sessions.csrfToken(`${opened.cookie}x`))
        assert.isTrue(Sessions.constantTimeEquals(csrf, csrf))
        assert.isFalse(Sessions.constantTimeEquals(csrf, csrf.slice(1)))
      })))

  it.effect("the embedded CSRF token is per tenant, user and UTC day; yesterday's is handed along", () =>
    run(() =>
      Effect.gen(function*() {
        const csrf = yield* Sessions.embeddedCsrf
        const tenant = (yield* insertTenant()).tenant_id
        const other = (yield* insertTenant()).tenant_id
        const day = 86_400_000
        const noon = 20_000 * day + day / 2
        const today = yield* csrf.at(tenant, "ada", noon)
        assert.deepStrictEqual(yield* csrf.at(tenant, "ada", noon + day / 4), today)
        assert.match(today.current, /^[A-Za-z0-9_-]{43}$/)
        assert.notStrictEqual((yield* csrf.at(tenant, "bob", noon)).current, today.current)
        assert.notStrictEqual((yield* csrf.at(other, "ada", noon)).current, today.current)
        const tomorrow = yield* csrf.at(tenant, "ada", noon + day)
        assert.notStrictEqual(tomorrow.current, today.current)
        assert.strictEqual(tomorrow.previous, today.current)
        // Every process computes the same: the secret is the store's.
        assert.deepStrictEqual(yield* Effect.flatMap(Sessions.embeddedCsrf, (again) => again.at(tenant, "ada", noon)), today)
      })))
})
