/**
 * `npm run bench:query`: semantic queries over 10M rows on DuckDB, through
 * the full stack (`POST /v1/datasets/{id}/query` over HTTP to the service in
 * a child process: authentication,
 * rate limits, the per-workspace query slot, row-level security, plan,
 * compile, `DuckDbEngine.run`, JSON), through the semantic layer alone, and
 * as the same queries written by hand run directly on DuckDB, in one run,
 * in interleaved rounds (medians reported). Also the time to plan and
 * compile one query.
 *
 * Environment:
 * - `BENCH_ROWS`   rows in the table (default 10,000,000)
 * - `BENCH_ROUNDS` interleaved rounds (default 5)
 * - `BENCH_WARMUPS` times each query is asked over HTTP of a 1,000-row sample
 *   dataset before it is measured (default 300), so that the service's
 *   request path is optimised, as in a process that has been serving
 *
 * The service runs in a child process (`service.ts`), as a host would:
 * the runner's client and its own DuckDB work stay off its event loop.
 *
 * Results are printed and written to `bench/query/last-run.json`.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { V8Flags } from "@analytics/adapter-node"
import { AnalyticsEngine, SemanticModel, SemanticQuery, SqlCompiler } from "@analytics/core"
import { DuckDBInstance } from "@duckdb/node-api"
import { Context, Effect, Layer } from "effect"
import { fork } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeRunRecord } from "../RunRecord.ts"


const rows = Number(process.env["BENCH_ROWS"] ?? 10_000_000)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
/** Rows of the sample dataset, and how many times each case's query is asked of it before measuring. */
const sampleRows = 1_000
const warmups = Number(process.env["BENCH_WARMUPS"] ?? 300)

const modelJson: SemanticModel.Model = {
  dimensions: [
    { name: "region", type: "string" },
    { name: "product", type: "string" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" },
    { name: "per_order", expression: "revenue / orders" }
  ],
  row_level_security: [{ filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }]
}
const model = SemanticModel.check(modelJson) as SemanticModel.CheckedModel

/**
 * The service in a child process (`service.ts`) on a loopback port, on the host's V8 flags; the
 * rows uploaded as Parquet through the API, and a small copy as a second dataset; a query
 * function over HTTP for either.
 */
const startService = async (dir: string, parquet: string, smallParquet: string) => {
  const operatorToken = "bench-operator"
  const child = fork(join(import.meta.dirname, "service.ts"), [], {
    execArgv: ["--disable-warning=ExperimentalWarning", ...V8Flags.serving],
    env: { ...process.env, BENCH_DIR: dir, BENCH_OPERATOR_TOKEN: operatorToken },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port))
    child.once("exit", (code) => reject(new Error(`The service exited (${code})`)))
  })
  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, path: string, token: string, body?: unknown, contentType = "application/json") => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? new Blob([new Uint8Array(body)]) : JSON.stringify(body) })
    })
    const json = await response.json() as any
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
    return json
  }
  const { token } = await call("POST", "/v1/tenants", operatorToken, { name: "Bench", plan: "scale" })
  const workspace = await call("POST", "/v1/workspaces", token, { name: "Bench" })
  // The tenant's admin token calls the API: a policy for admins binds them to the same three regions as the layer's principal.
  const serviceModel = {
    ...modelJson,
    row_level_security: [{ roles: ["admin"], filter: { member: "region", operator: "equals", values: ["EU", "US", "APAC"] } }]
  }
  const upload = async (name: string, file: string) => {
    const dataset = await call("POST", "/v1/datasets", token, { workspace_id: workspace.workspace_id, name, source: { type: "upload" }, model: serviceModel })
    await call("PUT", `/v1/datasets/${dataset.dataset_id}/data`, token, readFileSync(file), "application/vnd.apache.parquet")
    return dataset.dataset_id as string
  }
  const t0 = performance.now()
  const sales = await upload("Sales", parquet)
  console.log(`uploaded as Parquet through the API in ${Math.round(performance.now() - t0)} ms`)
  const sample = await upload("Sales sample", smallParquet)
  // One keep-alive connection, the request's head and body in one write (fetch writes the body after the head, a
  // turn of the runner's loop later, and the service would wait for it).
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
  const queryOf = (datasetId: string) => (q: SemanticQuery.Query) =>
    new Promise<Array<unknown>>((resolve, reject) => {
      const body = JSON.stringify(q)
      const path = `/v1/datasets/${datasetId}/query`
      const request = Http.request(`${base}${path}`, {
        method: "POST",
        agent,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          if (response.statusCode !== 200) reject(new Error(`POST ${path} answered ${response.statusCode}: ${text}`))
          else resolve((JSON.parse(text) as { data: Array<unknown> }).data)
        })
      })
      request.on("error", reject)
      request.end(body)
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      agent.destroy()
      child.once("exit", () => resolve())
      child.disconnect()
    })
  return { query: queryOf(sales), querySample: queryOf(sample), stop }
}

