/**
 * The report viewer over plain HTTP: its files at `/assets/{file}` cached
 * for good (an unknown one is a 404 problem); a shared report's page loads
 * it under a policy allowing scripts of its own origin only, hands it its
 * data as JSON that runs nothing, and draws its charts as SVG first; the
 * JSON view keeps its members and adds the filters; `?filters=` narrows
 * the view, and a value for an embed's locked parameter, an unknown filter
 * or a bad value is refused (400 request/invalid), never a 5xx. An embed
 * page drawn on the server (a dashboard's, a dataset's, a workspace's, a
 * watermarked report's) runs the embed entry alone, its token session
 * (decision 0027), under `script-src 'self'` and no `connect-src`; a link's
 * page of the same runs nothing.
 */
import { problemCode } from "@analytics/testing/http"
import * as Viewer from "@analytics/viewer/assets"
import * as Http from "node:http"
import * as Zlib from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { executiveDashboard, grantsPath, setup } from "./ReportViewerFixture.ts"

describe("the report viewer over HTTP", () => {
  it.live("assets, the page's policy and data, the JSON view, and filters given and refused", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* setup
      const built = Viewer.load()

      const entry = yield* server.request("GET", `/assets/${built.entry}`)
      assert.strictEqual(entry.status, 200)
      assert.strictEqual(entry.headers.get("cache-control"), "public, max-age=31536000, immutable")
      assert.include(entry.headers.get("content-type"), "text/javascript")
      // fetch accepts compressed bodies: the tag names the coding sent
      assert.match(entry.headers.get("etag") ?? "", new RegExp(`^"${built.files.get(built.entry)!.sha256}(-br|-gzip)?"$`))
      // Compressed once at load, sent in the coding the client prefers and decoded to the same bytes
      // (shown on the largest file the viewer's entry loads: the entry itself only imports its chunks).
      const largest = [...built.entries.viewer!.closure].sort((a, b) => built.files.get(b)!.body.length - built.files.get(a)!.body.length)[0]!
      const raw = (encoding: string) =>
        Effect.promise(() =>
          new Promise<{ readonly coding: string | undefined; readonly vary: string | undefined; readonly body: Buffer }>((resolve, reject) => {
            Http.get(`${server.url}/assets/${largest}`, { headers: { "accept-encoding": encoding } }, (response) => {
              const chunks: Array<Buffer> = []
              response.on("data", (chunk: Buffer) => chunks.push(chunk))
              response.on("end", () => resolve({ coding: response.headers["content-encoding"], vary: response.headers.vary, body: Buffer.concat(chunks) }))
            }).on("error", reject)
          })
        )
      const identity = yield* raw("identity")
      assert.isUndefined(identity.coding)
      const br = yield* raw("gzip, deflate, br")
      const gzip = yield* raw("gzip")
      assert.deepStrictEqual([br.coding, gzip.coding, br.vary], ["br", "gzip", "accept-encoding"])
      assert.isBelow(br.body.length, identity.body.length / 2)
      assert.isTrue(Zlib.brotliDecompressSync(br.body).equals(identity.body))
      assert.isTrue(Zlib.gunzipSync(gzip.body).equals(identity.body))
      const missing = yield* server.request("GET", "/assets/nothing-here.js")
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(problemCode(missing), "resource/not-found")

      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      const path = new URL(link.link_url).pathname
      const page = yield* server.request("GET", path, { headers: { accept: "text/html" } })
      assert.strictEqual(page.status, 200)
      const csp = page.headers.get("content-security-policy") ?? ""
      assert.include(csp, "script-src 'self'")
      assert.include(csp, "connect-src 'self'")
      assert.notInclude(csp, "unsafe-eval")
      assert.notMatch(csp, /script-src[^;]*unsafe-inline/)
      assert.include(page.text, `<script type="module" src="/assets/${built.entry}"></script>`)
      // The chunks the entry imports (Lit, the viewer's elements) are preloaded with it: no waterfall of imports.
      for (const file of built.entries.viewer!.closure.slice(1)) assert.include(page.text, `<link rel="modulepreload" href="/assets/${file}">`)
      const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page.text)?.[1]
      assert.isDefined(data)
      assert.notInclude(data!, "<")
      assert.strictEqual(JSON.parse(data!).report.name, "Sales overview")
      // First paint: charts drawn by the server, each with its data as a table behind "Show data".
      assert.strictEqual((page.text.match(/<vega-chart class="chart"><svg/g) ?? []).length, 7)
      assert.strictEqual((page.text.match(/<summary>Show data<\/summary>/g) ?? []).length, 7)

      const json = yield* server.request("GET", path, { headers: { accept: "application/json" } })
      const byRegion = json.body.pages[0].visuals[1]
      assert.deepStrictEqual(byRegion.columns, ["region", "revenue"])
      assert.strictEqual(byRegion.rows.length, 4)
      assert.strictEqual(byRegion.kind, "bar")
      assert.deepStrictEqual(byRegion.table.columns, [{ title: "Region", numeric: false }, { title: "Revenue", numeric: true }])
      assert.deepStrictEqual(json.body.filters.map((f: any) => [f.name, f.kind]), [["region", "choice"], ["channel", "choice"], ["period", "range"]])
      assert.deepStrictEqual(json.body.filters[0].options, ["APAC", "EU", "LATAM", "US"])

      const narrowed = yield* server.request("GET", `${path}?filters=${encodeURIComponent(JSON.stringify({ region: "EU", period: ["2025-01-01", "2025-06-30"] }))}`, {
        headers: { accept: "application/json" }
      })
      assert.strictEqual(narrowed.status, 200, narrowed.text)
      assert.deepStrictEqual(narrowed.body.pages[0].visuals[1].rows.map((r: any) => r.region), ["EU"])
      assert.deepStrictEqual(narrowed.body.filter_values, { region: "EU", period: ["2025-01-01", "2025-06-30"] })
      const none = yield* server.request("GET", `${path}?filters=${encodeURIComponent(JSON.stringify({ period: ["2031-01-01", "2031-12-31"] }))}`, {
        headers: { accept: "text/html" }
      })
      assert.strictEqual(none.status, 200)
      assert.include(none.text, `<p class="state no_rows">No rows match.</p>`)

      for (const bad of ["{", JSON.stringify({ planet: "Mars" }), JSON.stringify({ period: 12 }), JSON.stringify(["EU"])]) {
        const refused = yield* server.request("GET", `${path}?filters=${encodeURIComponent(bad)}`, { headers: { accept: "application/json" } })
        assert.strictEqual(refused.status, 400, `${bad}: ${refused.text}`)
        assert.strictEqual(problemCode(refused), "request/invalid")
      }

      // An embed's locked region: its values only, shown as locked, and not to be changed.
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const minted = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { params: { region: "EU" } })
      const embedPath = `/embed?token=${encodeURIComponent(minted.token)}`
      const embedded = yield* server.request("GET", embedPath, { headers: { accept: "application/json" } })
      assert.deepStrictEqual(embedded.body.filters[0], { name: "region", title: "Region", locked: "EU", kind: "choice", options: [] })
      assert.deepStrictEqual(embedded.body.filters[1].options, ["Direct", "Online", "Partner"])
      const lifted = yield* server.request("GET", `${embedPath}&filters=${encodeURIComponent(JSON.stringify({ region: "US" }))}`, { headers: { accept: "application/json" } })
      assert.strictEqual(lifted.status, 400)
      assert.strictEqual(problemCode(lifted), "request/invalid")
      assert.include(lifted.body.detail, "embedding app")
      const channel = yield* server.request("GET", `${embedPath}&filters=${encodeURIComponent(JSON.stringify({ channel: "Online" }))}`, { headers: { accept: "application/json" } })
      assert.strictEqual(channel.status, 200)
      assert.deepStrictEqual(channel.body.pages[0].visuals[1].rows.map((r: any) => r.region), ["EU"])
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("every embed page renews its token: a page drawn on the server runs the embed entry alone; a link's runs nothing", () =>
    Effect.gen(function*() {
      const { ok, reportId, server, workspaceId, datasetId } = yield* setup
      const built = Viewer.load()
      const session = built.entries.embed!
      const dashboard = yield* ok("POST", "/v1/dashboards", executiveDashboard(workspaceId, reportId))
      const subjects: ReadonlyArray<readonly [string, string, object]> = [
        ["dashboard", dashboard.dashboard_id, {}],
        ["dataset", datasetId, {}],
        ["workspace", workspaceId, {}],
        ["report", reportId, { watermark: true }]
      ]
      for (const [type, id, extra] of subjects) {
        const embed = yield* ok("POST", grantsPath, { subject_type: type, subject_id: id, principal_type: "embed", actions: ["view"], ...extra })
        const page = yield* server.request("GET", new URL(embed.embed.embed_url).pathname + new URL(embed.embed.embed_url).search, { headers: { accept: "text/html" } })
        assert.strictEqual(page.status, 200, `${type}: ${page.text}`)
        assert.include(page.text, `<script type="module" src="/assets/${session.file}"></script>`, type)
        for (const file of session.closure.slice(1)) assert.include(page.text, `<link rel="modulepreload" href="/assets/${file}">`, type)
        assert.notInclude(page.text, `src="/assets/${built.entry}"`, `${type}: no viewer`)
        assert.notInclude(page.text, `id="report-data"`, `${type}: no rows for a script`)
        const csp = page.headers.get("content-security-policy") ?? ""
        assert.include(csp, "script-src 'self';", type)
        assert.notInclude(csp, "connect-src", `${type}: the session asks nothing of the server`)
        const link = yield* ok("POST", grantsPath, {
          subject_type: type, subject_id: id, principal_type: "link", actions: ["view"], ...extra, ...("watermark" in extra ? { email: "a@example.com" } : {})
        })
        const linked = yield* server.request("GET", new URL(link.link_url).pathname, { headers: { accept: "text/html" } })
        assert.strictEqual(linked.status, 200, `${type} link: ${linked.text}`)
        assert.notInclude(linked.text, "<script", `${type}: a link's page drawn on the server runs nothing`)
        assert.notInclude(linked.headers.get("content-security-policy") ?? "", "script-src", type)
      }
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
