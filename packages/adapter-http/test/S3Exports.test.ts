/**
 * Exports kept on an S3-compatible store, over real HTTP: the service and
 * its worker share an `S3BlobStore` on a throwaway S3rver on loopback (an
 * emulator of S3, the best available here: see `TestS3Server`), and the
 * result URL the API hands out (and the export.succeeded event carries) is
 * the store's presigned URL, which plain `fetch` downloads without the
 * service, named and typed; a changed one is refused by the store.
 */
import { S3BlobStore } from "@analytics/adapter-s3"
import { TestS3Server } from "@analytics/testing/s3"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ExportFixture from "./ExportFixture.ts"

describe("exports on S3", () => {
  it.live("a CSV export's result URL is the store's presigned URL: fetched without the service, named and typed; a changed one is refused", () =>
    Effect.gen(function*() {
      const s3 = yield* TestS3Server.start()
      // The server and its worker share the store, which presigns the result URLs.
      const { ok, reportId, worker } = yield* ExportFixture.setup({ blobStore: S3BlobStore.layer(s3.config("analytics/")) })
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["export.succeeded"] })

      const job = yield* ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
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

      // The event names the job, never a presigned URL.
      const deliveries = (yield* ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`)).data
      assert.strictEqual(deliveries[0].event.data.job_id, job.job_id)
      assert.notInclude(JSON.stringify(deliveries[0]), s3.bucket)
    }).pipe(Effect.scoped))
})
