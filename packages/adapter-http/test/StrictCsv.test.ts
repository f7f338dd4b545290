/**
 * CSV uploads read strictly (decision 0013, "Upload"), over a real socket,
 * on memory and PGlite (DuckDB) and on PostgreSQL (its own uploads engine):
 * an unterminated quote, a line of more or fewer fields than the header, a
 * quote inside an unquoted field, a NUL character and bytes that are not
 * UTF-8 are each a 400 naming the line, never its values, and the rows
 * loaded before stay as they were (DuckDB stored `"EU` and replaced the good
 * rows; a file of three fields under a header of two became one column
 * named `a,b`). CR and LF inside quoted fields are kept as they are, and so
 * is a file delimited by `;`. An engine's refusal (a value that is not of
 * the type asked for) names its line and column, and no value reaches the
 * problem, the event or the log. Upload files live in the service's own
 * directory, removed when the client hangs up, and what a killed process
 * left there is swept at start.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { PgEngine, SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Logger, Redacted, type Scope } from "effect"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { inspect } from "node:util"
import { problemCode, start } from "./TestServer.ts"
import type * as App from "../src/App.ts"

/** A store and the engine its host loads uploads into. */
type Setup = () => Effect.Effect<{ readonly stores: Layer.Layer<App.Stores, unknown>; readonly upload: App.Options<unknown>["engines"] }, never, Scope.Scope>

const setups: ReadonlyArray<readonly [string, Setup]> = [
  ["memory", () => Effect.succeed({ stores: MemoryStores.layer, upload: { upload: DuckDbEngine.layer(":memory:") } })],
  ["PGlite", () => Effect.succeed({ stores: SqlStores.layerPglite(), upload: { upload: DuckDbEngine.layer(":memory:") } })],
  ...(databaseUrl === "" ? [] : [[
    "PostgreSQL",
    () =>
      Effect.map(freshDatabase(databaseUrl), (url) => ({
        stores: SqlStores.layerPg(Redacted.make(url)),
        upload: { upload: PgEngine.layerUploads(Redacted.make(url)) }
      }))
  ] as const])
]

const good = "region,amount\nEU,1\nUS,2\n"

