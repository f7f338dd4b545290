/**
 * `bench/viewer` runs in CI: the benchmark itself (`npm run bench:viewer`'s
 * script: the packaged host with the demo data, Debian's Chromium), one load
 * per page and side, must measure every page of the demo report against its
 * static floor and write its record. No timing is asserted here; the bench
 * prints its figures against its own bar.
 */
import { Chromium } from "@analytics/testing/browser"
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("../../../bench/viewer/run.ts", import.meta.url))
describe.skipIf(!Chromium.available)(Chromium.suiteTitle("bench/viewer"), () => {
  it("measures every page of the demo report against its static floor, and writes its record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "viewer-bench-"))
    try {
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [script], {
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", BENCH_ROUNDS: "1", BENCH_OUTPUT_DIR: dir },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let text = ""
        child.stdout.on("data", (chunk) => (text += chunk))
        child.stderr.on("data", (chunk) => (text += chunk))
        child.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`the bench exited ${code}:\n${text}`))))
      })
      expect(output).toMatch(/worst ratio to the floor: [\d.]+x/)
      const record = JSON.parse(readFileSync(join(dir, "last-run.json"), "utf8"))
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
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 300_000)
})
