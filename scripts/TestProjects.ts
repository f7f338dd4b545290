/**
 * The Vitest projects the tests are split into by what they cost to run, and which project each test file
 * belongs to (`vitest.config.ts` gives each project exactly its files):
 *
 * | project       | what its files use                                                    | global setup                       |
 * | ------------- | --------------------------------------------------------------------- | ---------------------------------- |
 * | `unit`        | nothing but the code under test: no store, socket, browser or process | none                               |
 * | `integration` | real stores and sockets: PGlite, PostgreSQL, Redis, DuckDB, S3, SMTP, HTTP(S) servers, the viewer's build | viewer build, TLS, PostgreSQL, Redis |
 * | `browser`     | Chromium                                                              | viewer build, TLS                  |
 * | `process`     | other processes: the host, the registry, `node`, `tsc`, `openssl`     | viewer build, TLS, PostgreSQL, Redis |
 * | `bench`       | the benchmarks' smoke runs                                            | viewer build                       |
 *
 * The rule, first match wins: `*Bench.test.ts` is `bench`; `*Browser.test.ts` or one of `browserFiles` is
 * `browser`; one of `processFiles` is `process`; one of `unitFiles` (folders or files) and not one of
 * `notUnit` is `unit`; anything else is `integration`. `scripts/test/TestProjects.test.ts` reads what each
 * file uses (`scripts/TestUses.ts`) and fails when a file is in the wrong project: a new pure test outside
 * the unit folders, a unit test that opens a store, a Chromium test without the suffix.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** The projects, in the order `npm test` lists them. */
export const projectNames = ["unit", "integration", "browser", "process", "bench"] as const

/** A Vitest project of the repository's. */
export type ProjectName = (typeof projectNames)[number]

/** Where test files are, relative to the repository root. */
export const testFileGlobs: ReadonlyArray<string> = [
  "packages/*/test/**/*.test.ts",
  "examples/*/test/**/*.test.ts",
  "scripts/test/**/*.test.ts"
]

/** Chromium tests without the `Browser` suffix in their names. */
export const browserFiles: ReadonlyArray<string> = [
  "packages/adapter-http/test/ReferencePage.test.ts",
  "packages/adapter-http/test/ReportViewer.test.ts",
  "packages/testing/test/WatchErrors.test.ts"
]

/** Tests that start processes (the host, the registry, a child `node`, `tsc` or `openssl`). */
export const processFiles: ReadonlyArray<string> = [
  "examples/express-full/test/express-full.test.ts",
  "examples/typed-client/test/typed-client.test.ts",
  "packages/adapter-http/test/HandlerRequirements.test.ts",
  "packages/adapter-http/test/JsonEncoder.test.ts",
  "packages/adapter-http/test/StrictCsv.test.ts",
  "packages/adapter-node/test/V8Flags.test.ts",
  "packages/adapter-webhook-https/test/HttpsTransport.test.ts",
  "packages/charts/test/Chart.test.ts",
  "packages/host/test/AiQuestionsEndToEnd.test.ts",
  "packages/host/test/CheckImports.test.ts",
  "packages/host/test/DatasetsEndToEnd.test.ts",
  "packages/host/test/ExportFaults.test.ts",
  "packages/host/test/ExportFormatsEndToEnd.test.ts",
  "packages/host/test/ExportsEndToEnd.test.ts",
  "packages/host/test/ExportsTwoHosts.test.ts",
  "packages/host/test/Host.test.ts",
  "packages/host/test/IdempotencyFaults.test.ts",
  "packages/host/test/KillFaults.test.ts",
  "packages/host/test/MailWithoutSmtp.test.ts",
  "packages/host/test/MemberToken.test.ts",
  "packages/host/test/MultiProcessRateLimit.test.ts",
  "packages/host/test/Observability.test.ts",
  "packages/host/test/PlatformNeutral.test.ts",
  "packages/host/test/PostgresRestart.test.ts",
  "packages/host/test/Published.test.ts",
  "packages/host/test/ScheduledExportsEndToEnd.test.ts",
  "packages/host/test/SharingEndToEnd.test.ts",
  "packages/host/test/TwoHostsBehindProxy.test.ts",
  "packages/host/test/UploadsOnPostgres.test.ts",
  "packages/host/test/WebhookDelivery.test.ts",
  "packages/host/test/WorkProcess.test.ts"
]

/** Pure tests: whole folders (ending in "/") and single files. */
export const unitFiles: ReadonlyArray<string> = [
  "packages/core/test/",
  "packages/charts/test/",
  "packages/viewer/test/",
  "packages/testing/test/",
  "packages/adapter-memory/test/",
  "packages/adapter-documents/test/",
  "packages/adapter-node/test/",
  "scripts/test/",
  "packages/adapter-http/test/ErrorCodes.test.ts",
  "packages/adapter-http/test/RequestDecoder.test.ts",
  "packages/host/test/BrandingConfig.test.ts",
  "packages/host/test/ConsoleConfig.test.ts",
  "packages/host/test/EngineConfig.test.ts"
]

/** Files in the unit folders that are not pure (they go to `integration`). */
export const notUnit: ReadonlyArray<string> = [
  // node:sqlite runs the compiled SQL.
  "packages/core/test/SqlCompiler.test.ts",
  // Read the viewer's built bundle.
  "packages/viewer/test/Assets.test.ts",
  "packages/viewer/test/ConsoleBudget.test.ts",
  // Poppler reads the PDFs back.
  "packages/adapter-documents/test/Pdf.test.ts"
]

const listed = (list: ReadonlyArray<string>, file: string) =>
  list.some((entry) => entry.endsWith("/") ? file.startsWith(entry) : file === entry)

/** The project of a test file (its path relative to the repository root, with "/"). */
export const projectOf = (file: string): ProjectName => {
  if (file.endsWith("Bench.test.ts")) return "bench"
  if (file.endsWith("Browser.test.ts") || browserFiles.includes(file)) return "browser"
  if (processFiles.includes(file)) return "process"
  if (listed(unitFiles, file) && !notUnit.includes(file)) return "unit"
  return "integration"
}

/** What a project's global setup (`scripts/vitest-global-setup.ts`) prepares before its files run. */
export type Need = "viewer" | "tls" | "postgres" | "redis"

/** What each project needs (the table above). */
export const needs: Readonly<Record<ProjectName, ReadonlyArray<Need>>> = {
  unit: [],
  integration: ["viewer", "tls", "postgres", "redis"],
  browser: ["viewer", "tls"],
  process: ["viewer", "tls", "postgres", "redis"],
  bench: ["viewer"]
}

/** The repository's root. */
export const repositoryRoot = path.resolve(import.meta.dirname, "..")

/** Every test file, relative to the repository root, sorted. */
export const testFiles = (root: string = repositoryRoot): ReadonlyArray<string> =>
  fs.globSync(testFileGlobs as Array<string>, { cwd: root, exclude: ["**/node_modules/**"] })
    .map((file) => file.split(path.sep).join("/"))
    .sort()

/** The test files of each project. */
export const filesByProject = (root: string = repositoryRoot): Readonly<Record<ProjectName, ReadonlyArray<string>>> => {
  const byProject = Object.fromEntries(projectNames.map((name) => [name, [] as Array<string>])) as Record<ProjectName, Array<string>>
  for (const file of testFiles(root)) byProject[projectOf(file)].push(file)
  return byProject
}
