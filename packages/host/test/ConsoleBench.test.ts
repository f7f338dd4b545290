/**
 * `bench/console` runs in CI: the benchmark itself (`npm run bench:console`'s
 * script: the packaged host, Debian's Chromium), one load per side, must
 * measure the console's first screen against its static floor, report the
 * initial closure's Brotli size and write its record. No timing is asserted
 * here; the bench prints its figures against its own bar.
 */
import { Chromium } from "@analytics/testing/browser"
import { describe, expect, it } from "@effect/vitest"
import { runBench } from "./BenchRun.ts"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("bench/console"), () => {
  it("measures the first screen against its static floor and the initial closure's size, and writes its record", async () => {
    const { output, record } = await runBench("console", { BENCH_ROUNDS: "1" })
    expect(output).toMatch(/initial closure: \d+ files, [\d.]+ KB raw, [\d.]+ KB brotli/)
    expect(record.closure.brBytes).toBeGreaterThan(5_000)
    expect(record.closure.brBytes).toBeLessThan(record.closure.rawBytes)
    const signIn = record.screens.find((s: { screen: string }) => s.screen === "sign-in")
    expect(signIn.ours.readyMs).toBeGreaterThan(0)
    expect(signIn.ours.interactiveMarkMs).toBeGreaterThan(0)
    expect(signIn.floor.readyMs).toBeGreaterThan(0)
    // The console's scripts travel; the floor is one document.
    expect(signIn.ours.bytes).toBeGreaterThan(signIn.floor.bytes)
  }, 300_000)
})
