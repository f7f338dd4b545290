/** What every benchmark run records beside its figures: when, on which commit, on what machine. */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const commit = (): string | null => {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim()
  } catch {
    return null
  }
}

/** Writes `last-run.json` in `dir` (made when missing): the machine and commit, then `figures`; returns its path. */
export const writeRunRecord = (dir: string, figures: Record<string, unknown>): string => {
  const output = Path.join(dir, "last-run.json")
  const record = {
    date: new Date().toISOString(),
    commit: commit(),
    node: process.version,
    cpus: Os.cpus().length,
    cpuModel: Os.cpus()[0]?.model ?? null,
    ...figures
  }
  Fs.mkdirSync(dir, { recursive: true })
  Fs.writeFileSync(output, `${JSON.stringify(record, null, 2)}\n`)
  return output
}
