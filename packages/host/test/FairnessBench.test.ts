/**
 * `bench/fairness` (decision 0013) runs in CI: the benchmark itself (`npm run
 * bench:fairness`'s script, the packaged host in a child process), with
 * tiny settings, must measure both phases and write its record. No timing
 * is asserted here; the bench prints its ratio against its own bar.
 */
import { describe, expect, it } from "@effect/vitest"
import { runBench } from "./BenchRun.ts"

describe("bench/fairness", () => {
  it("measures tenant A alone and under tenant B's flood, and writes its record", async () => {
    const { output, record } = await runBench("fairness", { BENCH_ROWS: "5000", BENCH_SECONDS: "1", BENCH_WARMUP_SECONDS: "0.5", BENCH_CLIENTS: "6", BENCH_B_QUERY_CONCURRENCY: "4", BENCH_STORE: "memory" })
    expect(output).toMatch(/A's query p99 under B's flood \/ alone: [\d.]+x/)
    for (const phase of [record.alone, record.flood]) {
      expect(phase.query.count).toBeGreaterThan(0)
      expect(phase.workspaces.count).toBeGreaterThan(0)
      expect(phase.query.p99Ms).toBeGreaterThan(0)
    }
    // B flooded for real: answered queries, and its plan's cap refused the clients past it (6 clients, 4 slots).
    expect(record.tenantB.completed).toBeGreaterThan(0)
    expect(record.tenantB.refused["rate-limit/query-concurrency"]).toBeGreaterThan(0)
    expect(record.tenantB.failed).toBe(0)
    expect(typeof record.ratio).toBe("number")
    expect(record.settings).toMatchObject({ rows: 5000, seconds: 1, clients: 6, store: "memory" })
  }, 90_000)
})
