/**
 * What a test file uses that costs something to run: read from its imports (and those of the
 * helper modules beside it in its `test` folder), so the check in `scripts/test/TestProjects.test.ts`
 * can tell whether the file sits in the right Vitest project (`scripts/TestProjects.ts`).
 *
 * - `process`: starts other programs (`node:child_process`: the host, the registry, `node`, `tsc`, `openssl`).
 * - `browser`: drives Chromium (`@analytics/testing/browser`, `playwright-core`).
 * - `store`: a real store, server, socket or build: PGlite, PostgreSQL, Redis, DuckDB, SQLite, S3, SMTP,
 *   HTTPS receivers, an HTTP server on a socket, the service in-process, the viewer's built bundle, the URLs the
 *   global setup provides (`inject(...)`).
 *
 * A file that uses none of them is pure: it belongs in the `unit` project.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** A kind of cost a test file can carry. */
export type Use = "process" | "browser" | "store"

/** The module specifiers (exact, or a prefix ending in "/") that carry each cost. */
export const costlyModules: Readonly<Record<Use, ReadonlyArray<string>>> = {
  process: ["node:child_process", "child_process"],
  browser: ["@analytics/testing/browser", "playwright-core"],
  store: [
    "@electric-sql/pglite",
    "@effect/sql-pg",
    "pg",
    "node:sqlite",
    "@duckdb/node-api",
    "@analytics/adapter-postgres",
    "@analytics/adapter-redis",
    "@analytics/adapter-duckdb",
    "@analytics/adapter-s3",
    "@analytics/adapter-smtp",
    "@analytics/adapter-webhook-https",
    "@analytics/adapter-openai",
    "@analytics/adapter-http",
    "@analytics/host",
    "@analytics/viewer/assets",
    "@analytics/testing/http",
    "@analytics/testing/postgres",
    "@analytics/testing/s3",
    "@analytics/testing/smtp",
    "@analytics/testing/webhooks",
    "@analytics/testing/openai",
    "@analytics/testing/documents",
    "@analytics/testing/embedding",
    "@effect/platform-node/",
    "@effect/platform-node",
    "effect/persistence/Redis",
    "node:http",
    "node:https",
    "node:net",
    "smtp-server",
    "mailparser"
  ]
}

/** Source text that carries a cost without an import of its own. */
const costlyText: ReadonlyArray<readonly [RegExp, Use, string]> = [
  [/\binject\(/, "store", "inject(...) (a server the global setup provides)"],
  [/\bPGlite\b/, "store", "PGlite"],
  [/process\.env\.TEST_(DATABASE|REDIS)_URL/, "store", "TEST_DATABASE_URL / TEST_REDIS_URL"]
]

/** One reason a file carries a cost: what it is, and where it was seen. */
export interface Reason {
  readonly use: Use
  readonly what: string
  readonly file: string
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;"']*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g

const typeOnly = /^\s*(?:import|export)\s+type\s/

/** The module specifiers a source text imports (static, side-effect and literal dynamic imports; not `import type`). */
export const importsOf = (source: string): ReadonlyArray<string> =>
  Array.from(source.matchAll(importPattern))
    .filter((match) => !typeOnly.test(match[0]))
    .map((match) => match[1] ?? match[2] ?? match[3]!)

const costOf = (specifier: string): Use | undefined => {
  for (const [use, modules] of Object.entries(costlyModules) as Array<[Use, ReadonlyArray<string>]>) {
    if (modules.some((module) => module.endsWith("/") ? specifier.startsWith(module) : specifier === module)) return use
  }
  return undefined
}

/**
 * Why `file` (absolute) costs what it does: its own imports and text, and those of the modules it imports
 * by relative path from its own `test` folder (fixtures, helpers), transitively. Empty when it is pure.
 */
export const reasonsOf = (file: string): ReadonlyArray<Reason> => {
  const testFolder = testFolderOf(file)
  const reasons: Array<Reason> = []
  const seen = new Set<string>()
  const visit = (module: string) => {
    if (seen.has(module)) return
    seen.add(module)
    const source = fs.readFileSync(module, "utf8")
    for (const specifier of importsOf(source)) {
      const use = costOf(specifier)
      if (use !== undefined) reasons.push({ use, what: specifier, file: module })
      if (specifier.startsWith(".")) {
        const target = path.resolve(path.dirname(module), specifier)
        if (target.startsWith(testFolder + path.sep) && fs.existsSync(target)) visit(target)
      }
    }
    for (const [pattern, use, what] of costlyText) {
      if (pattern.test(source)) reasons.push({ use, what, file: module })
    }
  }
  visit(file)
  return reasons
}

/** The `test` folder a test file is in (helpers are followed only inside it). */
const testFolderOf = (file: string): string => {
  let folder = path.dirname(file)
  while (path.basename(folder) !== "test" && path.dirname(folder) !== folder) folder = path.dirname(folder)
  return path.basename(folder) === "test" ? folder : path.dirname(file)
}