const security: SemanticQuery.SecurityContext = { roles: [], attributes: { region: ["EU", "US", "APAC"] } }
const now = new Date("2025-01-01T00:00:00Z")

/** Each case: a semantic query, and the SQL a person would write for it. */
const cases: ReadonlyArray<{ readonly name: string; readonly query: SemanticQuery.Query; readonly direct: string }> = [
  {
    name: "by region",
    query: { measures: ["revenue", "orders", "per_order"], dimensions: ["region"] },
    direct: `SELECT region, SUM(amount) AS revenue, COUNT(*) AS orders, SUM(amount) / NULLIF(COUNT(*), 0) AS per_order
      FROM sales WHERE region IN ('EU', 'US', 'APAC') GROUP BY region ORDER BY revenue DESC LIMIT 10000`
  },
  {
    name: "by month, 2024",
    query: { measures: ["revenue"], time_dimensions: [{ dimension: "ordered_at", granularity: "month", date_range: ["2024-01-01", "2024-12-31"] }] },
    direct: `SELECT date_trunc('month', ordered_at) AS m, SUM(amount) AS revenue FROM sales
      WHERE region IN ('EU', 'US', 'APAC') AND ordered_at >= TIMESTAMP '2024-01-01' AND ordered_at < TIMESTAMP '2025-01-01'
      GROUP BY m ORDER BY m LIMIT 10000`
  },
  {
    name: "by region and product, filtered",
    query: {
      measures: ["revenue"],
      dimensions: ["region", "product"],
      filters: [{ member: "product", operator: "starts_with", values: ["p1"] }, { member: "revenue", operator: "gt", values: [1000] }]
    },
    direct: `SELECT region, product, SUM(amount) AS revenue FROM sales
      WHERE region IN ('EU', 'US', 'APAC') AND lower(left(product, 2)) = 'p1'
      GROUP BY region, product HAVING SUM(amount) > 1000 ORDER BY revenue DESC LIMIT 10000`
  }
]

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => Math.round(x * 100) / 100

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-query-"))
  try {
    const path = join(dir, "bench.duckdb")
    const setup = await DuckDBInstance.create(path)
    const loader = await setup.connect()
    const t0 = performance.now()
    await loader.run(`CREATE TABLE sales AS SELECT
        (['EU', 'US', 'APAC', 'LATAM'])[(range % 4) + 1] AS region,
        'p' || (range % 50) AS product,
        TIMESTAMP '2023-01-01' + to_seconds((hash(range) % 63072000)::BIGINT) AS ordered_at,
        ((range * 7919) % 10000) / 100.0 AS amount
      FROM range(${rows})`)
    console.log(`${rows.toLocaleString()} rows loaded in ${Math.round(performance.now() - t0)} ms`)
    const parquet = join(dir, "sales.parquet")
    await loader.run(`COPY sales TO '${parquet}' (FORMAT parquet)`)
    const smallParquet = join(dir, "sample.parquet")
    await loader.run(`COPY (SELECT * FROM sales LIMIT ${sampleRows}) TO '${smallParquet}' (FORMAT parquet)`)
    // Read back from the Parquet file, as the service imports it, so that all three read the same layout.
    await loader.run(`CREATE OR REPLACE TABLE sales AS SELECT * FROM read_parquet('${parquet}')`)
    loader.closeSync()
    setup.closeSync()
    const service = await startService(dir, parquet, smallParquet)

    const figures = await Effect.runPromise(Effect.orDie(Effect.scoped(Effect.gen(function*() {
      const engine = Context.get(yield* Layer.build(DuckDbEngine.layer(path)), AnalyticsEngine.AnalyticsEngine)
      const direct = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const instance = await DuckDBInstance.create(":memory:")
          const connection = await instance.connect()
          await connection.run(`ATTACH '${path}' AS bench (READ_ONLY); USE bench`)
          return { instance, connection }
        }),
        ({ connection, instance }) => Effect.sync(() => (connection.closeSync(), instance.closeSync()))
      )
      const directRun = (text: string) => Effect.promise(() => direct.connection.runAndReadAll(text).then((r) => r.getRowsJS()))
      const viaLayer = (query: SemanticQuery.Query) =>
        Effect.suspend(() => {
          const plan = SemanticQuery.plan(model, query, security, now) as SemanticQuery.Plan
          return engine.run(SqlCompiler.compile(plan, { table: ["sales"] }, engine.dialect))
        })
      const timed = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          const start = performance.now()
          const result = yield* effect
          return { millis: performance.now() - start, result }
        })
      const results = []
      for (const c of cases) {
        const ours: Array<number> = []
        const http: Array<number> = []
        const theirs: Array<number> = []
        // A serving process has run its request path many times: the case's query on the sample first, until the code is optimised.
        for (let i = 0; i < warmups; i++) yield* Effect.promise(() => service.querySample(c.query))
        // Warm-up, and the answers must agree.
        const a = yield* viaLayer(c.query)
        const b = yield* directRun(c.direct)
        const h = yield* Effect.promise(() => service.query(c.query))
        if (a.length !== b.length || h.length !== b.length) {
          throw new Error(`${c.name}: ${h.length} rows over HTTP, ${a.length} through the layer, ${b.length} directly`)
        }
        for (let round = 0; round < rounds; round++) {
          http.push((yield* timed(Effect.promise(() => service.query(c.query)))).millis)
          ours.push((yield* timed(viaLayer(c.query))).millis)
          theirs.push((yield* timed(directRun(c.direct))).millis)
        }
        const row = {
          case: c.name,
          rows: a.length,
          httpMs: ms(median(http)),
          layerMs: ms(median(ours)),
          directMs: ms(median(theirs)),
          ratio: ms(median(http) / median(theirs)),
          layerRatio: ms(median(ours) / median(theirs))
        }
        console.log(
          `${row.case.padEnd(32)} http ${String(row.httpMs).padStart(8)} ms   layer ${String(row.layerMs).padStart(8)} ms   direct ${String(row.directMs).padStart(8)} ms   http/direct ${row.ratio}x   layer/direct ${row.layerRatio}x`
        )
        results.push(row)
      }
      // Planning and compiling alone.
      const n = 20_000
      const start = performance.now()
      for (let i = 0; i < n; i++) {
        const c = cases[i % cases.length]!
        SqlCompiler.compile(SemanticQuery.plan(model, c.query, security, now) as SemanticQuery.Plan, { table: ["sales"] }, engine.dialect)
      }
      const compileMicros = ((performance.now() - start) / n) * 1000
      console.log(`plan + compile: ${compileMicros.toFixed(1)} µs per query (bar: < 1 ms)`)
      return { results, compileMicros: Math.round(compileMicros * 10) / 10 }
    }))))
    const worst = Math.max(...figures.results.map((r) => r.ratio))
    await service.stop()
    console.log(`worst ratio, full stack over HTTP against direct: ${worst}x (bar: <= 1.1x)`)
    console.log(`written to ${writeRunRecord(import.meta.dirname, { settings: { rows, rounds, warmups, sampleRows }, ...figures, worstRatio: worst })}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
