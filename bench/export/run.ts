/**
 * `npm run bench:export`: CSV and Parquet exports of a visual of
 * `BENCH_ROWS` rows through the whole service (`POST
 * /v1/reports/{id}/export`, polled until it succeeds, the file downloaded
 * at its signed URL and its rows counted) against DuckDB's own `COPY … TO`
 * of the same query in the same run, each in its own process with the
 * same DuckDB memory limit and threads; rows/s and the peak resident
 * memory of the process doing the export. Then a 20-page PDF with two
 * charts a page through the same path.
 *
 * Environment:
 * - `BENCH_ROWS`          rows of the visual (default 10,000,000; 100,000,000 for the big run)
 * - `BENCH_ROUNDS`        interleaved rounds, medians reported (default 3)
 * - `BENCH_MEMORY_LIMIT`  DuckDB's memory_limit on both sides (default 256MB)
 * - `BENCH_THREADS`       DuckDB's threads on both sides (default: DuckDB's, one per core)
 * - `BENCH_ONLY`          `csv`, `parquet` or `pdf` (comma-separated) to run a part
 * - `BENCH_DIR`           where the data and files go (default: a new directory under the system's temp)
 *
 * Results are printed and written to `bench/export/last-run.json`.
 */
import { SemanticModel, SemanticQuery, SqlCompiler, SqlDialect } from "@analytics/core"
import { DuckDBInstance } from "@duckdb/node-api"
import { asyncBufferFromFile, parquetMetadataAsync } from "hyparquet"
import { execFileSync, fork } from "node:child_process"
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { writeRunRecord } from "../RunRecord.ts"

const rows = Number(process.env["BENCH_ROWS"] ?? 10_000_000)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 3)
const memoryLimit = process.env["BENCH_MEMORY_LIMIT"] ?? "256MB"
const threads = process.env["BENCH_THREADS"] ?? ""
const only = new Set((process.env["BENCH_ONLY"] ?? "csv,parquet,pdf").split(","))
const operatorToken = "bench-operator"

/** The model of the sales rows; admins see every row. */
const model: SemanticModel.Model = {
  dimensions: [
    { name: "order_id", type: "number" },
    { name: "region", type: "string" },
    { name: "product", type: "string" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [{ name: "revenue", aggregation: "sum", column: "amount" }, { name: "orders", aggregation: "count" }],
  row_level_security: [{ roles: ["admin"], all_rows: true }]
}
/** The exported visual: one row per order (no limit named: every row), by order id. */
const exportQuery: SemanticQuery.Query = {
  dimensions: ["order_id", "region", "product"],
  time_dimensions: [{ dimension: "ordered_at", granularity: "second" }],
  measures: ["revenue"],
  order: [{ member: "order_id" }]
}

/** A size of `/proc/<pid>/status`, in bytes. */
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024

/** Resident memory of a process: now, and its peak since the last reset (Linux: `VmHWM`, reset by writing 5 to `clear_refs`). */
const peak = {
  reset: (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, "5"),
  now: (pid: number) => status(pid, "VmRSS"),
  read: (pid: number) => status(pid, "VmHWM")
}

/** CPU seconds a process has used, all its threads (`/proc/<pid>/stat`: utime and stime, in clock ticks of 1/100 s). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)
const round2 = (x: number) => Math.round(x * 100) / 100

/** The service in a child process, and an API client on it. */
const startService = async (dir: string) => {
  const child = fork(join(import.meta.dirname, "service.ts"), [], {
    env: { ...process.env, BENCH_DIR: dir, BENCH_MEMORY_LIMIT: memoryLimit, BENCH_THREADS: threads },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: any) => resolve(m.port))
    child.once("exit", (code) => reject(new Error(`The service exited (${code})`)))
  })
  child.on("exit", (code, signal) => console.error(`the service exited: ${code ?? signal}`))
  const base = `http://127.0.0.1:${port}`
  let token = operatorToken
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      ...(body === undefined ? {} : body instanceof Readable ? { body: Readable.toWeb(body) as any, duplex: "half" } : { body: typeof body === "string" ? body : JSON.stringify(body) })
    } as RequestInit)
    const json = await response.json() as any
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
    return json
  }
  token = (await call("POST", "/v1/tenants", { name: "Bench", plan: "scale" })).token
  return { child, base, call, stop: () => child.kill() }
}

