/**
 * Exports through shares, over real HTTP on a real DuckDB engine with the
 * real document renderers, read back by poppler: a watermarked password
 * link with download exports a PDF whose pages carry its watermark
 * (decisions 0014 and 0015) and refuses formats that would not carry it; a
 * view-only link exports nothing; a browser's form post is led to its file;
 * an embed's export runs as its viewer (their region, its locked filters);
 * one share's jobs are not another's.
 */
import { Documents } from "@analytics/adapter-documents"
import { Poppler, Raster } from "@analytics/testing/documents"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PNG } from "pngjs"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

const json = { accept: "application/json" }

/** The sales overview with the real renderers: links see every row, embeds their viewer's region; `by_region` has a title. */
const setup = Effect.gen(function*() {
  const fixture = yield* ExportFixture.setup({
    renderers: Documents.layer,
    rowLevelSecurity: [
      { roles: ["admin", "link"], all_rows: true },
      { roles: ["embed"], filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
    ],
    visuals: (datasetId) => [ExportFixture.byRegion(datasetId, { title: "By region" })]
  })
  const fetchBytes = (path: string) =>
    Effect.promise(async () => new Uint8Array(await (await fetch(`${fixture.server.url}${path}`)).arrayBuffer()))
  return { ...fixture, fetchBytes }
})

describe("exports through shares", () => {
  it.live(`a watermarked link's PDF carries its watermark; other formats and view-only links are refused${Poppler.available ? "" : " (PDF text skipped: no pdftotext; apt-get install poppler-utils)"}`, () =>
    Effect.gen(function*() {
      const { fetchBytes, local, ok, reportId, server, worker } = yield* setup
      const link = yield* ok("POST", "/v1/sharing/grants", {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "link",
        actions: ["view", "download"],
        watermark: true,
        email: "board@example.com",
        password: "correct horse battery"
      })
      const path = new URL(link.link_url).pathname
      // Without a session the link asks for its password first.
      assert.strictEqual(problemCode(yield* server.request("POST", `${path}/export`, { body: { format: "pdf" }, headers: json })), "share/password-required")
      const unlocked = yield* Effect.promise(() =>
        fetch(`${server.url}${path}`, { method: "POST", body: JSON.stringify({ password: "correct horse battery" }), headers: { ...json, "content-type": "application/json" } }))
      const cookie = unlocked.headers.get("set-cookie")!.split(";")[0]!
      const asVisitor = { ...json, cookie }
      // The page offers the PDF.
      const page = yield* server.request("GET", path, { headers: { accept: "text/html", cookie } })
      assert.include(page.text, `action="${path}/export"`)
      // Bad requests are problems and queue nothing; a watermarked link exports only what carries its watermark.
      for (const [body, code] of [
        [{ format: "docx" }, "request/invalid"],
        [{ format: "pdf", filters: [] }, "request/invalid"],
        [{ format: "pdf", pages: ["Q5"] }, "export/invalid"],
        [{ format: "csv", visual_id: "by_region" }, "export/invalid"],
        [{ format: "xlsx" }, "export/invalid"]
      ] as const) {
        const refused = yield* server.request("POST", `${path}/export`, { body, headers: asVisitor })
        assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
        assert.strictEqual(problemCode(refused), code, `${JSON.stringify(body)}: ${refused.text}`)
      }
      assert.strictEqual(yield* worker, 0, "nothing was queued")

      const queued = yield* server.request("POST", `${path}/export`, { body: { format: "pdf" }, headers: asVisitor })
      assert.strictEqual(queued.status, 202, queued.text)
      assert.deepInclude(queued.body, { format: "pdf", status: "queued", url: null })
      const statusPath = queued.headers.get("location")!
      assert.strictEqual(statusPath, `${path}/jobs/${queued.body.job_id}`)
      const waiting = yield* server.request("GET", statusPath, { headers: asVisitor })
      assert.strictEqual(waiting.headers.get("retry-after"), "2")
      assert.strictEqual(yield* worker, 1)
      const done = yield* server.request("GET", statusPath, { headers: asVisitor })
      assert.strictEqual(done.body.status, "succeeded", done.text)
      assert.strictEqual(done.body.result.filename, "Sales_overview.pdf")
      const pdf = yield* fetchBytes(local(done.body.url))
      assert.deepStrictEqual([...pdf.slice(0, 5)], [...new TextEncoder().encode("%PDF-")])
      if (Poppler.available) {
        const read = Poppler.read(pdf)
        // The recipient's address is drawn into the pages as outlines: no text to extract (decision 0014).
        assert.notInclude(read.text.replace(/\s+/g, ""), "board@example.com")
        assert.include(read.text, "By region")
      }
      // The same PDF asked by the tenant's admin carries no watermark: its report page is the link's but for it.
      if (Poppler.available && Raster.available) {
        const own = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "pdf" })
        assert.strictEqual(yield* worker, 1)
        const result = yield* ok("GET", `/v1/jobs/${own.job_id}/result`)
        const plain = yield* fetchBytes(local(result.url))
        assert.notInclude(Poppler.read(plain).text, "board@example.com")
        assert.isAbove(Raster.differing(Raster.page(pdf, 2), Raster.page(plain, 2)), 5_000, "the link's watermark shows on its page")
      }
      // Its PNG of a visual carries the watermark too: the same image as the admin's, but for the pixels the watermark greys.
      const image = (bytes: Uint8Array) => PNG.sync.read(Buffer.from(bytes))
      const linkPng = yield* server.request("POST", `${path}/export`, { body: { format: "png", visual_id: "by_region" }, headers: asVisitor })
      const adminPng = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "png", visual_id: "by_region" })
      assert.strictEqual(yield* worker, 2)
      const marked = image(yield* fetchBytes(local((yield* server.request("GET", `${path}/jobs/${linkPng.body.job_id}`, { headers: asVisitor })).body.url)))
      const clear = image(yield* fetchBytes(local((yield* ok("GET", `/v1/jobs/${adminPng.job_id}/result`)).url)))
      assert.deepStrictEqual([marked.width, marked.height], [clear.width, clear.height])
      let differing = 0
      for (let i = 0; i < clear.data.length; i += 4) if (clear.data[i] !== marked.data[i]) differing++
      assert.isAbove(differing, 1_000, "the watermark changes the image")
      // The job is this link's: the session needs the link, and another link does not see it.
      assert.strictEqual(problemCode(yield* server.request("GET", statusPath, { headers: json })), "share/password-required")
      const other = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const otherPath = new URL(other.link_url).pathname
      assert.strictEqual(problemCode(yield* server.request("GET", `${otherPath}/jobs/${queued.body.job_id}`, { headers: json })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `${otherPath}/jobs/not-a-job`, { headers: json })), "resource/not-found")
      // A view-only link exports nothing, and offers nothing.
      const viewOnly = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      const viewPath = new URL(viewOnly.link_url).pathname
      assert.strictEqual(problemCode(yield* server.request("POST", `${viewPath}/export`, { body: { format: "pdf" }, headers: json })), "auth/forbidden")
      assert.notInclude((yield* server.request("GET", viewPath, { headers: { accept: "text/html" } })).text, "/export")
      // Revoked: the next request is refused.
      yield* ok("DELETE", `/v1/sharing/grants/${link.grant_id}`)
      assert.strictEqual(problemCode(yield* server.request("GET", statusPath, { headers: asVisitor })), "share/revoked")
    }).pipe(Effect.scoped))

  it.live("a browser's form post is led through a waiting page to the file", () =>
    Effect.gen(function*() {
      const { ok, reportId, server, worker } = yield* setup
      const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const path = new URL(link.link_url).pathname
      const posted = yield* Effect.promise(() =>
        fetch(`${server.url}${path}/export`, {
          method: "POST",
          body: "format=pdf",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
          redirect: "manual"
        }))
      assert.strictEqual(posted.status, 303)
      const statusPath = posted.headers.get("location")!
      assert.match(statusPath, new RegExp(`^${path}/jobs/[0-9a-f-]+$`))
      const waiting = yield* server.request("GET", statusPath, { headers: { accept: "text/html" } })
      assert.include(waiting.text, `http-equiv="refresh"`)
      assert.strictEqual(yield* worker, 1)
      const ready = yield* Effect.promise(() => fetch(`${server.url}${statusPath}`, { headers: { accept: "text/html" }, redirect: "manual" }))
      assert.strictEqual(ready.status, 303)
      assert.match(ready.headers.get("location")!, /\/v1\/jobs\/[0-9a-f-]+\/file\?tenant=/)
    }).pipe(Effect.scoped))

  it.live("an embed's export runs as its viewer: their region, its locked filters", () =>
    Effect.gen(function*() {
      const { fetchBytes, local, ok, reportId, server, worker } = yield* setup
      const embed = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view", "download"] })
      const token = (yield* ok("POST", `/v1/sharing/grants/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU" } })).token
      const exportAs = (token: string) =>
        server.request("POST", `/embed/export?token=${encodeURIComponent(token)}`, { body: { format: "csv", visual_id: "by_region" }, headers: json })
      const queued = yield* exportAs(token)
      assert.strictEqual(queued.status, 202, queued.text)
      assert.strictEqual(yield* worker, 1)
      const done = yield* server.request("GET", `/embed/jobs/${queued.body.job_id}?token=${encodeURIComponent(token)}`, { headers: json })
      assert.strictEqual(done.body.status, "succeeded", done.text)
      assert.strictEqual(new TextDecoder().decode(yield* fetchBytes(local(done.body.url))), "region,total_amount\r\nEU,1335\r\n")
      // Locked to US while the viewer is EU: no rows.
      const locked = (yield* ok("POST", `/v1/sharing/grants/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU" }, params: { region: "US" } })).token
      const lockedJob = yield* exportAs(locked)
      assert.strictEqual(yield* worker, 1)
      const lockedDone = yield* server.request("GET", `/embed/jobs/${lockedJob.body.job_id}?token=${encodeURIComponent(locked)}`, { headers: json })
      assert.strictEqual(new TextDecoder().decode(yield* fetchBytes(local(lockedDone.body.url))), "region,total_amount\r\n")
      // A tampered token opens nothing.
      assert.strictEqual(problemCode(yield* exportAs(`${token}x`)), "share/token-invalid")
    }).pipe(Effect.scoped))
})
