/**
 * Delegates never hand out, unlock or keep more than they hold (decisions
 * 0014 and 0018), over a real socket on memory, PGlite and PostgreSQL. A
 * delegate is a member holding `share` on the report (given by an admin),
 * in the executive role "EU Lead", which sees the EU's rows only:
 *
 * - they invite nobody into the tenant, and a grant never renews an
 *   admin's pending invitation;
 * - their links and embeds show at most their own rows, whatever an embed
 *   token's attributes say, re-read at each request;
 * - what they gave (a grant, a link) ends with what they hold;
 * - they manage only the grants they made;
 * - their schedules stop mailing once they lose `download`;
 * - a signed result URL stops when its requester's grant is revoked, when
 *   they are deprovisioned, and when the link that exported it is revoked.
 */
import { ExportSchedules } from "@analytics/core"
import { assert, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"
import { grantsPath, passwordLink, setupWith } from "./SharingFixture.ts"

const json = { accept: "application/json" }

/** Each region's total of the fixture's 90 orders. */
const totalOf = (region: string) =>
  Array.from({ length: 90 }, (_, i) => i + 1).filter((n) => ExportFixture.regions[(n - 1) % 3] === region).reduce((a, b) => a + b, 0)

/** The regions a view's `by_region` visual shows (none when the viewer may see no row of it). */
const regionsOf = (view: any): Array<string> => {
  const visual = view.pages[0].visuals.find((v: any) => v.id === "by_region")
  return visual.state === "hidden" ? [] : visual.rows.map((row: any) => row.region)
}

/** Leads see their region; links (made by admins) every row; an embed the region its token names. */
const rowLevelSecurity = [
  { roles: ["admin", "link"], all_rows: true },
  { roles: ["EU Lead"], filter: { member: "region", operator: "equals", values: ["EU"] } },
  { roles: ["embed"], filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
]

onEveryStore("delegation", (stores) => {
  /** The sales overview, and Mia: a member in "EU Lead" holding view, download and share on the report. */
  const setup = Effect.gen(function*() {
    const fixture = yield* setupWith({ stores: stores(), rowLevelSecurity })
    const { ok, reportId, user } = fixture
    const mia = yield* user("mia@example.com")
    const lead = yield* ok("POST", "/v1/executive-roles", { name: "EU Lead" })
    yield* ok("POST", `/v1/executive-roles/${lead.role_id}/members`, { user_id: mia.id })
    const miaGrant = yield* ok("POST", grantsPath, {
      subject_type: "report",
      subject_id: reportId,
      principal_type: "user",
      principal_id: mia.id,
      actions: ["view", "download", "share"]
    })
    /** The admin changes what Mia holds. */
    const miaHolds = (actions: ReadonlyArray<string>) => ok("PATCH", `${grantsPath}/${miaGrant.grant_id}`, { actions })
    return { ...fixture, mia, lead, miaGrant, miaHolds }
  })

  it.live("a delegate invites nobody; an admin's grant to an invited address keeps the invitation's link working", () =>
    Effect.gen(function*() {
      const { call, mia, ok, reportId, server, smtp } = yield* setup
      const onReport = { subject_type: "report", subject_id: reportId, principal_type: "user", actions: ["view"] }
      const refused = yield* call("POST", grantsPath, mia.token, { ...onReport, email: "outsider@example.org" })
      assert.strictEqual(refused.status, 403, refused.text)
      assert.strictEqual(problemCode(refused), "auth/forbidden")
      assert.include(refused.body.detail, "only a tenant admin can invite")
      assert.deepStrictEqual((yield* ok("GET", "/v1/invitations")).data, [], "no invitation was made")
      assert.isFalse(smtp.received.some((m) => m.to.includes("outsider@example.org")), "nothing was mailed")

      // An admin's invitation, then a grant to the same address: the grant joins it, and its link still works.
      const invitation = yield* ok("POST", "/v1/invitations", { email: "carol@example.com" })
      const mailed = smtp.received.find((m) => m.to.includes("carol@example.com"))!
      const token = decodeURIComponent(/token=([A-Za-z0-9_%-]+)/.exec(mailed.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "="))![1]!)
      const granted = yield* ok("POST", grantsPath, { ...onReport, email: "carol@example.com" })
      assert.strictEqual(granted.invitation_id, invitation.invitation_id)
      // Mia cannot attach to it either: the address is no user yet.
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, mia.token, { ...onReport, email: "carol@example.com" })), "auth/forbidden")
      const accepted = yield* server.request("POST", "/v1/invitations/accept", { body: { token } })
      assert.strictEqual(accepted.status, 201, accepted.text)
      assert.strictEqual((yield* ok("GET", `${grantsPath}/${granted.grant_id}`)).principal_id, accepted.body.user.user_id)
    }))

  it.live("a delegate's links and embeds show at most the delegate's rows, re-read at each request; what they gave ends with what they hold", () =>
    Effect.gen(function*() {
      const { call, lead, mia, miaHolds, ok, reportId, server, user } = yield* setup
      const onReport = { subject_type: "report", subject_id: reportId }
      const view = (path: string) => server.request("GET", path, { headers: json })
      const adminLink = new URL((yield* ok("POST", grantsPath, { ...onReport, principal_type: "link", actions: ["view"] })).link_url).pathname
      assert.deepStrictEqual(regionsOf((yield* view(adminLink)).body), ["APAC", "EU", "US"])

      const miaLink = yield* call("POST", grantsPath, mia.token, { ...onReport, principal_type: "link", actions: ["view"] })
      assert.strictEqual(miaLink.status, 201, miaLink.text)
      const linkPath = new URL(miaLink.body.link_url).pathname
      const seen = yield* view(linkPath)
      assert.strictEqual(seen.status, 200, seen.text)
      assert.deepStrictEqual(regionsOf(seen.body), ["EU"])
      assert.strictEqual(seen.body.pages[0].visuals.find((v: any) => v.id === "total").rows[0].total_amount, totalOf("EU"))

      // An embed's token names the viewer's attributes; a delegate's embed still shows no more than the delegate sees.
      const embed = yield* call("POST", grantsPath, mia.token, { ...onReport, principal_type: "embed", actions: ["view"] })
      assert.strictEqual(embed.status, 201, embed.text)
      const embedView = (region: string) =>
        Effect.gen(function*() {
          const minted = yield* call("POST", `${grantsPath}/${embed.body.grant_id}/embed-tokens`, mia.token, { attributes: { region } })
          assert.strictEqual(minted.status, 201, minted.text)
          return yield* view(`/embed?token=${encodeURIComponent(minted.body.token)}`)
        })
      assert.deepStrictEqual(regionsOf((yield* embedView("US")).body), [], "US rows are not Mia's to hand out")
      assert.deepStrictEqual(regionsOf((yield* embedView("EU")).body), ["EU"])

      // Re-read at each request: out of her role, her link shows nothing; back in, EU again.
      yield* ok("DELETE", `/v1/executive-roles/${lead.role_id}/members/${mia.id}`)
      assert.deepStrictEqual(regionsOf((yield* view(linkPath)).body), [])
      yield* ok("POST", `/v1/executive-roles/${lead.role_id}/members`, { user_id: mia.id })
      assert.deepStrictEqual(regionsOf((yield* view(linkPath)).body), ["EU"])

      // What she gave ends with what she holds: a grant to Bob and her link, once she no longer holds share.
      const bob = yield* user("bob@example.com")
      const toBob = yield* call("POST", grantsPath, mia.token, { ...onReport, principal_type: "user", principal_id: bob.id, actions: ["view"] })
      assert.strictEqual(toBob.status, 201, toBob.text)
      const bobViews = () => call("GET", `/v1/reports/${reportId}/view`, bob.token)
      assert.strictEqual((yield* bobViews()).status, 200)
      yield* miaHolds(["view", "download"])
      assert.strictEqual(problemCode(yield* bobViews()), "auth/forbidden")
      assert.strictEqual(problemCode(yield* view(linkPath)), "share/revoked")
      // Nor can she hand it out again.
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${embed.body.grant_id}/embed-tokens`, mia.token, {})), "auth/forbidden")
      // She may still pause her link (that only takes away), not resume it.
      assert.strictEqual((yield* call("POST", `${grantsPath}/${miaLink.body.grant_id}/pause`, mia.token)).status, 200)
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${miaLink.body.grant_id}/resume`, mia.token)), "auth/forbidden")
      yield* miaHolds(["view", "download", "share"])
      assert.strictEqual((yield* bobViews()).status, 200)
      assert.strictEqual((yield* call("POST", `${grantsPath}/${miaLink.body.grant_id}/resume`, mia.token)).status, 200)
      assert.deepStrictEqual(regionsOf((yield* view(linkPath)).body), ["EU"])
      // The admin's link was never hers: it shows every row throughout.
      assert.deepStrictEqual(regionsOf((yield* view(adminLink)).body), ["APAC", "EU", "US"])
    }))

  it.live("a delegate manages only the grants they made, and what they hold watermarked they give watermarked", () =>
    Effect.gen(function*() {
      const { call, mia, miaGrant, ok, reportId, user } = yield* setup
      const onReport = { subject_type: "report", subject_id: reportId }
      const adminLink = yield* ok("POST", grantsPath, { ...passwordLink(reportId), actions: ["view", "download"] })
      const adminEmbed = yield* ok("POST", grantsPath, { ...onReport, principal_type: "embed", actions: ["view", "download"] })
      for (const [method, path, body] of [
        ["GET", `${grantsPath}/${adminLink.grant_id}`, undefined],
        ["PATCH", `${grantsPath}/${adminLink.grant_id}`, { password: null, watermark: false }],
        ["POST", `${grantsPath}/${adminLink.grant_id}/pause`, undefined],
        ["DELETE", `${grantsPath}/${adminLink.grant_id}`, undefined],
        ["DELETE", `${grantsPath}/${miaGrant.grant_id}`, undefined],
        ["POST", `${grantsPath}/${adminEmbed.grant_id}/embed-tokens`, {}]
      ] as const) {
        assert.strictEqual(problemCode(yield* call(method, path, mia.token, body)), "resource/not-found", `${method} ${path}`)
      }
      assert.deepInclude(yield* ok("GET", `${grantsPath}/${adminLink.grant_id}`), { state: "active", watermark: true, password_protected: true, paused: false })
      assert.strictEqual((yield* ok("GET", `${grantsPath}/${miaGrant.grant_id}`)).state, "active")

      // Her own link she manages: change, pause, resume, revoke.
      const own = (yield* call("POST", grantsPath, mia.token, { ...onReport, principal_type: "link", actions: ["view"] })).body
      for (const [method, path, body] of [
        ["PATCH", `${grantsPath}/${own.grant_id}`, { actions: ["view", "download"] }],
        ["POST", `${grantsPath}/${own.grant_id}/pause`, undefined],
        ["POST", `${grantsPath}/${own.grant_id}/resume`, undefined],
        ["DELETE", `${grantsPath}/${own.grant_id}`, undefined]
      ] as const) {
        const answer = yield* call(method, path, mia.token, body)
        assert.strictEqual(answer.status, 200, `${method} ${path}: ${answer.text}`)
      }

      // Wes holds the report watermarked: what he shares is watermarked too, and stays so.
      const wes = yield* user("wes@example.com")
      yield* ok("POST", grantsPath, { ...onReport, principal_type: "user", principal_id: wes.id, actions: ["view", "share"], watermark: true })
      const wesLink = yield* call("POST", grantsPath, wes.token, { ...onReport, principal_type: "link", actions: ["view"], watermark: false })
      assert.strictEqual(wesLink.status, 201, wesLink.text)
      assert.isTrue(wesLink.body.watermark)
      assert.isTrue((yield* call("PATCH", `${grantsPath}/${wesLink.body.grant_id}`, wes.token, { watermark: false })).body.watermark)
    }))

  it.live("a delegate's schedule stops mailing, by send-now and on its cron, once they lose download", () =>
    Effect.gen(function*() {
      const { call, mia, miaHolds, reportId, server } = yield* setup
      const created = yield* call("POST", "/v1/export-schedules", mia.token, {
        report_id: reportId,
        name: "Weekly to a partner",
        cron: "* * * * *",
        format: "csv",
        visual_id: "by_region",
        recipients: ["partner@example.org"],
        run_as: mia.id
      })
      assert.strictEqual(created.status, 201, created.text)
      const sendNow = () => call("POST", `/v1/export-schedules/${created.body.schedule_id}/send-now`, mia.token)
      const sent = yield* sendNow()
      assert.strictEqual(sent.status, 202, sent.text)
      assert.isString(sent.body.deliveries[0].job_id)

      yield* miaHolds(["view", "share"])
      const skipped = yield* sendNow()
      assert.strictEqual(skipped.status, 202, skipped.text)
      assert.deepStrictEqual(skipped.body.deliveries, [{ recipient: "partner@example.org", skipped: "The schedule's maker no longer holds download on this report" }])
      // On its cron: the scheduler's next tick (two minutes on) queues nothing either.
      const live = yield* Clock.Clock
      const later = ExportFixture.shifted(live, 120_000)
      assert.strictEqual(yield* ExportSchedules.runDue.pipe(Effect.provideContext(server.stores), Effect.provideService(Clock.Clock, later)), 1)
      const run = (yield* call("GET", `/v1/export-schedules/${created.body.schedule_id}`, mia.token)).body.last_run
      assert.deepInclude(run, { trigger: "schedule" })
      assert.deepStrictEqual(run.deliveries, [{ recipient: "partner@example.org", skipped: "The schedule's maker no longer holds download on this report" }])
    }))

  it.live("a signed result URL stops when its requester's grant is revoked, when they are deprovisioned, and when the exporting link is revoked", () =>
    Effect.gen(function*() {
      const { call, local, mia, miaGrant, ok, reportId, server, worker } = yield* setup
      const exported = () =>
        Effect.gen(function*() {
          const job = yield* call("POST", `/v1/reports/${reportId}/export`, mia.token, { format: "csv", visual_id: "by_region" })
          assert.strictEqual(job.status, 202, job.text)
          assert.strictEqual(yield* worker, 1)
          const result = yield* call("GET", `/v1/jobs/${job.body.job_id}/result`, mia.token)
          assert.strictEqual(result.status, 200, result.text)
          return local(result.body.url)
        })
      const file = (path: string) => server.request("GET", path)
      const first = yield* exported()
      assert.strictEqual((yield* file(first)).status, 200)
      assert.include((yield* file(first)).text, "EU")
      yield* ok("DELETE", `${grantsPath}/${miaGrant.grant_id}`)
      assert.strictEqual(problemCode(yield* file(first)), "auth/forbidden")

      yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: mia.id, actions: ["view", "download"] })
      const second = yield* exported()
      assert.strictEqual((yield* file(second)).status, 200)
      yield* ok("PATCH", `/v1/users/${mia.id}`, { status: "deprovisioned" })
      assert.strictEqual(problemCode(yield* file(second)), "auth/forbidden")

      // A link's visitor's file: stopped with the link.
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const path = new URL(link.link_url).pathname
      const queued = yield* server.request("POST", `${path}/export`, { body: { format: "csv", visual_id: "by_region" }, headers: json })
      assert.strictEqual(queued.status, 202, queued.text)
      assert.strictEqual(yield* worker, 1)
      const done = yield* server.request("GET", `${path}/jobs/${queued.body.job_id}`, { headers: json })
      const linkFile = local(done.body.url)
      assert.strictEqual((yield* file(linkFile)).status, 200)
      yield* ok("DELETE", `${grantsPath}/${link.grant_id}`)
      assert.strictEqual(problemCode(yield* file(linkFile)), "auth/forbidden")
    }))
})
