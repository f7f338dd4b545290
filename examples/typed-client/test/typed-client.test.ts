/**
 * The typed client's tour against a real `analytics-host` process on a
 * socket (memory store, demo data), as a user runs it.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { tour } from "../src/main.ts"

const bin = fileURLToPath(import.meta.resolve("@analytics/host/bin"))
const token = "ast_typed_client_example"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

describe("the typed client", () => {
  let host: ChildProcess
  let output = ""
  let baseUrl = ""

  beforeAll(async () => {
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    host = spawn(process.execPath, [bin, "serve"], {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        PUBLIC_BASE_URL: baseUrl,
        ANALYTICS_STORE: "memory",
        ANALYTICS_DEMO: "1",
        ANALYTICS_BOOTSTRAP_TOKEN: token,
        LOG_LEVEL: "warn"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    host.stdout!.on("data", (chunk) => (output += chunk))
    host.stderr!.on("data", (chunk) => (output += chunk))
    // Ready once the demo report exists (the port opens before storage and the demo are ready).
    const deadline = Date.now() + 110_000
    while (Date.now() < deadline && host.exitCode === null) {
      const answer = await fetch(`${baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })
        .then((r) => r.ok ? r.json() : undefined, () => undefined)
      if (answer?.data?.length > 0) {
        const reports = await fetch(`${baseUrl}/v1/reports?workspace_id=${answer.data[0].workspace_id}`, {
          headers: { authorization: `Bearer ${token}` }
        }).then((r) => r.json())
        if (reports.data?.length > 0) return
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    throw new Error(`the host did not get ready:\n${output}`)
  }, 120_000)

  afterAll(async () => {
    if (host === undefined || host.exitCode !== null) return
    const exited = new Promise((resolve) => host.once("exit", resolve))
    host.kill("SIGTERM")
    await exited
  })

  it("lists and creates workspaces, queries, sees a typed problem, exports and polls", async () => {
    const seen = await Effect.runPromise(tour({ baseUrl, token }))

    assert.include(seen.workspaces, "Demo workspace")
    // The Idempotency-Key sent twice made one workspace.
    assert.isTrue(seen.created.replayed)
    const after = await fetch(`${baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json())
    assert.strictEqual(after.data.filter((w: { name: string }) => w.name === "Typed client").length, 1)

    assert.deepStrictEqual(seen.revenueByRegion.map((r) => r.region), ["APAC", "EU", "LATAM", "US"])
    assert.isTrue(seen.revenueByRegion.every((r) => r.revenue > 0))

    assert.deepStrictEqual(seen.refusal, { tag: "QueryInvalid", code: "query/invalid", member: "profit" })

    assert.strictEqual(seen.export.filename, "revenue_by_region.csv")
    const [header, ...rows] = seen.export.csv.trim().split(/\r?\n/)
    assert.strictEqual(header, "region,revenue")
    // The file holds the numbers the query endpoint answered.
    const fromFile = new Map(rows.map((line) => [line.split(",")[0], Number(line.split(",")[1])]))
    for (const { region, revenue } of seen.revenueByRegion) assert.approximately(fromFile.get(region)!, revenue, 1e-6)
  }, 60_000)

  it("a wrong token is the typed Unauthenticated problem", async () => {
    const failure = await Effect.runPromise(Effect.flip(tour({ baseUrl, token: "ast_not_a_token" })))
    assert.strictEqual((failure as { _tag?: string })._tag, "Unauthenticated")
  })
})
