/**
 * Every test file is in the Vitest project its uses call for (scripts/TestProjects.ts): a pure file in
 * `unit` (so `npm run test:unit` covers it), a unit file with no store, socket, browser or process (so
 * `npm run test:unit` needs no server or build), Chromium tests in `browser`, tests that start processes in
 * `process`. When this fails, move the file's entry in scripts/TestProjects.ts (or drop the costly import).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  browserFiles,
  filesByProject,
  notUnit,
  processFiles,
  projectNames,
  projectOf,
  type ProjectName,
  repositoryRoot,
  testFiles,
  unitFiles
} from "../TestProjects.ts"
import { importsOf, type Reason, reasonsOf, type Use } from "../TestUses.ts"

/** The project a file's uses call for, or the projects it may be in. */
const allowed = (file: string, uses: ReadonlySet<Use>): ReadonlyArray<ProjectName> => {
  if (file.endsWith("Bench.test.ts")) return ["bench"]
  // A test that starts processes may drive Chromium too (an end-to-end walk through a host it started).
  if (uses.has("process")) return ["process"]
  if (uses.has("browser")) return ["browser"]
  if (uses.has("store")) return ["integration"]
  return ["unit"]
}

const why = (reasons: ReadonlyArray<Reason>) =>
  reasons.length === 0
    ? "it uses no store, socket, browser or process"
    : reasons.map((reason) => `${reason.what} (${path.relative(repositoryRoot, reason.file)})`).join(", ")

describe("test projects", () => {
  it("every test file is in the project its uses call for", () => {
    const wrong = testFiles().flatMap((file) => {
      const reasons = reasonsOf(path.join(repositoryRoot, file))
      const expected = allowed(file, new Set(reasons.map((reason) => reason.use)))
      const actual = projectOf(file)
      return expected.includes(actual) ? [] : [`${file}: in ${actual}, belongs in ${expected.join(" or ")}: ${why(reasons)}`]
    })
    assert.deepStrictEqual(wrong, [])
  })

  it("each file is in exactly one project, and every project has files", () => {
    const byProject = filesByProject()
    const all = projectNames.flatMap((name) => byProject[name])
    assert.deepStrictEqual([...all].sort(), [...testFiles()])
    assert.strictEqual(new Set(all).size, all.length)
    for (const name of projectNames) assert.isAbove(byProject[name].length, 0, name)
  })

  it("the lists name files and folders that exist", () => {
    const missing = [...browserFiles, ...processFiles, ...unitFiles, ...notUnit].filter((entry) => !fs.existsSync(path.join(repositoryRoot, entry)))
    assert.deepStrictEqual(missing, [])
  })

  it("reads imports, but not type-only ones", () => {
    // Spelt in capitals here so that this file's own text imports nothing.
    const source = [
      `IMPORT { a } from "node:http"`,
      `IMPORT type { B } from "playwright-core"`,
      `IMPORT "./Side.ts"`,
      `EXPORT {\n  c,\n  d\n} from "./C.ts"`,
      `await IMPORT("node:child_process")`
    ].join("\n").replaceAll("IMPORT", "import").replaceAll("EXPORT", "export")
    assert.deepStrictEqual(importsOf(source), ["node:http", "./Side.ts", "./C.ts", "node:child_process"])
  })
})
