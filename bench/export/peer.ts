/**
 * The peer of `bench/export`, in a child process of its own: DuckDB's own
 * `COPY (query) TO file` of the same query over the same rows, with the
 * same memory limit and threads as the service's engine. One export per
 * process; prints `{ seconds, cpuSeconds, bytes, maxRssBytes }` (the CPU
 * time of all its threads during the COPY; the peak resident memory of the
 * process, DuckDB included).
 *
 * Environment: `BENCH_DB`, `BENCH_SQL`, `BENCH_PARAMS` (JSON), `BENCH_FORMAT`
 * (`csv` or `parquet`), `BENCH_OUTPUT`, `BENCH_MEMORY_LIMIT`, `BENCH_THREADS`,
 * `BENCH_SPILL`.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { statSync } from "node:fs"

const env = (name: string) => process.env[name] ?? ""
const options = {
  ...(env("BENCH_MEMORY_LIMIT") === "" ? {} : { memory_limit: env("BENCH_MEMORY_LIMIT") }),
  ...(env("BENCH_THREADS") === "" ? {} : { threads: env("BENCH_THREADS") }),
  temp_directory: env("BENCH_SPILL")
}
const instance = await DuckDBInstance.create(env("BENCH_DB"), { ...options, access_mode: "READ_ONLY" })
const connection = await instance.connect()
// The options the service's engine writes with (decision 0015): CSV with a header and CRLF, Parquet with zstd.
const copyOptions = env("BENCH_FORMAT") === "csv" ? String.raw`(FORMAT csv, HEADER, NEW_LINE '\r\n')` : "(FORMAT parquet, COMPRESSION zstd)"
const output = env("BENCH_OUTPUT")
const start = performance.now()
const cpu = process.cpuUsage()
await connection.run(`COPY (${env("BENCH_SQL")}) TO '${output.replaceAll("'", "''")}' ${copyOptions}`, JSON.parse(env("BENCH_PARAMS") || "[]"))
const seconds = (performance.now() - start) / 1000
const used = process.cpuUsage(cpu)
const cpuSeconds = (used.user + used.system) / 1e6
connection.closeSync()
instance.closeSync()
process.stdout.write(`${JSON.stringify({ seconds, cpuSeconds, bytes: statSync(output).size, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`)
