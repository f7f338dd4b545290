/**
 * Export jobs over real HTTP on a real DuckDB engine, the worker run in the
 * test: a request is refused when it does not fit the report; a job is
 * queued (202), polled with Retry-After, run by the worker as its
 * requester (row-level security), and its file fetched at a signed URL
 * that refuses tampering and expiry; export.succeeded reaches webhooks;
 * a canceled job never runs; download is needed.
 */
import { Documents } from "@analytics/adapter-documents"
import { Poppler } from "@analytics/testing/documents"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { parquetMetadata, parquetReadObjects } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import JSZip from "jszip"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

/** The sales overview, with the real document renderers. */
const setup = (options: ExportFixture.ServeOptions = {}) => ExportFixture.setup({ ...options, renderers: Documents.layer })

describe("exports", () => {
  it.live("a CSV export: 202, polled with Retry-After, run as its requester, fetched at a signed URL that refuses tampering and expiry", () =>
    Effect.gen(function*() {
      const { admin, local, ok, reportId, server, signer, worker } = yield* setup()
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["export.succeeded", "export.failed"] })
      const exportOf = (body: unknown, token = admin) => server.request("POST", `/v1/reports/${reportId}/export`, { token, body })
      // Requests that do not fit the report change nothing.
      assert.strictEqual(problemCode(yield* exportOf({ format: "docx" })), "request/invalid")
      assert.strictEqual(problemCode(yield* exportOf({ format: "csv" })), "export/invalid")
      assert.strictEqual(problemCode(yield* exportOf({ format: "csv", visual_id: "nope" })), "export/invalid")
      assert.strictEqual(problemCode(yield* exportOf({ format: "csv", visual_id: "by_region", pages: ["Q5"] })), "export/invalid")
      assert.strictEqual(problemCode(yield* exportOf({ format: "png" })), "export/invalid", "png shows one visual: visual_id")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/reports/${crypto.randomUUID()}/export`, { token: admin, body: { format: "csv", visual_id: "x" } })), "resource/not-found")

      const queued = yield* exportOf({ format: "csv", visual_id: "by_region" })
      assert.strictEqual(queued.status, 202, queued.text)
      assert.deepInclude(queued.body, { status: "queued", percent_complete: 0, format: "csv", result: null })
      const jobPath = `/v1/jobs/${queued.body.job_id}`
      const polled = yield* server.request("GET", jobPath, { token: admin })
      assert.strictEqual(polled.headers.get("retry-after"), "2")
      assert.strictEqual(problemCode(yield* server.request("GET", `${jobPath}/result`, { token: admin })), "export/not-ready")

      assert.strictEqual(yield* worker, 1)
      const done = yield* server.request("GET", jobPath, { token: admin })
      assert.deepInclude(done.body, { status: "succeeded", percent_complete: 100, attempts: 1, error: null })
      assert.deepStrictEqual(done.body.result, { filename: "by_region.csv", content_type: "text/csv; charset=utf-8", bytes: 50, warnings: [] })
      assert.isNull(done.headers.get("retry-after"))
      const result = yield* ok("GET", `${jobPath}/result`)
      assert.match(result.url, /^http:\/\/127\.0\.0\.1\/v1\/jobs\/[0-9a-f-]+\/file\?tenant=.+&expires=\d+&signature=[\w-]+$/)
      assert.isAtMost(Math.abs(new Date(result.expires_at).getTime() - Date.now() - 3_600_000), 5_000)
      // The file, without a token.
      const file = yield* server.request("GET", local(result.url))
      assert.strictEqual(file.status, 200)
      assert.strictEqual(file.headers.get("content-disposition"), `attachment; filename="by_region.csv"`)
      assert.strictEqual(file.headers.get("x-content-type-options"), "nosniff")
      assert.strictEqual(file.text, "region,total_amount\r\nAPAC,1395\r\nEU,1335\r\nUS,1365\r\n")
      // Tampered (another job, another tenant, another signature) or expired: 403.
      const otherJob = local(result.url).replace(queued.body.job_id, crypto.randomUUID())
      assert.strictEqual(problemCode(yield* server.request("GET", otherJob)), "export/url-invalid")
      assert.strictEqual(problemCode(yield* server.request("GET", local(result.url).replace(/signature=[\w-]+/, "signature=AAAA"))), "export/url-invalid")
      const url = new URL(result.url)
      const path = `${url.pathname}?tenant=${url.searchParams.get("tenant")}`
      const past = yield* signer.sign(path, new Date(Date.now() - 1000))
      assert.strictEqual(problemCode(yield* server.request("GET", `${path}&expires=${past.expires}&signature=${past.signature}`)), "export/url-expired")
      // The event: identifiers and the file's name, never a URL that works without credentials.
      const deliveries = (yield* ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`)).data
      assert.deepStrictEqual(deliveries.map((d: any) => d.event_type), ["export.succeeded"])
      assert.deepStrictEqual(deliveries[0].event.data, {
        job_id: queued.body.job_id,
        report_id: reportId,
        format: "csv",
        filename: "by_region.csv",
        content_type: "text/csv; charset=utf-8",
        bytes: file.text.length
      })
      assert.notInclude(JSON.stringify(deliveries[0]), "signature=")
      // A job whose report is deleted before it runs fails for good, and says so.
      const orphan = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
      assert.strictEqual((yield* server.request("DELETE", `/v1/reports/${reportId}`, { token: admin })).status, 204)
      assert.strictEqual(yield* worker, 1)
      const failed = yield* ok("GET", `/v1/jobs/${orphan.job_id}`)
      assert.deepInclude(failed, { status: "failed", attempts: 1, result: null })
      assert.strictEqual(failed.error.kind, "permanent")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/jobs/${orphan.job_id}/result`, { token: admin })), "export/not-ready")
      const events = (yield* ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`)).data
      assert.deepStrictEqual(events.map((d: any) => d.event_type), ["export.failed", "export.succeeded"])
      assert.strictEqual(events[0].event.data.error.code, "export/invalid")
    }).pipe(Effect.scoped))

  it.live("a job longer than its lease keeps it (a second worker finds nothing to take), and a job canceled while it runs stops without a result", () =>
    Effect.gen(function*() {
      // Slow writes stand for a big file: the job outlives its lease unless the worker renews it.
      const { ok, reportId, worker } = yield* setup({ slowWritesMillis: 1_500, leaseMillis: 600 })
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "parquet", visual_id: "by_region" })
      const first = yield* Effect.forkChild(worker)
      yield* Effect.sleep("900 millis")
      // Past the first lease: renewed by the running worker, so nothing is due.
      assert.strictEqual(yield* worker, 0)
      assert.strictEqual(yield* Fiber.join(first), 1)
      const done = yield* ok("GET", `/v1/jobs/${job.job_id}`)
      assert.deepInclude(done, { status: "succeeded", attempts: 1 })
      // Canceled while it runs: the worker stops at its next renewal and writes nothing.
      const doomed = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
      const second = yield* Effect.forkChild(worker)
      yield* Effect.sleep("100 millis")
      assert.strictEqual((yield* ok("DELETE", `/v1/jobs/${doomed.job_id}`)).status, "canceled")
      assert.strictEqual(yield* Fiber.join(second), 1)
      const after = yield* ok("GET", `/v1/jobs/${doomed.job_id}`)
      assert.deepInclude(after, { status: "canceled", result: null })
    }).pipe(Effect.scoped))

  it.live("Excel: a cover sheet with the filters, a sheet per visual, a total row that is a live SUM, read back as raw OOXML", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* setup()
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "xlsx", filters: [{ member: "region", operator: "not_equals", values: ["US"] }] })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      assert.strictEqual(result.filename, "Sales_overview.xlsx")
      const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
      const zip = yield* Effect.promise(() => JSZip.loadAsync(bytes))
      const read = (path: string) => Effect.promise(() => zip.file(path)!.async("string"))
      const workbook = yield* read("xl/workbook.xml")
      assert.deepStrictEqual([...workbook.matchAll(/<sheet [^>]*name="([^"]+)"/g)].map((m) => m[1]), ["Report", "by_region"])
      const cover = yield* read("xl/worksheets/sheet1.xml")
      assert.include(cover, "Sales overview")
      assert.include(cover, "region not equals &quot;US&quot;")
      const sheet = yield* read("xl/worksheets/sheet2.xml")
      assert.include(sheet, "<f>SUM(B2:B3)</f><v>2730</v>")
      for (const value of ["APAC", "1395", "EU", "1335"]) assert.include(sheet, value)
      assert.notInclude(sheet, "1365", "the filter left US out")
    }).pipe(Effect.scoped))

  it.live(`PDF of the chosen pages, read back by poppler${Poppler.available ? "" : " (skipped: no pdftotext; apt-get install poppler-utils)"}`, () =>
    Effect.gen(function*() {
      if (!Poppler.available) return
      const { local, ok, reportId, server, worker } = yield* setup()
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "pdf", pages: ["Overview"], filters: [{ member: "region", operator: "equals", values: ["EU", "APAC"] }] })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      assert.strictEqual(result.content_type, "application/pdf")
      const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
      const pdf = Poppler.read(new Uint8Array(bytes))
      assert.strictEqual(pdf.pages, 2)
      assert.strictEqual(pdf.title, "Sales overview")
      assert.include(pdf.text, "region equals \"EU\", \"APAC\"")
      for (const label of ["Overview", "APAC", "EU", "region"]) assert.include(pdf.text, label)
    }).pipe(Effect.scoped))

  it.live("PowerPoint: a title slide and a slide per visual with a native chart whose data is in the deck, read back as raw OOXML", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* setup()
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "pptx" })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      assert.strictEqual(result.content_type, "application/vnd.openxmlformats-officedocument.presentationml.presentation")
      const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
      const zip = yield* Effect.promise(() => JSZip.loadAsync(bytes))
      const slides = Object.keys(zip.files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f)).sort()
      assert.deepStrictEqual(slides, ["ppt/slides/slide1.xml", "ppt/slides/slide2.xml"])
      const read = (path: string) => Effect.promise(() => zip.file(path)!.async("string"))
      assert.include(yield* read("ppt/slides/slide1.xml"), "Sales overview")
      const visualSlide = yield* read("ppt/slides/slide2.xml")
      assert.include(visualSlide, "Overview · by_region")
      assert.include(visualSlide, "graphicFrame", "a native chart, not a picture")
      assert.notInclude(visualSlide, "<p:pic>")
      const chart = yield* read(Object.keys(zip.files).find((f) => /^ppt\/charts\/chart\d*\.xml$/.test(f))!)
      assert.include(chart, "<c:barChart>")
      for (const value of ["APAC", "1395", "1335", "1365"]) assert.include(chart, value)
    }).pipe(Effect.scoped))

  it.live("PNG of one visual at twice its size", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* setup()
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "png", visual_id: "by_region" })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      assert.strictEqual(result.content_type, "image/png")
      assert.strictEqual(result.filename, "by_region.png")
      const bytes = new DataView(yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer())))
      // The PNG signature, then the IHDR chunk's width and height.
      assert.strictEqual(bytes.getUint32(0), 0x89504e47)
      assert.deepStrictEqual([bytes.getUint32(16), bytes.getUint32(20)], [2732, 1536])
    }).pipe(Effect.scoped))

  it.live("Parquet from DuckDB's own writer, read back by another library", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* setup()
      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "parquet", visual_id: "by_region" })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      assert.strictEqual(result.content_type, "application/vnd.apache.parquet")
      const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
      assert.strictEqual(new TextDecoder().decode(new Uint8Array(bytes, 0, 4)), "PAR1")
      const rows = yield* Effect.promise(() => parquetReadObjects({ file: bytes, compressors }))
      assert.deepStrictEqual(rows.map((r: any) => [r.region, Number(r.total_amount)]), [["APAC", 1395], ["EU", 1335], ["US", 1365]])
      const metadata = parquetMetadata(bytes)
      assert.strictEqual(metadata.row_groups[0]!.columns[0]!.meta_data!.codec, "ZSTD")
    }).pipe(Effect.scoped))

  it.live("JSON with its schema, SQL in a chosen dialect, a canceled job that never runs, and download needed", () =>
    Effect.gen(function*() {
      const { local, ok, reportId, server, worker } = yield* setup()
      const json = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "json", visual_id: "by_region", filters: [{ member: "region", operator: "equals", values: ["EU"] }] })
      const sql = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "sql", visual_id: "by_region", dialect: "snowflake" })
      const canceled = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
      assert.strictEqual((yield* ok("DELETE", `/v1/jobs/${canceled.job_id}`)).status, "canceled")
      assert.strictEqual(yield* worker, 2)
      assert.strictEqual((yield* ok("GET", `/v1/jobs/${canceled.job_id}`)).status, "canceled")
      const fetched = (jobId: string) => Effect.flatMap(ok("GET", `/v1/jobs/${jobId}/result`), (r) => server.request("GET", local(r.url)))
      const document = (yield* fetched(json.job_id)).body
      assert.deepStrictEqual(document.rows, [{ region: "EU", total_amount: 1335 }])
      assert.deepStrictEqual(document.columns.map((c: any) => [c.name, c.kind]), [["region", "dimension"], ["total_amount", "measure"]])
      const text = (yield* fetched(sql.job_id)).text
      assert.include(text, "compiled for snowflake")
      assert.match(text, /SELECT/i)
      // A member needs download: view is not enough.
      const user = yield* ok("POST", "/v1/users", { email: "viewer@example.com", name: "Viewer" })
      const token = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`, {})).token
      const grant = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: user.user_id, actions: ["view"] })
      const body = { format: "csv", visual_id: "by_region" }
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/reports/${reportId}/export`, { token, body })), "auth/forbidden")
      yield* ok("PATCH", `/v1/sharing/grants/${grant.grant_id}`, { actions: ["view", "download"] })
      const theirs = yield* ok("POST", `/v1/reports/${reportId}/export`, body, token)
      assert.strictEqual(yield* worker, 1)
      // Run as the member: the dataset's policies give members no rows.
      assert.strictEqual((yield* fetched(theirs.job_id)).text, "region,total_amount\r\n")
      // An id that is no job, and another tenant's job, are not found.
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/jobs/not-a-job", { token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("DELETE", "/v1/jobs/not-a-job", { token })), "resource/not-found")
      const other = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/jobs/${theirs.job_id}`, { token: other.token })), "resource/not-found")
    }).pipe(Effect.scoped))
})
