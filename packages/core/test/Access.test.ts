import { Access, type Grant, type Tenant } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const now = new Date("2026-11-22T12:00:00.000Z")
const before = new Date(now.getTime() - 1)
const later = new Date(now.getTime() + 60_000)

const report = { type: "report", id: "r-1", within: [{ type: "workspace", id: "w-1" }] } as const

let n = 0
const grant = (overrides: Partial<Grant.Grant>): Grant.Grant => ({
  grant_id: `g-${++n}`,
  tenant_id: "t" as Tenant.TenantId,
  subject_type: "report",
  subject_id: "r-1",
  principal_type: "user",
  principal_id: "u-1",
  actions: ["view"],
  watermark: false,
  expires_at: null,
  revoked_at: null,
  ...overrides
})

const ada = (overrides: Partial<Extract<Access.Audience, { _tag: "User" }>> = {}): Access.Audience => ({
  _tag: "User",
  userId: "u-1",
  status: "active",
  teams: ["team-finance"],
  roles: ["role-cfo"],
  ...overrides
})

const outcome = (decision: Access.Decision) => (decision._tag === "Allow" ? `allow ${decision.grant.grant_id}` : `deny ${decision.reason}`)

describe("Access.decide", () => {
  const table: ReadonlyArray<{
    readonly name: string
    readonly audience: Access.Audience
    readonly grants: ReadonlyArray<Grant.Grant>
    readonly action?: Grant.Action
    readonly expect: string
  }> = [
    { name: "a direct user grant", audience: ada(), grants: [grant({ grant_id: "g-user" })], expect: "allow g-user" },
    { name: "no grant at all", audience: ada(), grants: [], expect: "deny no-grant" },
    { name: "another user's grant", audience: ada(), grants: [grant({ principal_id: "u-2" })], expect: "deny no-grant" },
    { name: "a grant on another report", audience: ada(), grants: [grant({ subject_id: "r-2" })], expect: "deny no-grant" },
    { name: "a grant on the report's workspace", audience: ada(), grants: [grant({ grant_id: "g-ws", subject_type: "workspace", subject_id: "w-1" })], expect: "allow g-ws" },
    { name: "a grant on another workspace", audience: ada(), grants: [grant({ subject_type: "workspace", subject_id: "w-2" })], expect: "deny no-grant" },
    { name: "a team grant, while a member", audience: ada(), grants: [grant({ grant_id: "g-team", principal_type: "team", principal_id: "team-finance" })], expect: "allow g-team" },
    { name: "a team grant, after leaving the team", audience: ada({ teams: [] }), grants: [grant({ principal_type: "team", principal_id: "team-finance" })], expect: "deny no-grant" },
    { name: "a role grant, while holding the role", audience: ada(), grants: [grant({ grant_id: "g-role", principal_type: "executive_role", principal_id: "role-cfo" })], expect: "allow g-role" },
    { name: "a role grant, after the role moved to someone else", audience: ada({ roles: [] }), grants: [grant({ principal_type: "executive_role", principal_id: "role-cfo" })], expect: "deny no-grant" },
    { name: "a grant for view, asked for download", audience: ada(), grants: [grant({})], action: "download", expect: "deny action-not-granted" },
    { name: "an expired grant (expires_at is exclusive)", audience: ada(), grants: [grant({ expires_at: now })], expect: "deny expired" },
    { name: "a grant expiring later", audience: ada(), grants: [grant({ grant_id: "g-later", expires_at: later })], expect: "allow g-later" },
    { name: "a revoked grant", audience: ada(), grants: [grant({ revoked_at: before })], expect: "deny revoked" },
    { name: "expired and revoked: expired is said", audience: ada(), grants: [grant({ revoked_at: before }), grant({ expires_at: before })], expect: "deny expired" },
    { name: "an expired grant beside a live one", audience: ada(), grants: [grant({ expires_at: before }), grant({ grant_id: "g-live" })], expect: "allow g-live" },
    { name: "a deprovisioned user, whatever the grants", audience: ada({ status: "deprovisioned" }), grants: [grant({})], expect: "deny deprovisioned" },
    { name: "a link reaches its own grant only", audience: { _tag: "Link", grantId: "g-link" }, grants: [grant({ grant_id: "g-link", principal_type: "link", principal_id: null }), grant({})], expect: "allow g-link" },
    { name: "a link does not reach another link's grant", audience: { _tag: "Link", grantId: "g-other" }, grants: [grant({ grant_id: "g-link", principal_type: "link", principal_id: null })], expect: "deny no-grant" },
    { name: "an embed does not use a link grant with its id", audience: { _tag: "Embed", grantId: "g-link2" }, grants: [grant({ grant_id: "g-link2", principal_type: "link", principal_id: null })], expect: "deny no-grant" },
    { name: "a user does not use a team grant naming their user id", audience: ada(), grants: [grant({ principal_type: "team", principal_id: "u-1" })], expect: "deny no-grant" }
  ]
  for (const row of table) {
    it(row.name, () => {
      assert.strictEqual(outcome(Access.decide(row.audience, report, row.action ?? "view", row.grants, now)), row.expect)
    })
  }

  it("of several allowing grants, one without a watermark wins", () => {
    const decision = Access.decide(ada(), report, "view", [
      grant({ grant_id: "g-marked", watermark: true }),
      grant({ grant_id: "g-clear", principal_type: "team", principal_id: "team-finance" })
    ], now)
    assert.deepStrictEqual([outcome(decision), decision._tag === "Allow" && decision.watermark], ["allow g-clear", false])
    const marked = Access.decide(ada(), report, "view", [grant({ grant_id: "g-marked", watermark: true })], now)
    assert.isTrue(marked._tag === "Allow" && marked.watermark)
  })

  it("never allows what no live grant reaching the audience lists (property)", () => {
    const arbitraryGrant = fc.record({
      principal_type: fc.constantFrom("user", "team", "executive_role", "link", "embed" as const),
      principal_id: fc.constantFrom("u-1", "u-2", "team-finance", "role-cfo", null),
      actions: fc.subarray(["view", "download", "comment", "edit", "share"] as const),
      expires_at: fc.constantFrom(null, before, now, later),
      revoked_at: fc.constantFrom(null, before, later),
      subject_id: fc.constantFrom("r-1", "r-2")
    }).map((g) => grant(g))
    fc.assert(fc.property(fc.array(arbitraryGrant, { maxLength: 6 }), fc.constantFrom("view", "download", "share" as const), (grants, action) => {
      const decision = Access.decide(ada(), report, action, grants, now)
      if (decision._tag === "Allow") {
        const g = decision.grant
        return g.actions.includes(action) && (g.expires_at === null || g.expires_at > now) &&
          (g.revoked_at === null || g.revoked_at > now) && g.subject_id === "r-1" &&
          ((g.principal_type === "user" && g.principal_id === "u-1") ||
            (g.principal_type === "team" && g.principal_id === "team-finance") ||
            (g.principal_type === "executive_role" && g.principal_id === "role-cfo"))
      }
      return true
    }))
  })
})
