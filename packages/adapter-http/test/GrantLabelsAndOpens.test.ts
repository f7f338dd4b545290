/**
 * A grant's label and its opens (decision 0014, "Labels and opens"), over
 * real HTTP on memory, PGlite and PostgreSQL: a label is set on create
 * (trimmed), changed and cleared, and bad ones are refused (400, pointing
 * at `label`, nothing changed), its changes in the `grant.updated` entry.
 * A link counts each load of its page, a password link the page its
 * unlocking leads to, an embed each load of its page with a valid token;
 * the JSON the page reads, a refused visit (a token that is none, a
 * paused or revoked link, a bad embed token) and other audiences count
 * nothing. A store that fails to count an open fails no page.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { Errors, GrantStore } from "@analytics/core"
import { problemCode } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const grantsPath = "/v1/sharing/grants"
const html = { accept: "text/html" }
const json = { accept: "application/json" }

onEveryStore("grant labels and opens", (stores) => {
  it.live("a label is set on create, changed, cleared, and refused when bad, nothing changed; the audit entry carries it", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server } = yield* ExportFixture.setup({ stores: stores(), rowLevelSecurity: [{ roles: ["admin", "link", "embed"], all_rows: true }] })
      const onReport = { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] }
      const created = yield* ok("POST", grantsPath, { ...onReport, label: "  Newsletter March  " })
      assert.deepInclude(created, { label: "Newsletter March", open_count: 0, last_opened_at: null })
      const unlabelled = yield* ok("POST", grantsPath, onReport)
      assert.strictEqual(unlabelled.label, null)
      const path = `${grantsPath}/${created.grant_id}`

      // 100 code points is the most (emoji are one each, two UTF-16 units).
      const longest = "\u{1F600}".repeat(100)
      assert.strictEqual((yield* ok("PATCH", path, { label: longest })).label, longest)
      const changed = yield* ok("PATCH", path, { label: "Customer portal" })
      assert.strictEqual(changed.label, "Customer portal")
      assert.strictEqual((yield* ok("GET", path)).label, "Customer portal")

      // Bad labels: 400 problem+json naming `label`, the grant as it was, no grant made.
      const refusedOnCreate = (yield* ok("GET", `${grantsPath}?limit=100`)).data.length
      for (const label of ["", "   ", "a".repeat(101), "\u{1F600}".repeat(101), "line\nbreak", "tab\there", "bell\u0007", 42]) {
        for (const [method, target, body] of [["PATCH", path, { label }], ["POST", grantsPath, { ...onReport, label }]] as const) {
          const refused = yield* server.request(method, target, { token: admin, body })
          assert.strictEqual(refused.status, 400, `${method} ${JSON.stringify(label)}: ${refused.text}`)
          assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
          assert.strictEqual(problemCode(refused), "request/invalid")
          assert.isTrue(
            (refused.body.errors as ReadonlyArray<{ path: ReadonlyArray<string> }>).some((e) => e.path.join("/") === "payload/label"),
            `${method} ${JSON.stringify(label)}: ${refused.text}`
          )
        }
      }
      assert.strictEqual((yield* ok("GET", path)).label, "Customer portal")
      assert.strictEqual((yield* ok("GET", `${grantsPath}?limit=100`)).data.length, refusedOnCreate)

      // Left out, the label stays; null clears it.
      assert.strictEqual((yield* ok("PATCH", path, { actions: ["view", "download"] })).label, "Customer portal")
      const cleared = yield* ok("PATCH", path, { label: null })
      assert.strictEqual(cleared.label, null)
      assert.strictEqual((yield* ok("GET", path)).label, null)

      // The audit log: each entry carries the label as it became; the webhook contract's event does not.
      const log = (yield* ok("GET", `/v1/audit-log?action=grant.updated&limit=100`)).data
        .filter((e: { target: { id: string } }) => e.target.id === created.grant_id)
        .map((e: { detail: { label: unknown } }) => e.detail.label)
      assert.deepStrictEqual(log.slice().reverse(), [longest, "Customer portal", "Customer portal", null])
      const made = (yield* ok("GET", `/v1/audit-log?action=grant.created&limit=100`)).data.find((e: { target: { id: string } }) => e.target.id === created.grant_id)
      assert.strictEqual(made.detail.label, "Newsletter March")

      // The OpenAPI document describes the three fields, always present, and the label sent on create and on change.
      const document = yield* ok("GET", "/v1/openapi.json")
      const grant = document.paths["/v1/sharing/grants/{grant_id}"]
      const shown = grant.get.responses["200"].content["application/json"].schema
      for (const field of ["label", "last_opened_at", "open_count"]) {
        assert.include(shown.required, field)
        assert.isString(shown.properties[field].description, field)
      }
      assert.deepInclude(shown.properties.open_count, { type: "integer", minimum: 0 })
      for (const body of [grant.patch.requestBody, document.paths[grantsPath].post.requestBody]) {
        const label = body.content["application/json"].schema.properties.label
        assert.include(JSON.stringify(label), "1 to 100 characters")
      }
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("a link's page loads count, a password link's once unlocked, an embed's with a valid token; JSON, refusals and other audiences do not", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* ExportFixture.setup({ stores: stores(), rowLevelSecurity: [{ roles: ["admin", "link", "embed"], all_rows: true }] })
      const onReport = { subject_type: "report", subject_id: reportId, actions: ["view"] }
      const opens = (grantId: string) =>
        Effect.map(ok("GET", `${grantsPath}/${grantId}`), (g) => ({ open_count: g.open_count as number, last_opened_at: g.last_opened_at as string | null }))
      const now = Effect.sync(() => Date.now())

      // A link: each page load is an open, at the time it was opened.
      const link = yield* ok("POST", grantsPath, { ...onReport, principal_type: "link", label: "Newsletter March" })
      const page = new URL(link.link_url).pathname
      const before = yield* now
      for (let i = 0; i < 2; i++) {
        const opened = yield* server.request("GET", page, { headers: html })
        assert.strictEqual(opened.status, 200, opened.text)
      }
      const after = yield* now
      const twice = yield* opens(link.grant_id)
      assert.strictEqual(twice.open_count, 2)
      const at = Date.parse(twice.last_opened_at!)
      assert.isAtLeast(at, before - 1)
      assert.isAtMost(at, after + 1)
      // What the page then reads (its JSON view), a token that is none, and a HEAD count nothing.
      assert.strictEqual((yield* server.request("GET", page, { headers: json })).status, 200)
      assert.strictEqual((yield* server.request("GET", `${page}x`, { headers: html })).status, 404)
      yield* server.request("HEAD", page, { headers: html })
      assert.strictEqual((yield* opens(link.grant_id)).open_count, 2)
      // A paused link and a revoked one are refused, and not counted.
      yield* ok("POST", `${grantsPath}/${link.grant_id}/pause`)
      assert.isAtLeast((yield* server.request("GET", page, { headers: html })).status, 400)
      yield* ok("POST", `${grantsPath}/${link.grant_id}/resume`)
      yield* ok("DELETE", `${grantsPath}/${link.grant_id}`)
      assert.isAtLeast((yield* server.request("GET", page, { headers: html })).status, 400)
      assert.deepStrictEqual(yield* opens(link.grant_id), twice)

      // A password link: its form is a refusal and counts nothing; the page its unlocking leads to is the visit's one open.
      const locked = yield* ok("POST", grantsPath, { ...onReport, principal_type: "link", password: "correct horse battery" })
      const lockedPage = new URL(locked.link_url).pathname
      assert.strictEqual((yield* server.request("GET", lockedPage, { headers: html })).status, 401)
      assert.strictEqual((yield* opens(locked.grant_id)).open_count, 0)
      const unlocked = yield* Effect.promise(() =>
        fetch(`${server.url}${lockedPage}`, {
          method: "POST",
          body: "password=correct+horse+battery",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", "sec-fetch-site": "same-origin" },
          redirect: "manual"
        })
      )
      assert.strictEqual(unlocked.status, 303)
      assert.strictEqual((yield* opens(locked.grant_id)).open_count, 0)
      const cookie = unlocked.headers.get("set-cookie")!.split(";")[0]!
      assert.strictEqual((yield* server.request("GET", unlocked.headers.get("location")!, { headers: { ...html, cookie } })).status, 200)
      assert.strictEqual((yield* opens(locked.grant_id)).open_count, 1)

      // An embed: its page with a valid token counts; a token that is none, and its JSON, do not.
      const embed = yield* ok("POST", grantsPath, { ...onReport, principal_type: "embed", label: "Customer portal" })
      assert.deepInclude(embed, { label: "Customer portal", open_count: 0, last_opened_at: null })
      const token = embed.embed.token as string
      const embedPage = `/embed?token=${encodeURIComponent(token)}`
      assert.strictEqual((yield* server.request("GET", embedPage, { headers: html })).status, 200)
      assert.strictEqual((yield* server.request("GET", embedPage, { headers: json })).status, 200)
      assert.isAtLeast((yield* server.request("GET", `/embed?token=${encodeURIComponent(`${token.slice(0, -2)}xx`)}`, { headers: html })).status, 400)
      const embedded = yield* opens(embed.grant_id)
      assert.strictEqual(embedded.open_count, 1)
      assert.isNotNull(embedded.last_opened_at)
      // Revoked: its token opens nothing more, and counts nothing.
      yield* ok("DELETE", `${grantsPath}/${embed.grant_id}`)
      assert.isAtLeast((yield* server.request("GET", embedPage, { headers: html })).status, 400)
      assert.deepStrictEqual(yield* opens(embed.grant_id), embedded)

      // A user grant has no page of its own: no opens.
      const user = yield* ok("POST", "/v1/users", { email: "mira@example.com", name: "Mira", roles: ["member"] })
      const toUser = yield* ok("POST", grantsPath, { ...onReport, principal_type: "user", principal_id: user.user_id })
      assert.deepInclude(toUser, { label: null, open_count: 0, last_opened_at: null })
    }).pipe(Effect.scoped), { timeout: 120_000 })
})

/** The memory stores, their grant store failing every count of an open. */
const opensDown = Layer.effect(
  GrantStore.GrantStore,
  Effect.map(GrantStore.GrantStore, (store) =>
    GrantStore.GrantStore.of({ ...store, recordOpen: () => Effect.fail(new Errors.StoreError({ operation: "GrantStore.recordOpen", cause: "down" })) }))
).pipe(Layer.provideMerge(MemoryStores.layer))

describe("grant opens when the count fails", () => {
  it.live("the link's page and the embed's are answered all the same, and nothing is counted", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* ExportFixture.setup({ stores: opensDown, rowLevelSecurity: [{ roles: ["admin", "link", "embed"], all_rows: true }] })
      const onReport = { subject_type: "report", subject_id: reportId, actions: ["view"] }
      const link = yield* ok("POST", grantsPath, { ...onReport, principal_type: "link" })
      const opened = yield* server.request("GET", new URL(link.link_url).pathname, { headers: html })
      assert.strictEqual(opened.status, 200, opened.text)
      assert.include(opened.text, "Sales overview")
      const embed = yield* ok("POST", grantsPath, { ...onReport, principal_type: "embed" })
      const embedded = yield* server.request("GET", `/embed?token=${encodeURIComponent(embed.embed.token)}`, { headers: html })
      assert.strictEqual(embedded.status, 200, embedded.text)
      for (const grant of [link, embed]) assert.strictEqual((yield* ok("GET", `${grantsPath}/${grant.grant_id}`)).open_count, 0)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
