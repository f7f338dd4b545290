/**
 * Threaded comments over real HTTP (decision 0019), on the in-memory
 * stores, PGlite and PostgreSQL: members holding `comment` on the report or
 * its workspace post and reply (one level), members who may only read it
 * list; the list walks by cursor, oldest or newest first, one visual's
 * thread at a time; authors edit and delete their own; admins moderate (a
 * comment with replies becomes a tombstone), never edit; another member's
 * comment is a 404 to them; another tenant reaches nothing; each change is
 * audited. And on share pages: a link or embed whose grant allows
 * `comment` shows the report's comments, read-only; with only `view` there
 * is no comment section at all (rule 1).
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope } from "effect"
import type * as App from "../src/App.ts"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

/** The sales overview on `stores`, with three members: Ada (comment on the report), Bob (comment on the workspace), Carol (view only). */
const setup = (stores: Layer.Layer<App.Stores, unknown>) =>
  Effect.gen(function*() {
    const fixture = yield* ExportFixture.setup({
      stores,
      rowLevelSecurity: [{ roles: ["admin", "member", "link", "embed"], all_rows: true }],
      visuals: (datasetId) => [ExportFixture.byRegion(datasetId, { title: "By region" })]
    })
    const { ok, reportId, server, workspaceId } = fixture
    const member = (email: string, name: string) =>
      Effect.gen(function*() {
        const created = yield* ok("POST", "/v1/users", { email, name, roles: ["member"] })
        const issued = yield* ok("POST", `/v1/users/${created.user_id}/tokens`, {})
        return { id: created.user_id as string, token: issued.token as string }
      })
    const grant = (subject: { readonly subject_type: string; readonly subject_id: string }, userId: string, actions: ReadonlyArray<string>) =>
      ok("POST", "/v1/sharing/grants", { ...subject, principal_type: "user", principal_id: userId, actions })
    const ada = yield* member("ada@example.com", "Ada Lovelace")
    const bob = yield* member("bob@example.com", "Bob")
    const carol = yield* member("carol@example.com", "Carol")
    const adaGrant = yield* grant({ subject_type: "report", subject_id: reportId }, ada.id, ["view", "comment"])
    yield* grant({ subject_type: "workspace", subject_id: workspaceId }, bob.id, ["view", "comment"])
    yield* grant({ subject_type: "report", subject_id: reportId }, carol.id, ["view"])
    const call = (method: string, path: string, token: string, body?: unknown) => server.request(method, path, { token, body })
    return { ...fixture, ada, bob, carol, adaGrant: adaGrant.grant_id as string, call }
  })

/** Every comment of a list, walking its pages by cursor. */
const walk = (call: (method: string, path: string, token: string) => Effect.Effect<any>, path: string, token: string) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const sep = path.includes("?") ? "&" : "?"
      const page: any = yield* call("GET", `${path}${cursor === null ? "" : `${sep}cursor=${encodeURIComponent(cursor)}`}`, token)
      assert.strictEqual(page.status, 200, page.text)
      ids.push(...page.body.data.map((c: any) => c.comment_id))
      cursor = page.body.page.next_cursor
      pages++
    } while (cursor !== null && pages < 20)
    return { ids, pages }
  })

