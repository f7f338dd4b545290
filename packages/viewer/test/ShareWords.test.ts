/**
 * The share dialog's and links screen's words for grants, without a
 * browser: states (a paused link is "Paused" while active), audiences,
 * actions, makers (you, an API token, the tenant's first admin token, a
 * name learnt from the directory), expiry, the order of the Manage list
 * and the end-of-day expiry the date field stands for; a label as a row's
 * title, and when a link was last opened (nothing from a service that does
 * not say).
 */
import { assert, describe, it } from "@effect/vitest"
import { setSession } from "../src/client/Session.ts"
import { activeFirst, actionsWords, dayOf, endOfDay, expiryWords, type Grant, learnNames, makerWords, openedWords, stateWords, titleWords, whoWords } from "../src/elements/Grants.ts"
import type { ApiClient } from "../src/client/ApiClient.ts"

const grant = (over: Partial<Grant> = {}): Grant => ({
  grant_id: "g1",
  workspace_id: "w1",
  subject_type: "report",
  subject_id: "r1",
  principal_type: "link",
  principal_id: null,
  email: null,
  invitation_id: null,
  actions: ["view"],
  watermark: false,
  expires_at: null,
  state: "active",
  revoked_at: null,
  paused: false,
  password_protected: false,
  link_url: "https://example.com/s/abc",
  label: null,
  last_opened_at: null,
  open_count: 0,
  created_by: { type: "user", id: "usr_1" },
  created_at: "2026-11-26T10:00:00Z",
  updated_at: "2026-11-26T10:00:00Z",
  ...over
})

/** A grant as an older service answers it, without a label or openings (which the contract now always has). */
const older = (over: Partial<Grant> = {}): Grant => {
  const { label: _label, last_opened_at: _opened, open_count: _count, ...rest } = grant(over)
  return rest as Grant
}

describe("grants in words", () => {
  it("titles a row by its label when it has one; says when a link or an embed was last opened, and nothing when the service does not", () => {
    assert.strictEqual(titleWords(grant({ label: "Board pack" })), "Board pack")
    assert.strictEqual(titleWords(grant({ label: null })), "Anyone with the link")
    assert.strictEqual(titleWords(older()), "Anyone with the link", "an older service sends no label")
    const now = Date.parse("2026-12-03T12:00:00Z")
    assert.strictEqual(openedWords(older(), now), "", "an older service sends no openings")
    assert.strictEqual(openedWords(grant({ open_count: 0, last_opened_at: null }), now), "Never opened")
    assert.strictEqual(openedWords(grant({ open_count: 1, last_opened_at: "2026-12-03T11:59:00Z" }), now), "Last opened 1 minute ago · opened 1 time")
    assert.strictEqual(openedWords(grant({ open_count: 12, last_opened_at: "2026-11-30T12:00:00Z" }), now), "Last opened 3 days ago · opened 12 times")
    assert.strictEqual(openedWords(grant({ principal_type: "embed", open_count: 2, last_opened_at: "2026-12-03T10:00:00Z" }), now), "Last opened 2 hours ago · opened 2 times")
    assert.strictEqual(openedWords(grant({ principal_type: "user", principal_id: "usr_2", link_url: null, open_count: 4, last_opened_at: "2026-12-01T10:00:00Z" }), now), "", "people's grants: not told")
    assert.strictEqual(makerWords(grant({ created_by: { type: "grant", id: "grt_1" } })), "a shared link")
  })

  it("names states, a paused link included, and the actions as the API names them", () => {
    assert.strictEqual(stateWords(grant()), "Active")
    assert.strictEqual(stateWords(grant({ paused: true })), "Paused")
    assert.strictEqual(stateWords(grant({ paused: true, state: "revoked" })), "Revoked", "a revoked link is revoked, paused or not")
    assert.strictEqual(stateWords(grant({ state: "expired" })), "Expired")
    assert.strictEqual(actionsWords(grant({ actions: ["view", "download", "comment"] })), "View, Download, Comment")
  })

  it("names audiences and makers; learns names from the directory, keeping ids it may not read", async () => {
    setSession({
      user: { user_id: "usr_me", email: "me@example.com", display_name: "Me", roles: ["admin"] },
      tenant: { tenant_id: "t1", name: "Acme" },
      via: "link",
      csrf_token: "c",
      idle_expires_at: null,
      expires_at: null
    })
    assert.strictEqual(whoWords(grant()), "Anyone with the link")
    assert.strictEqual(whoWords(grant({ email: "board@example.com" })), "Anyone with the link (for board@example.com)")
    assert.strictEqual(whoWords(grant({ principal_type: "embed" })), "An embed")
    assert.strictEqual(whoWords(grant({ principal_type: "user", email: "new@example.com" })), "new@example.com (invited)")
    assert.strictEqual(makerWords(grant({ created_by: { type: "user", id: "usr_me" } })), "you")
    assert.strictEqual(makerWords(grant({ created_by: { type: "api_token", id: "tok" } })), "an API token")
    assert.strictEqual(makerWords(grant({ created_by: { type: "user", id: "admin@t1" } })), "the tenant's first admin token")
    const asked: Array<string> = []
    const client = {
      get: async (path: string) => {
        asked.push(path)
        if (path === "v1/users/usr_2") return { name: "Bea Brown", email: "bea@example.com" }
        throw new Error("403")
      }
    } as unknown as ApiClient
    let changed = 0
    const grants = [grant({ principal_type: "user", principal_id: "usr_2", created_by: { type: "user", id: "usr_3" } }), grant({ principal_type: "team", principal_id: "team_1" })]
    await learnNames(client, grants, () => changed++)
    assert.deepStrictEqual(asked.sort(), ["v1/teams/team_1", "v1/users/usr_1", "v1/users/usr_2", "v1/users/usr_3"])
    assert.strictEqual(changed, 1)
    assert.strictEqual(whoWords(grants[0]!), "Bea Brown (bea@example.com)")
    assert.strictEqual(whoWords(grants[1]!), "team_1", "not readable: the id stands")
    assert.strictEqual(makerWords(grants[0]!), "usr_3")
    setSession(null)
  })

  it("puts active grants first; an expiry is the end of the chosen day and reads back as that day", () => {
    const order = activeFirst([grant({ grant_id: "a", state: "revoked" }), grant({ grant_id: "b" }), grant({ grant_id: "c", state: "expired" }), grant({ grant_id: "d", paused: true })])
    assert.deepStrictEqual(order.map((g) => g.grant_id), ["b", "d", "a", "c"])
    const iso = endOfDay("2099-12-31")
    assert.strictEqual(dayOf(iso), "2099-12-31")
    assert.isAbove(new Date(iso).getTime(), new Date(endOfDay("2099-12-30")).getTime() + 86_399_000)
    assert.strictEqual(expiryWords(null), "No expiry")
    assert.match(expiryWords(iso), /^Expires .*2099/)
  })
})