type Service = Awaited<ReturnType<typeof startService>>

/** Exports, polls every 250 ms until done; the job's end-to-end and run times, and the peak memory of the service meanwhile. */
const exportJob = async (service: Service, reportId: string, request: object) => {
  peak.reset(service.child.pid!)
  const baselineBytes = peak.now(service.child.pid!)
  const cpuBefore = cpuSeconds(service.child.pid!)
  const start = performance.now()
  const { job_id } = await service.call("POST", `/v1/reports/${reportId}/export`, request)
  let job: any
  while (true) {
    job = await service.call("GET", `/v1/jobs/${job_id}`)
    if (job.status === "succeeded" || job.status === "failed" || job.status === "canceled") break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const seconds = (performance.now() - start) / 1000
  const cpu = cpuSeconds(service.child.pid!) - cpuBefore
  const peakBytes = peak.read(service.child.pid!)
  if (job.status !== "succeeded") throw new Error(`Export ${JSON.stringify(request)} ended ${job.status}: ${JSON.stringify(job.error)}`)
  const runSeconds = (new Date(job.finished_at).getTime() - new Date(job.started_at).getTime()) / 1000
  return { job_id, seconds, cpu, runSeconds, peakBytes, baselineBytes, bytes: job.result.bytes as number }
}

/** Downloads a result at its signed URL to `path`; the seconds it took. */
const download = async (service: Service, jobId: string, path: string) => {
  const { url } = await service.call("GET", `/v1/jobs/${jobId}/result`)
  const start = performance.now()
  const response = await fetch(`${service.base}${new URL(url).pathname}${new URL(url).search}`)
  if (response.status !== 200) throw new Error(`The result answered ${response.status}`)
  await pipeline(Readable.fromWeb(response.body as any), createWriteStream(path))
  return (performance.now() - start) / 1000
}

/** Lines of a CSV file (CRLF-ended records; no field here holds a line break). */
const csvRecords = async (path: string) => {
  let lines = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
  }
  return lines
}

/** Rows of a Parquet file, from its footer, read by hyparquet. */
const parquetRows = async (path: string) => Number((await parquetMetadataAsync(await asyncBufferFromFile(path))).num_rows)

/** DuckDB's own COPY of the same query in a child process: seconds, bytes, peak memory. */
const peerCopy = (db: string, dir: string, format: "csv" | "parquet", compiled: SqlCompiler.Compiled) => {
  const output = join(dir, `peer.${format}`)
  const out = execFileSync(process.execPath, [join(import.meta.dirname, "peer.ts")], {
    env: {
      ...process.env,
      BENCH_DB: db,
      BENCH_SQL: compiled.sql,
      BENCH_PARAMS: JSON.stringify(compiled.params),
      BENCH_FORMAT: format,
      BENCH_OUTPUT: output,
      BENCH_MEMORY_LIMIT: memoryLimit,
      BENCH_THREADS: threads,
      BENCH_SPILL: join(dir, "peer-spill")
    },
    encoding: "utf8",
    maxBuffer: 1 << 20
  })
  rmSync(output, { force: true })
  return JSON.parse(out) as { seconds: number; cpuSeconds: number; bytes: number; maxRssBytes: number }
}

/** 20 pages of two charts each over a small dataset, for the PDF. */
const chartPages = (datasetId: string) =>
  Array.from({ length: 20 }, (_, p) => ({
    name: `Page ${p + 1}`,
    visuals: [
      {
        id: `bars_${p + 1}`,
        type: "bar",
        title: `Revenue by product, page ${p + 1}`,
        dataset_id: datasetId,
        query: { measures: ["revenue"], dimensions: ["product"], order: [{ member: "product" }] },
        encoding: { x: "product", y: ["revenue"] }
      },
      {
        id: `line_${p + 1}`,
        type: "line",
        title: `Revenue by month, page ${p + 1}`,
        dataset_id: datasetId,
        query: { measures: ["revenue"], time_dimensions: [{ dimension: "ordered_at", granularity: "month" }] },
        encoding: { x: "ordered_at__month", y: ["revenue"] }
      }
    ]
  }))

