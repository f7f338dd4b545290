/**
 * Core, the contract and the browser code know no platform, and the
 * compiler says so: their own TypeScript projects (packages/core,
 * packages/api and packages/viewer tsconfig.json: no ambient types, ES and
 * DOM libraries; the viewer's without `Assets.ts`, which Node runs) refuse
 * a Node import and Node's globals. A probe file is compiled with the package's sources under that
 * project's settings, from a folder beside `src` (so @types/node would be
 * found if the settings let it in).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc")

describe.each(["core", "api", "viewer"])("%s's TypeScript project", (pkg) => {
  it("refuses node:fs and process, and compiles the package itself", () => {
    const dir = fs.mkdtempSync(path.join(repoRoot, `packages/${pkg}/.boundary-probe-`))
    try {
      fs.writeFileSync(path.join(dir, "probe.ts"), `import * as fs from "node:fs"\nexport const read = fs.readFileSync\nexport const env = process.env\n`)
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
        extends: "../tsconfig.json",
        compilerOptions: { composite: false, noEmit: true, emitDeclarationOnly: false, rootDir: "..", tsBuildInfoFile: null },
        include: ["../src", "probe.ts"]
      }))
      const run = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { encoding: "utf8" })
      const errors = run.stdout.split("\n").filter((line) => line.includes("error TS"))
      assert.strictEqual(run.status, 2, run.stdout + run.stderr)
      assert.isTrue(errors.every((line) => line.includes("probe.ts")), `only the probe fails:\n${errors.join("\n")}`)
      assert.isTrue(errors.some((line) => line.includes("'node:fs'")), run.stdout)
      assert.isTrue(errors.some((line) => line.includes("'process'")), run.stdout)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
