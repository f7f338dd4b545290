/**
 * `bench/http` (issue 24) runs in CI: the benchmark itself (`npm run
 * bench:http`'s script: ours, Fastify, bare node:http and the same work on
 * Effect's platform, each in a child process), with tiny settings, must
 * check that the four answer every scenario alike, measure every scenario
 * on every server and write its record; and its in-process variant
 * (`bench:http:inproc`). No timing is asserted here; the bench prints its
 * ratios against its own bar.
 */
import { describe, expect, it } from "@effect/vitest"
import { runBench } from "./BenchRun.ts"

describe("bench/http", () => {
  it("checks the servers' answers alike, measures page 1, page 2 and the idempotent POST on each, and writes its record", async () => {
    const { output, record } = await runBench("http", {
      BENCH_SECONDS: "1",
      BENCH_WARMUP_SECONDS: "0.2",
      BENCH_CONNECTIONS: "8"
    })
    const servers = ["ours", "fastify", "node:http", "effect"]
    const scenarios = ["page1", "page2", "post"]
    expect(output).toMatch(/shapes: the same status, content type, replay header, body keys and size from every server/)
    expect(record.shapes.ok).toBe(true)
    expect(record.shapes.differences).toEqual([])
    for (const server of servers) {
      expect(Object.keys(record.shapes.byServer[server])).toEqual(["page1", "page2", "post first sight", "post replay"])
    }
    expect(record.shapes.byServer["ours"]["post replay"].replayed).toBe("true")
    expect(record.scenarios).toEqual(scenarios)
    expect(record.settings).toMatchObject({ seconds: 1, warmupSeconds: 0.2, connections: 8, rounds: 1, post: { replayEvery: 4 } })
    for (const scenario of scenarios) {
      for (const server of servers) {
        const result = record.results.find((r: any) => r.scenario === scenario && r.server === server)
        expect(result, `${scenario} on ${server}`).toBeDefined()
        expect(result.totalRequests).toBeGreaterThan(0)
        // Every request of the mix was answered 2xx: no 409 or 422 in the POST's replays, no refused cursor.
        expect(result.non2xx).toBe(0)
        expect(result.errors + result.timeouts).toBe(0)
        expect(result.serverCpuMicrosPerRequest).toBeGreaterThan(0)
      }
      expect(Object.keys(record.ratios[scenario])).toEqual(["ours / fastify", "ours / node:http", "ours / effect", "effect / fastify"])
    }
  }, 240_000)

  it("measures each server's handler in-process (bench:http:inproc): every scenario, every server, a CPU time per request", async () => {
    const { output, record } = await runBench("http", { BENCH_REQUESTS: "200", BENCH_ROUNDS: "1" }, "inproc.ts")
    expect(record.settings).toMatchObject({ scenarios: ["page1", "page2", "post"], requests: 200, rounds: 1, replayEvery: 4 })
    for (const server of ["ours", "fastify", "node:http", "effect"]) {
      expect(record.results[server].map((r: any) => r.scenario)).toEqual(["page1", "page2", "post"])
      for (const result of record.results[server]) expect(result.medianMicros, `${server} ${result.scenario}`).toBeGreaterThan(0)
    }
    expect(output).toMatch(/ours \/ fastify: [\d.]+x requests per CPU-second/)
    expect(output).toMatch(/effect \/ fastify: [\d.]+x requests per CPU-second/)
  }, 240_000)
})