for (const [name, setup] of setups) {
  describe(`strict CSV uploads (${name})`, () => {
    const serve = (logs: Array<string> = [], directory?: string) =>
      Effect.gen(function*() {
        const { stores, upload } = yield* setup()
        const server = yield* start(stores, { engines: upload, ...(directory === undefined ? {} : { uploadDirectory: directory }) })
        const { token } = yield* server.tenant()
        const workspaceId = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body.workspace_id
        const id = (yield* server.request("POST", "/v1/datasets", { token, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body
          .dataset_id as string
        const put = (body: string | Buffer, query = "") =>
          Effect.promise(async () => {
            const response = await fetch(`${server.url}/v1/datasets/${id}/data${query}`, {
              method: "PUT",
              headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
              body: new Uint8Array(Buffer.from(body))
            })
            const text = await response.text()
            return { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
          })
        /** Every row, by region, as the engine holds them. */
        const rows = Effect.map(
          server.request("POST", `/v1/datasets/${id}/query`, { token, body: { dimensions: ["region"], measures: ["total_amount"], order: [{ member: "region" }] } }),
          (r) => r.body.data as ReadonlyArray<Record<string, unknown>>
        )
        return { server, token, id, put, rows, logs }
      }).pipe(Effect.provide(Logger.layer([Logger.make((options) => void logs.push(inspect(options.message, { depth: 8 })))], { mergeWithExisting: true })))

    it.live("malformed files answer 400 naming the line, never a value, and the rows stay", () =>
      Effect.gen(function*() {
        const { put, rows } = yield* serve()
        assert.strictEqual((yield* put(good)).status, 200)
        const before = yield* rows
        assert.deepStrictEqual(before, [{ region: "EU", total_amount: 1 }, { region: "US", total_amount: 2 }])
        const refusals: ReadonlyArray<readonly [string, string | Buffer, string]> = [
          ["an unterminated quote", "region,amount\nEU,1\n\"EU,2\nUS,3\n", "Line 3 of the file opens a quoted field that is never closed"],
          ["more fields than the header, then an unterminated quote", "a,b\n1,2,3\n\"unterminated", "Line 2 of the file has a different number of fields than the header"],
          ["fewer fields than the header", "region,amount\nEU,1\nUS\n", "Line 3 of the file has a different number of fields than the header"],
          ["a quote inside an unquoted field", "region,amount\nE\"U,1\n", "Line 2 of the file has a quote inside a field that is not quoted"],
          ["text after a closing quote", "region,amount\n\"EU\"x,1\n", "Line 2 of the file has text after a quoted field's closing quote"],
          ["a CR inside an unquoted field", "region,amount\nE\rU,1\n", "Line 2 of the file has a different number of fields than the header"],
          ["a NUL character", "region,amount\nEU,1\nU\u0000S,2\n", "Line 3 of the file holds a NUL character (U+0000)"],
          ["bytes that are not UTF-8", Buffer.concat([Buffer.from("region,amount\nEU,1\nU"), Buffer.from([0xff, 0xfe]), Buffer.from("S,2\n")]), "Line 3 of the file is not UTF-8 text"],
          ["an encoded surrogate", Buffer.concat([Buffer.from("region,amount\n"), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(",2\n")]), "Line 2 of the file is not UTF-8 text"],
          ["no header line", "\n\n", "Line 1 of the file has no header line"]
        ]
        for (const [what, file, detail] of refusals) {
          const refused = yield* put(file)
          assert.strictEqual(refused.status, 400, `${what}: ${refused.text}`)
          assert.strictEqual(problemCode(refused), "dataset/source-invalid", what)
          assert.include(refused.body.detail, detail, what)
          assert.include(refused.body.detail, "no row was changed", what)
          // The line is named, its values are not.
          for (const value of ["EU", "US", "U\u0000S", "unterminated"]) assert.notInclude(refused.body.detail, value, what)
          assert.deepStrictEqual(yield* rows, before, what)
        }
      }).pipe(Effect.scoped), 120_000)

    it.live("CR and LF inside quoted fields, CRLF or mixed line ends, `;` delimiters and doubled quotes load as they are", () =>
      Effect.gen(function*() {
        const { put, rows } = yield* serve()
        const quoted = yield* put("region,amount\r\n\"E\rU\",1\r\n\"U\r\nS\",2\r\n\"a \"\"b\"\" c\nd\",3\r\n")
        assert.strictEqual(quoted.status, 200, quoted.text)
        assert.strictEqual(quoted.body.row_count, 3)
        assert.deepStrictEqual((yield* rows).map((r) => r.region).sort(), ["E\rU", "U\r\nS", "a \"b\" c\nd"].sort())
        const mixed = yield* put("region,amount\nEU,1\r\nUS,2\n")
        assert.strictEqual(mixed.status, 200, mixed.text)
        assert.deepStrictEqual(yield* rows, [{ region: "EU", total_amount: 1 }, { region: "US", total_amount: 2 }])
        const semicolons = yield* put("region;amount\n\"E;U\";1\nUS;2\n")
        assert.strictEqual(semicolons.status, 200, semicolons.text)
        assert.deepStrictEqual(yield* rows, [{ region: "E;U", total_amount: 1 }, { region: "US", total_amount: 2 }])
      }).pipe(Effect.scoped), 120_000)

    it.live("an engine's refusal names the line and column; no value reaches the problem, the event or the log", () =>
      Effect.gen(function*() {
        const logs: Array<string> = []
        const { id, put, rows, server, token } = yield* serve(logs)
        const hook = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/in", events: ["dataset.refresh.failed"] } })
        assert.strictEqual((yield* put(good)).status, 200)
        const secret = "cell-value-7f3a"
        const types = encodeURIComponent(JSON.stringify({ amount: "number" }))
        const refused = yield* put(`region,amount\nEU,1\nUS,${secret}\n`, `?types=${types}`)
        assert.strictEqual(refused.status, 400, refused.text)
        assert.strictEqual(problemCode(refused), "dataset/source-invalid")
        assert.notInclude(refused.text, secret)
        if (name !== "PostgreSQL") assert.include(refused.body.detail, "Line 3 of the file: a value of column \"amount\" is not a DOUBLE")
        const deliveries = (yield* server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token })).body.data
        assert.strictEqual(deliveries.length, 1)
        assert.notInclude(JSON.stringify(deliveries), secret)
        assert.notInclude(JSON.stringify((yield* server.request("GET", `/v1/datasets/${id}/refreshes`, { token })).body), secret)
        // (DuckDB's message named the upload's file, so the detail went to the log alone: with the line and its values.)
        for (const line of logs) assert.notInclude(line, secret)
        assert.deepStrictEqual(yield* rows, [{ region: "EU", total_amount: 1 }, { region: "US", total_amount: 2 }])
      }).pipe(Effect.scoped), 120_000)

    it.live("upload files live in the service's directory: removed when the client hangs up, swept at start when a process died", () =>
      Effect.gen(function*() {
        const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "strict-csv-uploads-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
        // What a process killed mid-upload left (its pid is gone), another live service's upload, and a stranger's file.
        const dead = spawnSync("true").pid
        const left = Path.join(directory, `upload-${Os.hostname()}-${dead}-AbC123`)
        Fs.mkdirSync(left)
        Fs.writeFileSync(Path.join(left, "rows.csv"), "region,amount\nEU,1\n")
        const live = `upload-${Os.hostname()}-${process.pid}-XyZ789`
        Fs.mkdirSync(Path.join(directory, live))
        Fs.writeFileSync(Path.join(directory, "notes.txt"), "kept")
        const { put, server, token, id } = yield* serve([], directory)
        assert.deepStrictEqual(Fs.readdirSync(directory).sort(), [live, "notes.txt"].sort())
        // Loads, good and bad, leave nothing behind.
        assert.strictEqual((yield* put(good)).status, 200)
        assert.strictEqual((yield* put("region,amount\n\"EU,1\n")).status, 400)
        assert.deepStrictEqual(Fs.readdirSync(directory).sort(), [live, "notes.txt"].sort())
        // A client that hangs up mid-body: its file is removed.
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const url = new URL(`${server.url}/v1/datasets/${id}/data`)
            const request = Http.request({
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              method: "PUT",
              headers: { authorization: `Bearer ${token}`, "content-type": "text/csv", "transfer-encoding": "chunked" }
            })
            request.on("error", () => resolve())
            request.write("region,amount\n" + "EU,1\n".repeat(10_000))
            const waitForFile = setInterval(() => {
              if (Fs.readdirSync(directory).some((n) => n.startsWith(`upload-${Os.hostname()}-${process.pid}-`) && n !== live)) {
                clearInterval(waitForFile)
                request.destroy()
                resolve()
              }
            }, 10)
          })
        )
        const deadline = Date.now() + 10_000
        while (Fs.readdirSync(directory).length > 2 && Date.now() < deadline) yield* Effect.sleep("50 millis")
        assert.deepStrictEqual(Fs.readdirSync(directory).sort(), [live, "notes.txt"].sort())
      }).pipe(Effect.scoped), 120_000)
  })
}
if (databaseUrl === "") describe("strict CSV uploads (PostgreSQL)", () => it.skip(`on PostgreSQL ${skippedForNoPostgres}`, () => {}))
