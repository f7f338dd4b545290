/**
 * Exports kept on an S3-compatible store, over real HTTP: the service and
 * its worker share an `S3BlobStore` on a throwaway S3rver on loopback (an
 * emulator of S3, the best available here: see `TestS3Server`), and the
 * result URL the API hands out (and the export.succeeded event carries) is
 * the store's presigned URL, which plain `fetch` downloads without the
 * service, named and typed; a changed one is refused by the store.
 */
import { S3BlobStore } from "@analytics/adapter-s3"
import { TestS3Server } from "@analytics/adapter-s3/testing"
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, BlobStore, Datasets, DocumentRenderers, EventPublisher, ExportWorker, Mailer, SignedUrl } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { start } from "@analytics/adapter-http/testing"
import * as ExportRoutes from "@analytics/adapter-http/ExportRoutes"

const csv = ["region,amount", ...Array.from({ length: 90 }, (_, i) => `${["EU", "US", "APAC"][i % 3]},${i + 1}`)].join("\n")

describe("exports on S3", () => {
  it.live("a CSV export's result URL is the store's presigned URL: fetched without the service, named and typed; a changed one is refused", () =>
    Effect.gen(function*() {
      const s3 = yield* TestS3Server.start()
      const blobs = Context.get(yield* Layer.build(S3BlobStore.layer(s3.config("analytics/"))), BlobStore.BlobStore)
      const engine = Context.get(yield* Layer.build(DuckDbEngine.layer(":memory:")), AnalyticsEngine.AnalyticsEngine)
      const engineLayer = Layer.succeed(AnalyticsEngine.AnalyticsEngine, engine)
      const server = yield* start(MemoryStores.layer, { engines: { upload: engineLayer }, blobStore: Layer.succeed(BlobStore.BlobStore, blobs) })
      const { token } = yield* server.tenant()
      const ok = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id
      const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } })).dataset_id
      assert.strictEqual((yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token, body: csv, headers: { "content-type": "text/csv" } })).status, 200)
      const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
      yield* ok("PATCH", `/v1/datasets/${datasetId}`, { model: { ...model, row_level_security: [{ roles: ["admin"], all_rows: true }] } })
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspaceId,
        name: "Sales overview",
        pages: [{
          name: "Overview",
          visuals: [{
            id: "by_region",
            type: "bar",
            dataset_id: datasetId,
            query: { measures: ["total_amount"], dimensions: ["region"], order: [{ member: "region" }] },
            encoding: { x: "region", y: ["total_amount"] }
          }]
        }]
      })
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["export.succeeded"] })
      const signer = Context.get(yield* Layer.build(SignedUrl.UrlSigner.layer.pipe(Layer.provide(Layer.succeedContext(server.stores)))), SignedUrl.UrlSigner)
      // The worker as a host runs it: the same store, and the same links.
      const worker = ExportWorker.runDue({ ...ExportWorker.defaults, links: ExportRoutes.resultLinks("http://127.0.0.1", signer, blobs) }).pipe(
        Effect.provide(Layer.mergeAll(
          EventPublisher.EventPublisher.layer,
          Datasets.Engines.layer({ upload: engineLayer }),
          Layer.succeed(BlobStore.BlobStore, blobs),
          Mailer.Mailer.layerMemory,
          DocumentRenderers.DocumentRenderers.none
        )),
        Effect.provideContext(server.stores)
      )

      const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: "by_region" })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      const url = new URL(result.url)
      assert.strictEqual(url.origin, s3.endpoint)
      assert.match(url.pathname, new RegExp(`^/${s3.bucket}/analytics/exports/[0-9a-f-]+/${job.job_id}/by_region\\.csv$`))
      assert.strictEqual(url.searchParams.get("X-Amz-Expires"), "3600")
      assert.isAtMost(Math.abs(new Date(result.expires_at).getTime() - Date.now() - 3_600_000), 5_000)

      const fetched = yield* Effect.promise(() => fetch(result.url))
      assert.strictEqual(fetched.status, 200)
      assert.strictEqual(fetched.headers.get("content-disposition"), `attachment; filename="by_region.csv"`)
      assert.strictEqual(fetched.headers.get("content-type"), "text/csv; charset=utf-8")
      assert.strictEqual(yield* Effect.promise(() => fetched.text()), "region,total_amount\r\nAPAC,1395\r\nEU,1335\r\nUS,1365\r\n")
      const tampered = result.url.replace(job.job_id, crypto.randomUUID())
      assert.strictEqual((yield* Effect.promise(() => fetch(tampered))).status, 403)

      // The event carries a presigned URL too.
      const deliveries = (yield* ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`)).data
      assert.isTrue(String(deliveries[0].event.data.result_url).startsWith(`${s3.endpoint}/${s3.bucket}/analytics/exports/`))
    }).pipe(Effect.scoped))
})
