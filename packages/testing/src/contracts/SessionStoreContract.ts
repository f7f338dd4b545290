/**
 * The session part of the store contract: sessions are found by their
 * cookie's hash, touched, ended one by one, all of a user's, or every
 * lapsed one in batches (undone with a failed transaction); a sign-in link is spent once, even by two
 * concurrent uses, and never after its expiry; active users are found by
 * e-mail across tenants; expired rows are purged. Run by `storeContract`
 * on every adapter.
 *
 * @since 0.1.0
 */
import { DirectoryStore, Ids, type Session, SessionStore, type Tenant, type User } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { inFailedTransaction, insertTenant } from "../Fixtures.ts"

const at = (offset: number) => new Date(2_700_000_000_000 + offset)

/** A random hash-like string, so runs sharing a database never collide. */
const hash = Effect.map(Ids.uuidv7, (id) => `h-${id}`)

const makeUser = (tenantId: Tenant.TenantId, email: string, status: User.UserStatus = "active", offset = 0) =>
  Effect.gen(function*() {
    const user: User.User = {
      user_id: (yield* Ids.uuidv7) as User.UserId,
      tenant_id: tenantId,
      email,
      name: "Ada",
      status,
      roles: ["member"],
      external_id: null,
      user_name: null,
      created_at: at(offset),
      updated_at: at(offset)
    }
    yield* (yield* DirectoryStore.DirectoryStore).insertUser(user)
    return user
  })

const makeSession = (tenantId: Tenant.TenantId, userId: string, overrides: Partial<Session.Session> = {}) =>
  Effect.gen(function*() {
    const session: Session.Session = {
      session_id: yield* Ids.uuidv7,
      tenant_id: tenantId,
      user_id: userId,
      token_hash: yield* hash,
      via: "link",
      api_token_hash: null,
      created_at: at(0),
      last_seen_at: at(0),
      expires_at: at(12 * 3_600_000),
      ended_at: null,
      ...overrides
    }
    yield* (yield* SessionStore.SessionStore).insert(session)
    return session
  })

const makeLink = (tenantId: Tenant.TenantId, userId: string, expiresAt = at(15 * 60_000)) =>
  Effect.gen(function*() {
    const link: Session.SignInLink = {
      link_id: yield* Ids.uuidv7,
      tenant_id: tenantId,
      user_id: userId,
      token_hash: yield* hash,
      created_at: at(0),
      expires_at: expiresAt,
      used_at: null
    }
    yield* (yield* SessionStore.SessionStore).insertLink(link)
    return link
  })

