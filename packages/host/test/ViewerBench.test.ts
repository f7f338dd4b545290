/**
 * `bench/viewer` runs in CI: the benchmark itself (`npm run bench:viewer`'s
 * script: the packaged host with the demo data, Debian's Chromium), one load
 * per page and side, must measure every page of the demo report against its
 * static floor and write its record. No timing is asserted here; the bench
 * prints its figures against its own bar.
 */
import { Chromium } from "@analytics/testing/browser"
import { describe, expect, it } from "@effect/vitest"
import { runBench } from "./BenchRun.ts"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("bench/viewer"), () => {
  it("measures every page of the demo report against its static floor, and writes its record", async () => {
    const { output, record } = await runBench("viewer", { BENCH_ROUNDS: "1" })
    expect(output).toMatch(/worst ratio to the floor: [\d.]+x/)
    // The demo report's pages that hold charts: Overview, Trends and Mix (Products is a table).
    expect(record.pages.map((p: { page: string }) => p.page)).toEqual(["Overview", "Trends", "Mix"])
    for (const page of record.pages) {
      expect(page.charts, page.page).toBeGreaterThan(0)
      expect(page.ours.drawnMs, page.page).toBeGreaterThan(0)
      expect(page.ours.interactiveMs, page.page).toBeGreaterThanOrEqual(page.ours.drawnMs)
      expect(page.floor.drawnMs, page.page).toBeGreaterThan(0)
      // The viewer's script and Vega's chunk travel; the floor is one document.
      expect(page.ours.bytes, page.page).toBeGreaterThan(page.floor.bytes)
    }
  }, 300_000)
})
