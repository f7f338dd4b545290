/**
 * Recovering a dataset whose model no longer fits its file (decision 0013,
 * "Recovering from a file that does not fit"), over a real socket on the
 * memory store and DuckDB: a malformed CSV is refused naming its line and
 * field in `errors`; a file whose columns the model does not fit is a
 * `dataset/model-invalid` listing every mismatch and the file's columns,
 * the rows staying; `?model=suggested` replaces the model with the one
 * suggested from the file's columns, keeping the row-level security
 * policies, and refuses (nothing changed) when a policy's dimension is
 * gone; members may not; the OpenAPI document says it; the dataset can
 * then be deleted.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { problemCode, start } from "./TestServer.ts"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

/** The file the model was suggested from before CSV was read strictly: one column, named `a,b`. */
const oneColumn = "\"a,b\"\n\"1,2\"\n"
const good = "region,amount\nEU,1\nUS,2\nEU,4\n"

describe("recovering a dataset from a file its model does not fit", () => {
  const serve = Effect.gen(function*() {
    const server = yield* start(MemoryStores.layer, { engines: { upload: DuckDbEngine.layer(":memory:") } })
    const { token } = yield* server.tenant()
    const workspaceId = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body.workspace_id
    const id = (yield* server.request("POST", "/v1/datasets", { token, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body
      .dataset_id as string
    const put = (body: string, query = "", as = token) =>
      server.request("PUT", `/v1/datasets/${id}/data${query}`, { token: as, body, headers: { "content-type": "text/csv" } })
    const get = Effect.map(server.request("GET", `/v1/datasets/${id}`, { token }), (r) => r.body)
    return { server, token, id, put, get }
  })

  it.live("a malformed file is refused naming its line and field in errors", () =>
    Effect.gen(function*() {
      const { put } = yield* serve
      const refused = yield* put("a,b\n1,2,3\n\"unterminated")
      assert.strictEqual(refused.status, 400, refused.text)
      assert.strictEqual(problemCode(refused), "dataset/source-invalid")
      assert.deepStrictEqual(refused.body.errors, [{
        path: ["body"],
        line: 2,
        field: 3,
        message: "Line 2 of the file has a different number of fields than the header (3 fields where the header has 2)"
      }])
      const quote = yield* put("region,amount\nEU,1\nUS,\"2\n")
      assert.deepInclude(quote.body.errors[0], { line: 3, field: 2 })
      assert.include(quote.body.detail, "Line 3 of the file opens a quoted field that is never closed (field 2)")
    }).pipe(Effect.scoped), 60_000)

  it.live("a file the model does not fit lists every mismatch; ?model=suggested replaces the model, keeping its policies", () =>
    Effect.gen(function*() {
      const { server, token, id, put, get } = yield* serve
      // The state the issue left: a model of one dimension `a_b` reading column `a,b`.
      const stuck = yield* put(oneColumn)
      assert.strictEqual(stuck.status, 200, stuck.text)
      assert.deepStrictEqual(stuck.body.model.dimensions, [{ name: "a_b", type: "string", column: "a,b" }])
      const before = yield* get

      const refused = yield* put(good)
      assert.strictEqual(refused.status, 400, refused.text)
      assert.strictEqual(problemCode(refused), "dataset/model-invalid")
      assert.deepStrictEqual(refused.body.mismatches, [{
        member: "a_b",
        kind: "dimension",
        column: "a,b",
        problem: "missing",
        message: "Dimension \"a_b\" reads column \"a,b\", which the file does not have"
      }])
      assert.deepStrictEqual(refused.body.file_columns, ["region", "amount"])
      assert.include(refused.body.detail, "no row was changed")
      assert.include(refused.body.detail, "\"region\", \"amount\"")
      assert.include(refused.body.detail, "?model=suggested")
      assert.deepStrictEqual(yield* get, before)

      // Every mismatch is listed, not the first alone.
      const described = yield* server.request("PATCH", `/v1/datasets/${id}`, {
        token,
        body: { model: { dimensions: [{ name: "a_b", type: "string", column: "a,b" }], measures: [{ name: "count", aggregation: "count" }, { name: "n", aggregation: "count_distinct", column: "a,b" }] } }
      })
      assert.strictEqual(described.status, 200, described.text)
      const two = yield* put(good)
      assert.deepStrictEqual(two.body.mismatches.map((m: any) => [m.kind, m.member, m.problem]), [["dimension", "a_b", "missing"], ["measure", "n", "missing"]])

      // A policy filtering on a dimension the file does not give: refused, nothing changed.
      const policed = yield* server.request("PATCH", `/v1/datasets/${id}`, {
        token,
        body: { model: { ...before.model, row_level_security: [{ roles: ["admin"], all_rows: true }, { roles: ["member"], filter: { member: "a_b", operator: "equals", values: ["x"] } }] } }
      })
      assert.strictEqual(policed.status, 200, policed.text)
      const lost = yield* put(good, "?model=suggested")
      assert.strictEqual(lost.status, 400, lost.text)
      assert.strictEqual(problemCode(lost), "dataset/model-invalid")
      assert.include(lost.body.detail, "Row-level security policy 2 filters on \"a_b\"")
      assert.include(lost.body.detail, "the model was not replaced")
      assert.deepStrictEqual((yield* get).model, policed.body.model)
      assert.strictEqual((yield* get).row_count, 1)

      // A member may not replace the model; an unknown choice is a 400.
      const user = (yield* server.request("POST", "/v1/users", { token, body: { email: "m@example.com", name: "M" } })).body
      const memberToken = (yield* server.request("POST", `/v1/users/${user.user_id}/tokens`, { token })).body.token as string
      assert.strictEqual(problemCode(yield* put(good, "?model=suggested", memberToken)), "auth/forbidden")
      const bogus = yield* put(good, "?model=guess")
      assert.strictEqual(problemCode(bogus), "request/invalid")
      assert.deepStrictEqual(bogus.body.errors.map((e: any) => e.path), [["query", "model"]])

      // With policies the file's columns keep, the model is replaced and the policies stay.
      const keepable = [{ roles: ["admin"], all_rows: true }]
      assert.strictEqual((yield* server.request("PATCH", `/v1/datasets/${id}`, { token, body: { model: { ...before.model, row_level_security: keepable } } })).status, 200)
      const reset = yield* put(good, "?model=suggested")
      assert.strictEqual(reset.status, 200, reset.text)
      assert.strictEqual(reset.body.row_count, 3)
      assert.deepStrictEqual(reset.body.model, {
        dimensions: [{ name: "region", type: "string" }, { name: "amount", type: "number" }],
        measures: [{ name: "count", aggregation: "count" }, { name: "total_amount", aggregation: "sum", column: "amount" }],
        row_level_security: keepable
      })
      const query = yield* server.request("POST", `/v1/datasets/${id}/query`, { token, body: { dimensions: ["region"], measures: ["total_amount"], order: [{ member: "region" }] } })
      assert.deepStrictEqual(query.body.data, [{ region: "EU", total_amount: 5 }, { region: "US", total_amount: 2 }])
      // The audit entry says the model was replaced, and what it was.
      const audit = (yield* server.request("GET", "/v1/audit-log", { token })).body.data.find((e: any) => e.action === "dataset.data_uploaded")
      assert.strictEqual(audit.detail.model_replaced, true)
      assert.deepStrictEqual(audit.detail.previous_model.row_level_security, keepable)
      // Without ?model=, a file that fits loads as before.
      assert.strictEqual((yield* put(good)).status, 200)

      // Deleting the dataset (tenant admins): its record and rows are gone.
      assert.strictEqual(problemCode(yield* server.request("DELETE", `/v1/datasets/${id}`, { token: memberToken })), "auth/forbidden")
      assert.strictEqual((yield* server.request("DELETE", `/v1/datasets/${id}`, { token })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets/${id}`, { token })), "resource/not-found")
    }).pipe(Effect.scoped), 60_000)

  it.live("the OpenAPI document has the upload, with its model choice and its refusals", () =>
    Effect.gen(function*() {
      const { server } = yield* serve
      const document = (yield* server.request("GET", "/v1/openapi.json")).body
      const upload = document.paths["/v1/datasets/{id}/data"].put
      assert.strictEqual(upload.operationId, "datasets.upload")
      assert.deepStrictEqual(upload.parameters.find((p: any) => p.name === "model").schema.enum, ["keep", "suggested"])
      assert.deepStrictEqual(Object.keys(upload.requestBody.content), ["text/csv", "application/vnd.apache.parquet"])
      assert.includeMembers(Object.keys(upload.responses), ["200", "400", "403", "404", "413", "415"])
      const modelInvalid = document.components.schemas.ModelInvalidEncoded.properties
      assert.includeMembers(Object.keys(modelInvalid), ["mismatches", "file_columns"])
      assert.includeMembers(Object.keys(document.components.schemas.SourceInvalidEncoded.properties), ["errors"])
    }).pipe(Effect.scoped), 60_000)
})
