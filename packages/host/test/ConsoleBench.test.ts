/**
 * `bench/console` runs in CI: the benchmark itself (`npm run bench:console`'s
 * script: the packaged host, Debian's Chromium), one load per side, must
 * measure the console's first screen against its static floor, report the
 * initial closure's Brotli size and write its record. No timing is asserted
 * here; the bench prints its figures against its own bar.
 */
import { Chromium } from "@analytics/testing/browser"
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("../../../bench/console/run.ts", import.meta.url))
describe.skipIf(!Chromium.available)(Chromium.suiteTitle("bench/console"), () => {
  it("measures the first screen against its static floor and the initial closure's size, and writes its record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "console-bench-"))
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
      expect(output).toMatch(/initial closure: \d+ files, [\d.]+ KB raw, [\d.]+ KB brotli/)
      const record = JSON.parse(readFileSync(join(dir, "last-run.json"), "utf8"))
      expect(record.closure.brBytes).toBeGreaterThan(5_000)
      expect(record.closure.brBytes).toBeLessThan(record.closure.rawBytes)
      const signIn = record.screens.find((s: { screen: string }) => s.screen === "sign-in")
      expect(signIn.ours.readyMs).toBeGreaterThan(0)
      expect(signIn.ours.interactiveMarkMs).toBeGreaterThan(0)
      expect(signIn.floor.readyMs).toBeGreaterThan(0)
      // The console's scripts travel; the floor is one document.
      expect(signIn.ours.bytes).toBeGreaterThan(signIn.floor.bytes)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 300_000)
})
