/**
 * CSV and Parquet exports past the old 50,000-row bound, over real HTTP on
 * a real DuckDB engine with results kept on disk (`FileBlobStore`): the
 * file carries every row of the visual's query, in its order, with
 * formula-like text guarded; a limit the visual names still applies; the
 * JSON export keeps the display bound. The CSV is read back by csv-parse
 * held to RFC 4180, the Parquet file by hyparquet.
 */
import { FileBlobStore } from "@analytics/adapter-node"
import { SemanticQuery } from "@analytics/core"
import { readCsv } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetReadObjects } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ExportFixture from "./ExportFixture.ts"

/** Past `SemanticQuery.maxLimit`, the most a visual's query shows. */
const n = 60_000
const labels = ["=1+2", "+x", "-y", "@z", "plain", 'say "hi", ok']
const field = (text: string) => /[",]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
const upload = ["id,label,amount", ...Array.from({ length: n }, (_, i) => `${i},${field(labels[i % labels.length]!)},${i % 100}`)].join("\n")

const setup = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "export-streaming-"))),
    (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
  )
  const { server, worker } = yield* ExportFixture.serve({ database: join(dir, "analytics.duckdb"), blobStore: FileBlobStore.layer(join(dir, "exports")) })
  const { admin: token, ok } = yield* ExportFixture.provision(server)
  const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id
  const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Items", source: { type: "upload" } })).dataset_id
  assert.strictEqual((yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token, body: upload, headers: { "content-type": "text/csv" } })).status, 200)
  yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
    model: {
      dimensions: [{ name: "id", type: "number" }, { name: "label", type: "string" }],
      measures: [{ name: "total_amount", aggregation: "sum", column: "amount" }],
      row_level_security: [{ roles: ["admin"], all_rows: true }]
    }
  })
  const visual = (id: string, query: object) => ({ id, type: "table", dataset_id: datasetId, query: { dimensions: ["id", "label"], measures: ["total_amount"], order: [{ member: "id" }], ...query } })
  const report = yield* ok("POST", "/v1/reports", {
    workspace_id: workspaceId,
    name: "Items",
    pages: [{ name: "All", visuals: [visual("every_item", {}), visual("first_ten", { limit: 10 })] }]
  })
  /** Exports a visual, runs the worker, and fetches the file at its signed URL. */
  const exported = (format: string, visualId: string) =>
    Effect.gen(function*() {
      const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format, visual_id: visualId })
      assert.strictEqual(yield* worker, 1)
      const done = yield* ok("GET", `/v1/jobs/${job.job_id}`)
      assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
      const { url } = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      const file = yield* Effect.promise(() => fetch(`${server.url}${new URL(url).pathname}${new URL(url).search}`))
      assert.strictEqual(file.status, 200)
      const bytes = new Uint8Array(yield* Effect.promise(() => file.arrayBuffer()))
      assert.strictEqual(bytes.length, done.result.bytes)
      return bytes
    })
  return { exported }
})

describe("export streaming", () => {
  it.live("a CSV export carries every row past the old bound, in order, formulas guarded; a limit the visual names applies", () =>
    Effect.gen(function*() {
      const { exported } = yield* setup
      assert.isAbove(n, SemanticQuery.maxLimit)
      const records = readCsv(new TextDecoder().decode(yield* exported("csv", "every_item")))
      assert.deepStrictEqual(records[0], ["id", "label", "total_amount"])
      assert.strictEqual(records.length, n + 1)
      for (let i = 0; i < n; i++) {
        const raw = labels[i % labels.length]!
        assert.deepStrictEqual(records[i + 1], [String(i), /^[=+\-@]/.test(raw) ? `'${raw}` : raw, String(i % 100)])
      }
      const limited = readCsv(new TextDecoder().decode(yield* exported("csv", "first_ten")))
      assert.deepStrictEqual(limited.map((r) => r[0]), ["id", ...Array.from({ length: 10 }, (_, i) => String(i))])
    }).pipe(Effect.scoped))

  it.live("a Parquet export carries every row past the old bound; JSON keeps the display bound", () =>
    Effect.gen(function*() {
      const { exported } = yield* setup
      const bytes = yield* exported("parquet", "every_item")
      const rows = yield* Effect.promise(() => parquetReadObjects({ file: bytes.buffer as ArrayBuffer, compressors }))
      assert.strictEqual(rows.length, n)
      // Parquet keeps the text as it is (no spreadsheet runs it).
      for (const i of [0, 1, 49_999, 50_000, n - 1]) {
        assert.deepStrictEqual([Number(rows[i]!["id"]), rows[i]!["label"], Number(rows[i]!["total_amount"])], [i, labels[i % labels.length], i % 100])
      }
      const json = JSON.parse(new TextDecoder().decode(yield* exported("json", "every_item")))
      assert.strictEqual(json.row_count, SemanticQuery.defaultLimit)
      assert.strictEqual(json.rows.length, SemanticQuery.defaultLimit)
    }).pipe(Effect.scoped))
})