/** The whole life of a report's comments, as each role sees it. */
const lifecycle = (stores: Effect.Effect<Layer.Layer<App.Stores, unknown>, never, Scope.Scope>) =>
  Effect.gen(function*() {
    const { ada, adaGrant, admin, bob, call, carol, ok, reportId, server } = yield* setup(yield* stores)
    const comments = `/v1/reports/${reportId}/comments`
    /** Posts and asserts it was created; a pause keeps creation times apart, so the order is the order of posting. */
    const post = (token: string, body: object) =>
      Effect.gen(function*() {
        yield* Effect.sleep("3 millis")
        const created = yield* call("POST", comments, token, body)
        assert.strictEqual(created.status, 201, created.text)
        return created.body
      })

    // Ada (comment on the report) starts the report's thread; the text is stored trimmed.
    const first = yield* post(ada.token, { text: "  Revenue in APAC looks off.\n" })
    assert.deepInclude(first, {
      report_id: reportId,
      visual_id: null,
      parent_id: null,
      author: { type: "user", id: ada.id, name: "Ada Lovelace" },
      text: "Revenue in APAC looks off.",
      deleted: false,
      edited_at: null
    })
    assert.notProperty(first, "tenant_id")
    // Bob (comment on the workspace) starts the visual's thread and replies to Ada's; the reply joins her thread.
    const onVisual = yield* post(bob.token, { text: "The bars look right to me.", visual_id: "by_region" })
    assert.strictEqual(onVisual.visual_id, "by_region")
    const reply = yield* post(bob.token, { text: "APAC closed late this month.", parent_id: first.comment_id })
    assert.deepInclude(reply, { parent_id: first.comment_id, visual_id: null })
    const visualReply = yield* post(ada.token, { text: "Agreed.", parent_id: onVisual.comment_id, visual_id: "by_region" })
    assert.strictEqual(visualReply.visual_id, "by_region")

    // Carol holds view only: she reads (as every member may, decision 0018), she does not post.
    assert.strictEqual(problemCode(yield* call("POST", comments, carol.token, { text: "Me too" })), "auth/forbidden")
    assert.strictEqual(problemCode(yield* call("POST", comments, carol.token, { text: "Me too", parent_id: first.comment_id })), "auth/forbidden")
    assert.strictEqual((yield* call("GET", comments, carol.token)).status, 200)

    // What does not fit is refused, and changes nothing.
    const refusals: ReadonlyArray<readonly [object, string]> = [
      [{ text: "   \n " }, "request/invalid"],
      [{ text: "x".repeat(4001) }, "request/invalid"],
      [{ text: "Hi", author: "someone" }, "request/invalid"],
      [{ text: "Hi", visual_id: "no_such_visual" }, "comment/invalid"],
      [{ text: "Hi", parent_id: crypto.randomUUID() }, "comment/invalid"],
      // Replies are one level deep, in their parent's thread.
      [{ text: "Hi", parent_id: reply.comment_id }, "comment/invalid"],
      [{ text: "Hi", parent_id: onVisual.comment_id, visual_id: "no_such_visual" }, "comment/invalid"]
    ]
    for (const [body, code] of refusals) {
      assert.strictEqual(problemCode(yield* call("POST", comments, ada.token, body)), code, JSON.stringify(body).slice(0, 80))
    }
    assert.strictEqual((yield* call("POST", comments, ada.token, { text: "y".repeat(4000) })).status, 201)
    const longest = (yield* call("GET", `${comments}?sort=-created_at&limit=1`, ada.token)).body.data[0]
    assert.strictEqual(longest.text.length, 4000)
    const more = yield* post(admin, { text: "Admins comment without a grant." })

    // The list: oldest first by default, page by page with the cursor; newest first on request; one visual's thread.
    const posted = [first, onVisual, reply, visualReply, longest, more].map((c) => c.comment_id)
    const oldestFirst = yield* walk(call, `${comments}?limit=2`, carol.token)
    assert.deepStrictEqual(oldestFirst, { ids: posted, pages: 3 })
    const newestFirst = yield* walk(call, `${comments}?limit=4&sort=-created_at`, carol.token)
    assert.deepStrictEqual(newestFirst, { ids: [...posted].reverse(), pages: 2 })
    assert.deepStrictEqual((yield* walk(call, `${comments}?visual_id=by_region&limit=1`, ada.token)).ids, [onVisual.comment_id, visualReply.comment_id])
    const firstPage = yield* call("GET", `${comments}?limit=2`, ada.token)
    // Each author by their name in the directory, read once per page (decision 0024); the list is what a reader needs to draw a thread.
    assert.deepStrictEqual(firstPage.body.data.map((c: any) => c.author.name), ["Ada Lovelace", "Bob"])
    const document = (yield* call("GET", "/v1/openapi.json", ada.token)).body
    const commentSchema = JSON.stringify(document).includes('"The author\'s name in the directory')
    assert.isTrue(commentSchema, "the OpenAPI document describes author.name")
    // A cursor continues its own list only.
    const elsewhere = yield* call("GET", `${comments}?limit=2&visual_id=by_region&cursor=${encodeURIComponent(firstPage.body.page.next_cursor)}`, ada.token)
    assert.strictEqual(problemCode(elsewhere), "pagination/cursor-mismatch")
    assert.strictEqual(problemCode(yield* call("GET", `${comments}?sort=text`, ada.token)), "request/invalid")

    // Authors edit their own text; another member's comment is a 404 to them; an admin may not put words in a member's mouth.
    const edited = yield* call("PATCH", `/v1/comments/${first.comment_id}`, ada.token, { text: " Revenue in APAC looks low. " })
    assert.strictEqual(edited.status, 200, edited.text)
    assert.strictEqual(edited.body.text, "Revenue in APAC looks low.")
    assert.isString(edited.body.edited_at)
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${first.comment_id}`, bob.token, { text: "Mine now" })), "resource/not-found")
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${first.comment_id}`, admin, { text: "Moderated" })), "auth/forbidden")
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${crypto.randomUUID()}`, ada.token, { text: "Nothing" })), "resource/not-found")
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${first.comment_id}`, ada.token, { text: "" })), "request/invalid")

    // Members delete their own only; deleting a comment without replies removes it.
    assert.strictEqual(problemCode(yield* call("DELETE", `/v1/comments/${visualReply.comment_id}`, bob.token)), "resource/not-found")
    assert.strictEqual(problemCode(yield* call("DELETE", `/v1/comments/${visualReply.comment_id}`, carol.token)), "resource/not-found")
    assert.strictEqual((yield* call("DELETE", `/v1/comments/${visualReply.comment_id}`, ada.token)).status, 204)
    assert.strictEqual(problemCode(yield* call("DELETE", `/v1/comments/${visualReply.comment_id}`, ada.token)), "resource/not-found")
    assert.deepStrictEqual((yield* walk(call, `${comments}?visual_id=by_region`, ada.token)).ids, [onVisual.comment_id])

    // An admin moderates: Ada's comment has a reply, so it stays as a tombstone; it changes no more.
    assert.strictEqual((yield* call("DELETE", `/v1/comments/${first.comment_id}`, admin)).status, 204)
    const listed = (yield* ok("GET", comments)).data as Array<any>
    assert.deepInclude(listed.find((c) => c.comment_id === first.comment_id), { deleted: true, text: "", parent_id: null })
    assert.strictEqual(listed.find((c) => c.comment_id === reply.comment_id)?.text, "APAC closed late this month.")
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${first.comment_id}`, ada.token, { text: "Back" })), "comment/deleted")
    assert.strictEqual(problemCode(yield* call("POST", comments, bob.token, { text: "Hello?", parent_id: first.comment_id })), "comment/invalid")
    assert.strictEqual((yield* call("DELETE", `/v1/comments/${first.comment_id}`, ada.token)).status, 204)
    // Its last reply gone, the tombstone goes too.
    assert.strictEqual((yield* call("DELETE", `/v1/comments/${reply.comment_id}`, bob.token)).status, 204)
    const left = ((yield* ok("GET", comments)).data as Array<any>).map((c) => c.comment_id)
    assert.deepStrictEqual(left, [onVisual.comment_id, longest.comment_id, more.comment_id])

    // Once Ada's grant is revoked she may no longer post or edit; withdrawing her own words stays hers.
    const mine = yield* post(ada.token, { text: "One more thing." })
    yield* ok("DELETE", `/v1/sharing/grants/${adaGrant}`)
    assert.strictEqual(problemCode(yield* call("POST", comments, ada.token, { text: "And another." })), "auth/forbidden")
    assert.strictEqual(problemCode(yield* call("PATCH", `/v1/comments/${mine.comment_id}`, ada.token, { text: "Changed" })), "auth/forbidden")
    assert.strictEqual((yield* call("DELETE", `/v1/comments/${mine.comment_id}`, ada.token)).status, 204)

    // Every change is in the audit log, the moderation marked as such.
    const audit = (yield* ok("GET", "/v1/audit-log?target_type=comment&limit=100")).data as Array<any>
    const actions = (id: string) => audit.filter((e) => e.target.id === id).map((e) => e.action).reverse()
    assert.deepStrictEqual(actions(first.comment_id), ["comment.created", "comment.updated", "comment.deleted"])
    assert.deepInclude(audit.find((e) => e.target.id === first.comment_id && e.action === "comment.deleted"), {
      actor: { type: "user", id: audit.find((e) => e.target.id === more.comment_id).actor.id }
    })
    const moderation = audit.find((e) => e.target.id === first.comment_id && e.action === "comment.deleted").detail
    assert.deepInclude(moderation, { tombstoned: true, moderated: true, author: { type: "user", id: ada.id } })
    assert.deepInclude(audit.find((e) => e.target.id === reply.comment_id && e.action === "comment.deleted").detail, { tombstoned: false, moderated: false })

    // Another tenant reaches nothing of this one's, and is told what a random id tells.
    const other = yield* ExportFixture.provision(server)
    for (const [method, path, body] of [
      ["GET", comments, undefined],
      ["POST", comments, { text: "Hello from elsewhere" }],
      ["PATCH", `/v1/comments/${onVisual.comment_id}`, { text: "Taken over" }],
      ["DELETE", `/v1/comments/${onVisual.comment_id}`, undefined]
    ] as const) {
      const answer = yield* call(method, path, other.admin, body)
      assert.strictEqual(answer.status, 404, `${method} ${path}: ${answer.text}`)
      assert.strictEqual(problemCode(answer), "resource/not-found")
    }
    const theirs = yield* ExportFixture.salesOverview(server, other)
    const foreignParent = yield* call("POST", `/v1/reports/${theirs.reportId}/comments`, other.admin, { text: "Hi", parent_id: onVisual.comment_id })
    assert.strictEqual(problemCode(foreignParent), "comment/invalid")
    assert.deepStrictEqual(((yield* ok("GET", comments)).data as Array<any>).map((c) => c.comment_id), left)
    // Deleting the report deletes its comments.
    yield* ok("DELETE", `/v1/reports/${reportId}`)
    assert.strictEqual(problemCode(yield* call("DELETE", `/v1/comments/${onVisual.comment_id}`, admin)), "resource/not-found")
  })

const memory = Effect.succeed(MemoryStores.layer)
const pglite = Effect.succeed(SqlStores.layerPglite())
const postgres = Effect.map(freshDatabase(databaseUrl), (url) => Layer.orDie(SqlStores.layerPg(Redacted.make(url))))

describe("comments", () => {
  it.live("on the in-memory stores: post, reply, list by cursor, edit and delete one's own, moderate, refuse, isolate, audit", () =>
    lifecycle(memory).pipe(Effect.scoped), 120_000)

  it.live("on PGlite, likewise", () => lifecycle(pglite).pipe(Effect.scoped), 180_000)

  if (databaseUrl === "") {
    it.skip(`on PostgreSQL, likewise ${skippedForNoPostgres}`, () => {})
  } else {
    it.live("on PostgreSQL, likewise", () => lifecycle(postgres).pipe(Effect.scoped), 180_000)
  }

  it.live("a member's view names the controls their grants give; share pages show the comments when the grant allows comment, and no comment section with view only", () =>
    Effect.gen(function*() {
      const { ada, admin, bob, call, carol, ok, reportId, server } = yield* setup(MemoryStores.layer)
      const comments = `/v1/reports/${reportId}/comments`
      // The member's view says which controls their grants give (rule 1 hides the rest): comment on the report or its workspace, not with view only.
      const actions = (bearer: string) => Effect.map(call("GET", `/v1/reports/${reportId}/view`, bearer), (view) => view.body.actions)
      assert.deepStrictEqual(yield* actions(ada.token), ["view", "comment"])
      assert.deepStrictEqual(yield* actions(bob.token), ["view", "comment"])
      assert.deepStrictEqual(yield* actions(carol.token), ["view"])
      assert.deepStrictEqual(yield* actions(admin), ["view", "download", "comment", "share"])
      // A grant with share offers Share (the dialog), and nothing else it does not give.
      const sharing = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: carol.id, actions: ["view", "share"] })
      assert.deepStrictEqual(yield* actions(carol.token), ["view", "share"])
      yield* ok("DELETE", `/v1/sharing/grants/${sharing.grant_id}`)
      const first = (yield* call("POST", comments, ada.token, { text: "Is <b>APAC</b> & EU right?" })).body
      yield* call("POST", comments, ada.token, { text: "Looking at the bars.", visual_id: "by_region" })
      yield* call("POST", comments, ada.token, { text: "Yes: both checked.", parent_id: first.comment_id })
      const link = (actions: ReadonlyArray<string>) =>
        Effect.map(ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions }), (grant) =>
          new URL(grant.link_url).pathname)
      const page = (path: string) => server.request("GET", path, { headers: { accept: "text/html" } })
      const json = (path: string) => server.request("GET", path, { headers: { accept: "application/json" } })

      // View only: no comment section, nothing of the comments in the page or its JSON (rule 1).
      const viewOnly = yield* link(["view"])
      const plain = yield* page(viewOnly)
      assert.strictEqual(plain.status, 200, plain.text)
      assert.include(plain.text, "By region")
      assert.notInclude(plain.text.toLowerCase(), "comment")
      assert.notInclude(plain.text, "APAC</b>")
      assert.notInclude(plain.text, "Looking at the bars")
      assert.notProperty((yield* json(viewOnly)).body, "comments")

      // With comment: the report's thread and the visual's, the reply under its comment, every text escaped, authors by name only.
      const commenting = yield* link(["view", "comment"])
      const shown = yield* page(commenting)
      assert.strictEqual(shown.status, 200, shown.text)
      assert.include(shown.headers.get("content-security-policy") ?? "", "default-src 'none'")
      assert.include(shown.text, `<section class="comments" aria-label="Comments">`)
      assert.include(shown.text, "Is &lt;b&gt;APAC&lt;/b&gt; &amp; EU right?")
      assert.notInclude(shown.text, "<b>APAC</b>")
      assert.match(shown.text, new RegExp(`data-comment="${first.comment_id}">.*Ada Lovelace.*<ol class="replies">.*Yes: both checked\\.`))
      assert.match(shown.text, /data-visual="by_region"><h3>On By region<\/h3>.*Looking at the bars\./)
      assert.notInclude(shown.text, "ada@example.com")
      // Read-only: no form posts a comment, and no script.
      assert.notMatch(shown.text, /<form[^>]*comment/i)
      assert.notInclude(shown.text, "<script")
      const data = (yield* json(commenting)).body.comments
      assert.deepStrictEqual(data.data.map((c: any) => [c.text, c.author_name, c.parent_id !== null]), [
        ["Is <b>APAC</b> & EU right?", "Ada Lovelace", false],
        ["Looking at the bars.", "Ada Lovelace", false],
        ["Yes: both checked.", "Ada Lovelace", true]
      ])
      assert.isFalse(data.has_more)

      // An embed whose grant allows comment shows them too; one with view only does not.
      const embed = (actions: ReadonlyArray<string>) =>
        Effect.map(ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "embed", actions }), (grant) =>
          new URL(grant.embed.embed_url).pathname + new URL(grant.embed.embed_url).search)
      assert.include((yield* page(yield* embed(["view", "comment"]))).text, `class="comments"`)
      assert.notInclude((yield* page(yield* embed(["view"]))).text, `class="comments"`)
    }).pipe(Effect.scoped), 120_000)
})
