#!/usr/bin/env node
/**
 * `analytics-host`: sets up the process, then runs the command line (`Cli.ts`).
 *
 * libuv's thread pool runs each DuckDB query for its whole length (and file
 * I/O, DNS lookups, Web Crypto): with Node's default of 4 threads, more
 * queries at once would queue there, first come first served, and hold up
 * every file read and write behind them. It is sized before anything starts
 * it (hence the dynamic import): the engine's concurrency
 * (`ANALYTICS_ENGINE_CONCURRENCY`, default the CPUs) plus 4 for the rest,
 * unless `UV_THREADPOOL_SIZE` is set.
 *
 * V8 runs with the flags of `V8Flags.serving` (adapter-node): without them,
 * each request's objects outlive it until a full collection
 * (docs/decisions/0008-http-throughput.md). A flag given on the command line
 * either way wins.
 *
 * @since 0.1.0
 */
import { availableParallelism } from "node:os"

if (process.env["UV_THREADPOOL_SIZE"] === undefined) {
  const configured = Number(process.env["ANALYTICS_ENGINE_CONCURRENCY"])
  const engine = Number.isInteger(configured) && configured >= 1 ? configured : availableParallelism()
  process.env["UV_THREADPOOL_SIZE"] = String(Math.min(1024, engine + 4))
}

const { V8Flags } = await import("@analytics/adapter-node")
V8Flags.applyServing()

await import("./Cli.ts")
