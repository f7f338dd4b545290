/**
 * No problem body repeats a secret, a password or a server path (decision
 * 0001): validation issues leave out the rejected value of a
 * sensitive field, and an engine's message naming a file on the server is
 * replaced by a generic text (the original is logged).
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"
import * as Redaction from "../src/edge/Redaction.ts"

describe("problem bodies never repeat a secret, a password or a server path", () => {
  it.live("a too-short webhook secret or link password: 400 naming the field, never its value; other values are still named", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const secret = "s3cr3t-Zq9"
      const created = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/in", events: ["alert.fire"], secret } })
      assert.strictEqual(created.status, 400)
      assert.strictEqual(problemCode(created), "request/invalid")
      assert.deepStrictEqual(created.body.errors.map((e: any) => e.path), [["payload", "secret"]])
      assert.match(created.body.errors[0].message, /at least 24/)
      assert.notInclude(created.text, secret)
      // A secret with a character outside printable ASCII: the same.
      const control = `${secret}\u0007-padding-to-24-chars`
      const withControl = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/in", events: ["alert.fire"], secret: control } })
      assert.strictEqual(withControl.status, 400)
      assert.notInclude(withControl.text, secret)

      const hook = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/in", events: ["alert.fire"] } })
      const rotated = yield* server.request("POST", `/v1/webhooks/${hook.body.webhook_id}/rotate-secret`, { token, body: { secret } })
      assert.strictEqual(rotated.status, 400)
      assert.notInclude(rotated.text, secret)

      const workspace = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Board" } })
      const report = yield* server.request("POST", "/v1/reports", { token, body: { workspace_id: workspace.body.workspace_id, name: "Board pack" } })
      const link = { subject_type: "report", subject_id: report.body.report_id, principal_type: "link", actions: ["view"] }
      const password = "pw-7Qz"
      const grant = yield* server.request("POST", "/v1/sharing/grants", { token, body: { ...link, password } })
      assert.strictEqual(grant.status, 400)
      assert.deepStrictEqual(grant.body.errors.map((e: any) => e.path), [["payload", "password"]])
      assert.match(grant.body.errors[0].message, /at least 8/)
      assert.notInclude(grant.text, password)
      const wrongType = yield* server.request("POST", "/v1/sharing/grants", { token, body: { ...link, password: 1234567 } })
      assert.strictEqual(wrongType.status, 400)
      assert.notInclude(wrongType.text, "1234567")
      const made = yield* server.request("POST", "/v1/sharing/grants", { token, body: link })
      const changed = yield* server.request("PATCH", `/v1/sharing/grants/${made.body.grant_id}`, { token, body: { password } })
      assert.strictEqual(changed.status, 400)
      assert.notInclude(changed.text, password)

      // A value that is no secret is still repeated back, to say what was wrong.
      const badAction = yield* server.request("POST", "/v1/sharing/grants", { token, body: { ...link, actions: ["view", "fly"] } })
      assert.strictEqual(badAction.status, 400)
      assert.include(badAction.text, '\\"fly\\"')
    }).pipe(Effect.scoped))

  it.live("an engine's message naming a file on the server: the problem says so generically, with no path", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, { engines: { upload: DuckDbEngine.layer(":memory:") } })
      const { token } = yield* server.tenant()
      const workspace = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })
      const dataset = yield* server.request("POST", "/v1/datasets", { token, body: { workspace_id: workspace.body.workspace_id, name: "Orders", source: { type: "upload" } } })
      const hook = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/in", events: ["dataset.refresh.failed"] } })
      // Not a Parquet file: DuckDB's message names the temporary file it was written to.
      const refused = yield* server.request("PUT", `/v1/datasets/${dataset.body.dataset_id}/data`, {
        token,
        body: "PAR1 but not really",
        headers: { "content-type": "application/vnd.apache.parquet" }
      })
      assert.strictEqual(refused.status, 400, refused.text)
      assert.strictEqual(problemCode(refused), "dataset/source-invalid")
      assert.isFalse(Redaction.namesServerPath(refused.text), refused.text)
      assert.notMatch(refused.text, /\/tmp|analytics-upload|rows\.parquet|read_parquet/)
      assert.strictEqual(
        refused.body.detail,
        "The dataset's source cannot be read. The details name a file on the server: they are in the service's log under this problem's request_id."
      )
      assert.isString(refused.body.request_id)
      // Its dataset.refresh.failed event names no path either.
      const deliveries = yield* server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token })
      assert.deepStrictEqual(deliveries.body.data.map((d: any) => d.event.data.error), [
        { code: "dataset/source-invalid", message: "The dataset's source cannot be read; the service's log has the details" }
      ])
      // A path the client sent itself is its own text, repeated back as ever.
      const probe = yield* server.request("GET", `/v1/webhooks/${encodeURIComponent("../../etc/passwd")}`, { token })
      assert.strictEqual(problemCode(probe), "resource/not-found")
      assert.include(probe.body.detail, "../../etc/passwd")
    }).pipe(Effect.scoped))
})

describe("Redaction", () => {
  it("finds paths on a file system, not the API's routes, URLs or media types", () => {
    for (
      const path of [
        "IO Error: No files found that match the pattern \"/tmp/analytics-upload-x/rows.csv\"",
        "DuckDB could not open /var/lib/analytics/analytics.duckdb",
        "read_parquet('/home/svc/.data/exports/a.parquet')",
        "Could not set lock on file \".data/analytics.duckdb\"",
        "see ./exports/job.csv",
        "C:\\data\\analytics.duckdb",
        "file:///srv/data/x"
      ]
    ) assert.isTrue(Redaction.namesServerPath(path), path)
    for (
      const text of [
        "PUT a CSV or Parquet file to /v1/datasets/0199/data",
        "Only https://hooks.example.com/in URLs",
        "Send text/csv or application/vnd.apache.parquet",
        "GET /v1/jobs/{job_id}/result gives a new one",
        "The link /s/abc is paused",
        "tag:analytics-service,2026:problem/rate-limit/burst-exceeded",
        "Expected a value with a length of at least 24",
        "0.5/1 of the rows"
      ]
    ) assert.isFalse(Redaction.namesServerPath(text), text)
  })

  it("scrubProblem: a detail naming a path of the server is replaced; one the client sent is kept", () => {
    const problem = { title: "The dataset's source cannot be read", detail: "IO Error: '/tmp/u-1/rows.csv' is not a CSV", code: "dataset/source-invalid" }
    const scrubbed = Redaction.scrubProblem(problem, ["/v1/datasets/x/data"])
    assert.deepStrictEqual(scrubbed?.body, { ...problem, detail: Redaction.withheldDetail(problem.title) })
    assert.strictEqual(scrubbed?.withheld, problem.detail)
    assert.isUndefined(Redaction.scrubProblem({ detail: "No webhook ../../etc/passwd" }, ["/v1/webhooks/../../etc/passwd"]))
    assert.isUndefined(Redaction.scrubProblem({ detail: "PUT a file to /v1/datasets/x/data" }))
  })

  it("leaves out the value of a sensitive field, whoever put it in the message", () => {
    assert.strictEqual(Redaction.withoutEchoedValue("Expected a value with a length of at least 8, got \"ab\"", true), "Expected a value with a length of at least 8")
    assert.strictEqual(Redaction.withoutEchoedValue("Expected \"view\", got \"fly\"", false), "Expected \"view\", got \"fly\"")
    // A check on a parent echoing the whole object, secret included.
    assert.strictEqual(Redaction.withoutEchoedValue("Expected a link, got {\"password\":\"ab\"}", false), "Expected a link")
    for (const key of ["password", "secret", "client_secret", "token", "api_key", "apiKey", "private_key", "passphrase"]) {
      assert.isTrue(Redaction.isSensitivePath(["payload", key]), key)
    }
    assert.isFalse(Redaction.isSensitivePath(["payload", "actions", 1]))
  })
})