const main = async () => {
  const dir = process.env["BENCH_DIR"] ?? mkdtempSync(join(tmpdir(), "bench-export-"))
  mkdirSync(dir, { recursive: true })
  let service: Service | undefined
  try {
    console.log(`${rows.toLocaleString()} rows, ${rounds} rounds, DuckDB memory_limit ${memoryLimit}, threads ${threads || "DuckDB's default"}, in ${dir}`)
    // The rows, written to Parquet, and the peer's table read back from that file as the service imports it (same layout).
    const db = join(dir, "bench.duckdb")
    const parquet = join(dir, "sales.parquet")
    {
      const t0 = performance.now()
      const instance = await DuckDBInstance.create(db, { memory_limit: memoryLimit === "" ? "4GB" : memoryLimit, temp_directory: join(dir, "load-spill") })
      const loader = await instance.connect()
      await loader.run(`COPY (SELECT range AS order_id,
          (['EU', 'US', 'APAC', 'LATAM'])[(range % 4) + 1] AS region,
          'p' || (range % 50) AS product,
          TIMESTAMP '2023-01-01' + to_seconds((hash(range) % 63072000)::BIGINT) AS ordered_at,
          ((range * 7919) % 10000) / 100.0 AS amount
        FROM range(${rows})) TO '${parquet}' (FORMAT parquet)`)
      await loader.run(`CREATE OR REPLACE TABLE sales AS SELECT * FROM read_parquet('${parquet}')`)
      loader.closeSync()
      instance.closeSync()
      console.log(`rows made in ${Math.round(performance.now() - t0)} ms (Parquet ${mb(statSync(parquet).size)} MB)`)
    }
    service = await startService(dir)
    const workspace = await service.call("POST", "/v1/workspaces", { name: "Bench" })
    const sales = await service.call("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Sales", source: { type: "upload" }, model })
    let t0 = performance.now()
    await service.call("PUT", `/v1/datasets/${sales.dataset_id}/data`, createReadStream(parquet), "application/vnd.apache.parquet")
    console.log(`uploaded through the API in ${Math.round(performance.now() - t0)} ms`)
    const sample = await service.call("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Sample", source: { type: "upload" }, model })
    const sampleCsv = ["order_id,region,product,ordered_at,amount", ...Array.from({ length: 10_000 }, (_, i) =>
      `${i},${["EU", "US", "APAC"][i % 3]},p${i % 12},${new Date(Date.UTC(2024, 0, 1) + i * 3_000_000).toISOString().slice(0, 19).replace("T", " ")},${(i % 100) / 4}`)].join("\n")
    await service.call("PUT", `/v1/datasets/${sample.dataset_id}/data`, sampleCsv, "text/csv")
    const report = await service.call("POST", "/v1/reports", {
      workspace_id: workspace.workspace_id,
      name: "Export bench",
      pages: [
        { name: "Orders", visuals: [{ id: "orders", type: "table", dataset_id: sales.dataset_id, query: exportQuery }] },
        ...chartPages(sample.dataset_id)
      ]
    })

    // The peer's query: the same plan and compile as the service (an admin: every row), without the display limit.
    const plan = SemanticQuery.plan(SemanticModel.check(model) as SemanticModel.CheckedModel, exportQuery, { roles: ["admin"], attributes: {} }, new Date())
    const compiledWithLimit = SqlCompiler.compile(plan as SemanticQuery.Plan, { table: ["sales"] }, SqlDialect.duckdb)
    const compiled = { ...compiledWithLimit, sql: compiledWithLimit.sql.replace(new RegExp(`\\nLIMIT ${SemanticQuery.defaultLimit}$`), "") }

    const results: Array<Record<string, unknown>> = []
    for (const format of ["csv", "parquet"] as const) {
      if (!only.has(format)) continue
      const ours: Array<Awaited<ReturnType<typeof exportJob>> & { downloadSeconds: number }> = []
      const peers: Array<ReturnType<typeof peerCopy>> = []
      for (let r = 0; r < rounds; r++) {
        const job = await exportJob(service, report.report_id, { format, visual_id: "orders" })
        const file = join(dir, `ours.${format}`)
        const downloadSeconds = await download(service, job.job_id, file)
        const counted = format === "csv" ? (await csvRecords(file)) - 1 : await parquetRows(file)
        if (counted !== rows) throw new Error(`The ${format} export holds ${counted} rows, not ${rows}`)
        rmSync(file)
        rmSync(join(dir, "exports"), { recursive: true, force: true }) // the kept result: disk, not the bench's concern
        ours.push({ ...job, downloadSeconds })
        const peer = peerCopy(db, dir, format, compiled)
        peers.push(peer)
        console.log(
          `${format} round ${r + 1}: ours ${job.seconds.toFixed(2)} s, CPU ${job.cpu.toFixed(2)} s (job run ${job.runSeconds.toFixed(2)} s, download ${downloadSeconds.toFixed(2)} s, ${mb(job.bytes)} MB, peak ${mb(job.peakBytes)} MB from ${mb(job.baselineBytes)} MB)   DuckDB COPY ${peer.seconds.toFixed(2)} s, CPU ${peer.cpuSeconds.toFixed(2)} s (${mb(peer.bytes)} MB, peak ${mb(peer.maxRssBytes)} MB)`
        )
      }
      const row = {
        format,
        rows,
        oursSeconds: round2(median(ours.map((o) => o.seconds))),
        oursJobRunSeconds: round2(median(ours.map((o) => o.runSeconds))),
        oursDownloadSeconds: round2(median(ours.map((o) => o.downloadSeconds))),
        oursRowsPerSecond: Math.round(rows / median(ours.map((o) => o.seconds))),
        oursPeakRssMB: mb(Math.max(...ours.map((o) => o.peakBytes))),
        oursRssBeforeMB: mb(median(ours.map((o) => o.baselineBytes))),
        oursBytes: ours[0]!.bytes,
        peerSeconds: round2(median(peers.map((p) => p.seconds))),
        peerRowsPerSecond: Math.round(rows / median(peers.map((p) => p.seconds))),
        peerPeakRssMB: mb(Math.max(...peers.map((p) => p.maxRssBytes))),
        peerBytes: peers[0]!.bytes,
        ratio: round2(median(peers.map((p) => p.seconds)) / median(ours.map((o) => o.seconds))),
        oursCpuSeconds: round2(median(ours.map((o) => o.cpu))),
        peerCpuSeconds: round2(median(peers.map((p) => p.cpuSeconds))),
        cpuRatio: round2(median(peers.map((p) => p.cpuSeconds)) / median(ours.map((o) => o.cpu)))
      }
      console.log(
        `${format}: ours ${row.oursRowsPerSecond.toLocaleString()} rows/s, peak ${row.oursPeakRssMB} MB (${row.oursRssBeforeMB} MB before); DuckDB COPY ${row.peerRowsPerSecond.toLocaleString()} rows/s, peak ${row.peerPeakRssMB} MB; ours/COPY ${row.ratio}x (bar >= 0.8x); CPU time COPY/ours ${row.cpuRatio}x`
      )
      results.push(row)
    }

    let pdf: Record<string, unknown> | undefined
    if (only.has("pdf")) {
      const pages = chartPages("").map((p) => p.name)
      const times: Array<Awaited<ReturnType<typeof exportJob>>> = []
      let pageCount = 0
      for (let r = 0; r < rounds; r++) {
        const job = await exportJob(service, report.report_id, { format: "pdf", pages })
        const file = join(dir, "ours.pdf")
        await download(service, job.job_id, file)
        pageCount = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))![1])
        rmSync(file)
        times.push(job)
        console.log(`pdf round ${r + 1}: ${job.seconds.toFixed(2)} s end to end (job run ${job.runSeconds.toFixed(2)} s, ${pageCount} pages, ${mb(job.bytes)} MB)`)
      }
      pdf = {
        reportPages: pages.length,
        chartsPerPage: 2,
        pdfPages: pageCount,
        seconds: round2(median(times.map((t) => t.seconds))),
        jobRunSeconds: round2(median(times.map((t) => t.runSeconds))),
        peakRssMB: mb(Math.max(...times.map((t) => t.peakBytes)))
      }
      console.log(`pdf: 20 pages of two charts in ${pdf["seconds"]} s end to end, job run ${pdf["jobRunSeconds"]} s (bar < 3 s)`)
    }
    console.log(`written to ${writeRunRecord(import.meta.dirname, { settings: { rows, rounds, memoryLimit, threads: threads || null }, exports: results, pdf })}`)
  } finally {
    service?.stop()
    if (process.env["BENCH_DIR"] === undefined) rmSync(dir, { recursive: true, force: true })
  }
}

await main()
