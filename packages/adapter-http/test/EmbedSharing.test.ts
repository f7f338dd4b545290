/**
 * Embeds as the console makes them (decision 0014, "Embeds in the
 * console"), over real HTTP on the demo as the host seeds it (an embed's
 * viewer sees the rows of their `region` attribute, and nothing without
 * it): the preview (`POST /v1/sharing/embed-previews`) says how many rows
 * each visual would show and warns, with the fix, when row-level security
 * or the locked values leave none; it offers the filters to lock with
 * their values and the attributes the policies read. A locked value the
 * data does not have is refused in words (400 grant/invalid) by the
 * preview and by the embed token alike; embeds are listed with links.
 */
import { problemCode } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { grantsPath, setupDemo } from "./ReportViewerFixture.ts"

const previews = "/v1/sharing/embed-previews"

describe("embeds made in the console", () => {
  it.live("the preview: the warning and its fix, rows once the attribute is given, filters and attributes to choose from; locked values refused in words; embeds listed with links", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setupDemo
      const call = (method: string, path: string, body?: unknown, token = admin) => server.request(method, path, { token, body })
      const onReport = { subject_type: "report", subject_id: reportId }

      // No attribute: row-level security leaves every visual nothing, and the warning says which attribute to add, and where.
      const bare = yield* ok("POST", previews, onReport)
      assert.isAbove(bare.visuals.length, 5)
      assert.isTrue(bare.visuals.every((v: any) => v.state === "hidden" && v.rows === 0), JSON.stringify(bare.visuals))
      assert.deepStrictEqual(bare.warnings.map((w: any) => [w.kind, w.detail]), [[
        "attribute_missing",
        "Row-level security on Sales reads the attribute `region`; add it under Who views it"
      ]])
      // The filters to lock, with the values the maker sees; a date range is no single value.
      assert.deepStrictEqual(bare.filters.map((f: any) => [f.name, f.dimension, f.kind, f.options]), [
        ["region", "region", "choice", ["APAC", "EU", "LATAM", "US"]],
        ["channel", "channel", "choice", ["Direct", "Online", "Partner"]],
        ["period", "ordered_at", "range", []]
      ])
      assert.deepStrictEqual(bare.attributes, [{ name: "region", title: "Region", options: ["APAC", "EU", "LATAM", "US"] }])

      // The attribute given: every visual has rows, and no warning.
      const eu = yield* ok("POST", previews, { ...onReport, attributes: { region: "EU", email: "ana@partner.example" } })
      assert.isTrue(eu.visuals.every((v: any) => v.state === "rows" && v.rows > 0), JSON.stringify(eu.visuals))
      assert.deepStrictEqual(eu.warnings, [])
      const total = eu.visuals.find((v: any) => v.visual_id === "revenue_by_region")
      assert.deepInclude(total, { title: "Revenue by region", page: "Overview", rows: 1 })

      // A locked region other than the viewer's: no rows, and the warning says what to change.
      const apart = yield* ok("POST", previews, { ...onReport, params: { region: "US" }, attributes: { region: "EU" } })
      assert.isTrue(apart.visuals.every((v: any) => v.state === "no_rows"), JSON.stringify(apart.visuals))
      assert.deepStrictEqual(apart.warnings.map((w: any) => w.detail), [
        "Every visual would show no rows with these locked filters and the viewer's attributes; choose other locked values or change the attributes under Who views it"
      ])
      const locked = yield* ok("POST", previews, { ...onReport, params: { region: "EU", channel: "Online" }, attributes: { region: "EU" } })
      assert.deepStrictEqual(locked.warnings, [])

      // Locked values the data does not have: refused in words, naming the values it has; nothing stored.
      const europe = yield* call("POST", previews, { ...onReport, params: { region: "Europe" } })
      assert.strictEqual(europe.status, 400)
      assert.strictEqual(problemCode(europe), "grant/invalid")
      assert.include(europe.body.detail, `params.region: Region has no value "Europe"; its values are APAC, EU, LATAM, US`)
      const lastYear = yield* call("POST", previews, { ...onReport, params: { ordered_at: "last year" } })
      assert.strictEqual(problemCode(lastYear), "grant/invalid")
      assert.include(lastYear.body.detail, "params.ordered_at: Order date is a date")
      const planet = yield* call("POST", previews, { ...onReport, params: { planet: "Mars" } })
      assert.strictEqual(problemCode(planet), "grant/invalid")
      assert.include(planet.body.detail, `params.planet: the shared data has no dimension "planet"`)
      assert.strictEqual(problemCode(yield* call("POST", previews, { ...onReport, subject_id: crypto.randomUUID() })), "resource/not-found")
      assert.strictEqual(problemCode(yield* call("POST", previews, { ...onReport, subject_type: "dashboard" })), "request/invalid")
      assert.deepStrictEqual((yield* ok("GET", grantsPath)).data, [])

      // The embed token refuses them as the preview does, and takes the ones the data has.
      const embed = yield* ok("POST", grantsPath, { ...onReport, principal_type: "embed", actions: ["view"] })
      const tokens = `${grantsPath}/${embed.grant_id}/embed-tokens`
      const refused = yield* call("POST", tokens, { params: { region: "Europe" } })
      assert.strictEqual(refused.status, 400)
      assert.strictEqual(problemCode(refused), "grant/invalid")
      assert.include(refused.body.detail, `Region has no value "Europe"`)
      assert.strictEqual(problemCode(yield* call("POST", tokens, { params: { ordered_at: "last year" } })), "grant/invalid")
      const minted = yield* ok("POST", tokens, { params: { region: "EU" }, attributes: { region: "EU" } })
      const page = yield* server.request("GET", `/embed?token=${minted.token}`, { headers: { accept: "application/json" } })
      assert.strictEqual(page.status, 200, page.text)
      assert.notInclude(page.text, "Nothing here is visible to you")

      // The workspace's links and embeds, one list; an embed revoked there is gone from the active ones.
      const link = yield* ok("POST", grantsPath, { ...onReport, principal_type: "link", actions: ["view"] })
      const listed = (yield* ok("GET", `/v1/workspaces/${workspaceId}/links`)).data
      assert.sameMembers(listed.map((g: any) => g.grant_id), [embed.grant_id, link.grant_id])
      yield* ok("DELETE", `${grantsPath}/${embed.grant_id}`)
      const active = (yield* ok("GET", `/v1/workspaces/${workspaceId}/links?state=active`)).data
      assert.deepStrictEqual(active.map((g: any) => g.grant_id), [link.grant_id])
    }), 120_000)

  it.live("a delegate's preview: only who holds share on the report; their embed shows at most their rows, said as a warning", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setupDemo
      const onReport = { subject_type: "report", subject_id: reportId }
      const person = (email: string) =>
        Effect.gen(function*() {
          const created = yield* ok("POST", "/v1/users", { email, name: email.split("@")[0] })
          const issued = yield* ok("POST", `/v1/users/${created.user_id}/tokens`, {})
          return { id: created.user_id as string, token: issued.token as string }
        })
      const viewer = yield* person("vic@example.com")
      yield* ok("POST", grantsPath, { subject_type: "workspace", subject_id: workspaceId, principal_type: "user", principal_id: viewer.id, actions: ["view"] })
      const refused = yield* server.request("POST", previews, { token: viewer.token, body: onReport })
      assert.strictEqual(problemCode(refused), "auth/forbidden")

      // An EU Lead holding share: an embed for a US viewer shows none of the rows they see.
      const lead = yield* person("lea@example.com")
      const role = yield* ok("POST", "/v1/executive-roles", { name: "EU Lead" })
      yield* ok("POST", `/v1/executive-roles/${role.role_id}/members`, { user_id: lead.id })
      yield* ok("POST", grantsPath, { subject_type: "workspace", subject_id: workspaceId, principal_type: "user", principal_id: lead.id, actions: ["view", "share"] })
      const us = yield* server.request("POST", previews, { token: lead.token, body: { ...onReport, attributes: { region: "US" } } })
      assert.strictEqual(us.status, 200, us.text)
      assert.isTrue(us.body.visuals.every((v: any) => v.rows === 0), JSON.stringify(us.body.visuals))
      assert.lengthOf(us.body.warnings, 1)
      // They lock only to values they see.
      assert.deepStrictEqual(us.body.filters[0].options, ["EU"])
      const locked = yield* server.request("POST", previews, { token: lead.token, body: { ...onReport, params: { region: "US" } } })
      assert.strictEqual(problemCode(locked), "grant/invalid")
      const eu = yield* server.request("POST", previews, { token: lead.token, body: { ...onReport, attributes: { region: "EU" } } })
      assert.isTrue(eu.body.visuals.every((v: any) => v.state === "rows"), JSON.stringify(eu.body.visuals))
      void admin
    }), 120_000)
})