/** Registers the session tests on `it` (inside `storeContract`'s layer). */
export const sessionStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("sessions round-trip by their hash, are touched, and end once", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const other = yield* insertTenant()
      const user = yield* makeUser(tenant.tenant_id, `s-${yield* Ids.uuidv7}@example.com`)
      const session = yield* makeSession(tenant.tenant_id, user.user_id, { via: "api-token", api_token_hash: "abc" })
      assert.deepStrictEqual(yield* store.findByHash(session.token_hash), session)
      assert.strictEqual(yield* store.findByHash("nothing"), undefined)
      yield* store.touch(tenant.tenant_id, session.session_id, at(90_000))
      yield* store.touch(other.tenant_id, session.session_id, at(180_000))
      assert.deepStrictEqual((yield* store.findByHash(session.token_hash))?.last_seen_at, at(90_000))
      assert.isFalse(yield* store.end(other.tenant_id, session.session_id, at(100_000)))
      assert.isTrue(yield* store.end(tenant.tenant_id, session.session_id, at(100_000)))
      assert.isFalse(yield* store.end(tenant.tenant_id, session.session_id, at(200_000)))
      assert.deepStrictEqual((yield* store.findByHash(session.token_hash))?.ended_at, at(100_000))
      assert.isFalse(yield* store.end(tenant.tenant_id, "not-a-uuid", at(100_000)))
    }))

  it.effect("a user's open sessions end together, in their tenant only, and a failed transaction keeps them", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const ada = yield* makeUser(tenant.tenant_id, `a-${yield* Ids.uuidv7}@example.com`)
      const bob = yield* makeUser(tenant.tenant_id, `b-${yield* Ids.uuidv7}@example.com`)
      const first = yield* makeSession(tenant.tenant_id, ada.user_id)
      const second = yield* makeSession(tenant.tenant_id, ada.user_id)
      const ended = yield* makeSession(tenant.tenant_id, ada.user_id, { ended_at: at(5) })
      const bobs = yield* makeSession(tenant.tenant_id, bob.user_id)
      assert.isTrue(yield* inFailedTransaction(store.endForUser(tenant.tenant_id, ada.user_id, at(50))))
      assert.strictEqual((yield* store.findByHash(first.token_hash))?.ended_at, null)
      assert.deepStrictEqual(yield* store.endForUser((yield* insertTenant()).tenant_id, ada.user_id, at(60)), [])
      // The sessions ended, as they were (for their audit entries), in no particular order.
      const endedNow = yield* store.endForUser(tenant.tenant_id, ada.user_id, at(60))
      assert.sameDeepMembers([...endedNow], [first, second])
      assert.deepStrictEqual((yield* store.findByHash(first.token_hash))?.ended_at, at(60))
      assert.deepStrictEqual((yield* store.findByHash(second.token_hash))?.ended_at, at(60))
      assert.deepStrictEqual((yield* store.findByHash(ended.token_hash))?.ended_at, at(5))
      assert.strictEqual((yield* store.findByHash(bobs.token_hash))?.ended_at, null)
    }))

  it.effect("lapsed sessions (idle since a time, or past their expiry) end, at most a batch at a time, across tenants; others stay; a failed transaction keeps them", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const user = yield* makeUser(tenant.tenant_id, `l-${yield* Ids.uuidv7}@example.com`)
      const base = 2_950_000_000_000
      const hour = 3_600_000
      const idle = yield* makeSession(tenant.tenant_id, user.user_id, { last_seen_at: new Date(base), expires_at: new Date(base + 10 * hour) })
      const expired = yield* makeSession(tenant.tenant_id, user.user_id, { last_seen_at: new Date(base + 5 * hour), expires_at: new Date(base + 6 * hour) })
      const live = yield* makeSession(tenant.tenant_id, user.user_id, { last_seen_at: new Date(base + 5 * hour), expires_at: new Date(base + 10 * hour) })
      const ended = yield* makeSession(tenant.tenant_id, user.user_id, { last_seen_at: new Date(base), ended_at: new Date(base + 1) })
      const idleSince = new Date(base + hour)
      const now = new Date(base + 7 * hour)
      assert.isTrue(yield* inFailedTransaction(store.endLapsed(idleSince, now, 100)))
      assert.strictEqual((yield* store.findByHash(idle.token_hash))?.ended_at, null)
      // One at a time (earlier tests' open sessions lapse too): each batch holds at most one.
      const mine: Array<Session.Session> = []
      while (true) {
        const batch = yield* store.endLapsed(idleSince, now, 1)
        assert.isAtMost(batch.length, 1)
        if (batch.length === 0) break
        mine.push(...batch.filter((s) => s.tenant_id === tenant.tenant_id))
      }
      // As they were, for their audit entries.
      assert.sameDeepMembers(mine, [idle, expired])
      assert.deepStrictEqual((yield* store.findByHash(idle.token_hash))?.ended_at, now)
      assert.deepStrictEqual((yield* store.findByHash(expired.token_hash))?.ended_at, now)
      assert.deepStrictEqual(yield* store.findByHash(live.token_hash), live)
      assert.deepStrictEqual((yield* store.findByHash(ended.token_hash))?.ended_at, new Date(base + 1))
    }))

  it.effect("a sign-in link is spent once, not after its expiry, and by one of two concurrent uses", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const user = yield* makeUser(tenant.tenant_id, `l-${yield* Ids.uuidv7}@example.com`)
      const link = yield* makeLink(tenant.tenant_id, user.user_id)
      assert.deepStrictEqual(yield* store.useLink(link.token_hash, at(60_000)), { ...link, used_at: at(60_000) })
      assert.strictEqual(yield* store.useLink(link.token_hash, at(61_000)), undefined)
      assert.strictEqual(yield* store.useLink("nothing", at(61_000)), undefined)
      const expired = yield* makeLink(tenant.tenant_id, user.user_id)
      assert.strictEqual(yield* store.useLink(expired.token_hash, expired.expires_at), undefined)
      for (let round = 0; round < 5; round++) {
        const raced = yield* makeLink(tenant.tenant_id, user.user_id)
        const uses = yield* Effect.all([store.useLink(raced.token_hash, at(1_000)), store.useLink(raced.token_hash, at(1_001))], {
          concurrency: "unbounded"
        })
        assert.strictEqual(uses.filter((use) => use !== undefined).length, 1)
      }
    }))

  it.effect("a user's unused sign-in links are spent together, no one else's", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const user = yield* makeUser(tenant.tenant_id, `s-${yield* Ids.uuidv7}@example.com`)
      const other = yield* makeUser(tenant.tenant_id, `s-${yield* Ids.uuidv7}@example.com`)
      const first = yield* makeLink(tenant.tenant_id, user.user_id)
      const second = yield* makeLink(tenant.tenant_id, user.user_id)
      const used = yield* makeLink(tenant.tenant_id, user.user_id)
      yield* store.useLink(used.token_hash, at(1_000))
      const theirs = yield* makeLink(tenant.tenant_id, other.user_id)
      assert.strictEqual(yield* store.spendLinksOf(tenant.tenant_id, user.user_id, at(2_000)), 2)
      assert.strictEqual(yield* store.useLink(first.token_hash, at(3_000)), undefined)
      assert.strictEqual(yield* store.useLink(second.token_hash, at(3_000)), undefined)
      assert.isDefined(yield* store.useLink(theirs.token_hash, at(3_000)))
      assert.strictEqual(yield* store.spendLinksOf(tenant.tenant_id, user.user_id, at(4_000)), 0)
      assert.strictEqual(yield* store.spendLinksOf(tenant.tenant_id, "not-a-uuid", at(4_000)), 0)
    }))

  it.effect("active users are found by e-mail in every tenant, oldest first", () =>
    Effect.gen(function*() {
      const directory = yield* DirectoryStore.DirectoryStore
      const email = `x-${yield* Ids.uuidv7}@example.com`
      const first = yield* makeUser((yield* insertTenant()).tenant_id, email, "active", 1)
      const second = yield* makeUser((yield* insertTenant()).tenant_id, email, "active", 2)
      yield* makeUser((yield* insertTenant()).tenant_id, email, "deprovisioned", 3)
      yield* makeUser(first.tenant_id, `other-${email}`)
      const found = yield* directory.findActiveUsersByEmail(email)
      assert.deepStrictEqual(found, [first, second])
      assert.deepStrictEqual(yield* directory.findActiveUsersByEmail(`nobody-${email}`), [])
    }))

  it.effect("expired and ended sessions and expired links are purged; live ones stay", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const tenant = yield* insertTenant()
      const user = yield* makeUser(tenant.tenant_id, `p-${yield* Ids.uuidv7}@example.com`)
      const base = 3_000_000_000_000
      const old = yield* makeSession(tenant.tenant_id, user.user_id, { expires_at: new Date(base - 1) })
      const ended = yield* makeSession(tenant.tenant_id, user.user_id, {
        expires_at: new Date(base + 10_000),
        ended_at: new Date(base - 1)
      })
      const live = yield* makeSession(tenant.tenant_id, user.user_id, { expires_at: new Date(base + 10_000) })
      const oldLink = yield* makeLink(tenant.tenant_id, user.user_id, new Date(base - 1))
      const liveLink = yield* makeLink(tenant.tenant_id, user.user_id, new Date(base + 10_000))
      assert.isAtLeast(yield* store.purgeExpired(new Date(base)), 3)
      assert.strictEqual(yield* store.findByHash(old.token_hash), undefined)
      assert.strictEqual(yield* store.findByHash(ended.token_hash), undefined)
      assert.deepStrictEqual(yield* store.findByHash(live.token_hash), live)
      assert.strictEqual(yield* store.useLink(oldLink.token_hash, new Date(0)), undefined)
      assert.isDefined(yield* store.useLink(liveLink.token_hash, new Date(base)))
    }))
}
