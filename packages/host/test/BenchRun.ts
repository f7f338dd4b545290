/**
 * Runs one benchmark script of `bench/` as `npm run bench:*` does, in a
 * child process with tiny settings, for the tests that check it measures:
 * its output and the record it wrote.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** What a run printed and the `last-run.json` it wrote. */
export interface BenchRun {
  readonly output: string
  readonly record: any
}

/** Runs `bench/<name>/<file>` (`run.ts` by default) with `env` (and `BENCH_OUTPUT_DIR` in a throwaway folder); fails with its output when it exits non-zero. */
export const runBench = async (name: string, env: Record<string, string>, file = "run.ts"): Promise<BenchRun> => {
  const script = fileURLToPath(new URL(`../../../bench/${name}/${file}`, import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), `${name}-bench-`))
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--conditions=@analytics/source", script], {
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env, BENCH_OUTPUT_DIR: dir },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let text = ""
      child.stdout.on("data", (chunk) => (text += chunk))
      child.stderr.on("data", (chunk) => (text += chunk))
      child.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`the bench exited ${code}:\n${text}`))))
    })
    return { output, record: JSON.parse(readFileSync(join(dir, "last-run.json"), "utf8")) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
