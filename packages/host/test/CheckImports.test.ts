/**
 * The import rules (scripts/check-imports.ts, README "Layout") against a small fixture tree
 * with one violation of each rule, beside imports each rule allows; and the script run as CI
 * runs it: its output lines and exit code, on the fixture and on this repository.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { checkImports, coreDomains, graphFaults } from "../../../scripts/check-imports.ts"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const script = path.join(repoRoot, "scripts/check-imports.ts")

const write = (root: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
  fs.writeFileSync(path.join(root, file), text)
}

const manifest = (name: string, exports: Record<string, string>) => JSON.stringify({ name, exports })

const fixture = (): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "check-imports-"))
  write(root, "packages/core/package.json", manifest("@analytics/core", {
    ".": "./src/index.ts",
    "./*": "./src/*.ts",
    "./testing": "./src/testing/index.ts"
  }))
  write(root, "packages/core/src/index.ts", `import { Effect } from "effect"\nimport type { Schema } from "effect/schema"\nimport { jwtVerify } from "jose"\nexport * from "./Workspace.ts"\nexport * from "./platform/index.ts"\nexport * from "./sharing/index.ts"\n`)
  // allowed: a folder imports its own files and earlier folders
  write(root, "packages/core/src/platform/index.ts", `export * as Ids from "./Ids.ts"\n`)
  // rule 4: a domain imports one the table does not declare for it (line 2)
  write(root, "packages/core/src/platform/Ids.ts", `import { Effect } from "effect"\nimport type { Grant } from "../sharing/Grant.ts"\n`)
  write(root, "packages/core/src/sharing/index.ts", `export * as Grant from "./Grant.ts"\nimport { Ids } from "../platform/index.ts"\n`)
  // rule 2: a Node built-in in core (line 2, a type-only import)
  write(root, "packages/core/src/Workspace.ts", `import { Effect } from "effect"\nimport type { Buffer } from "node:buffer"\n`)
  write(root, "packages/adapter-a/package.json", manifest("@analytics/adapter-a", { ".": "./src/index.ts", "./testing": "./src/testing/index.ts" }))
  // rule 1: an adapter imports another adapter, by a dynamic import() (line 3)
  write(root, "packages/adapter-a/src/index.ts", `import { Workspace } from "@analytics/core"\nimport { storeContract } from "@analytics/testing"\nconst b = () => import("@analytics/adapter-b")\n`)
  write(root, "packages/adapter-b/package.json", manifest("@analytics/adapter-b", { ".": "./src/index.ts" }))
  // rule 3: a path only the `./*` wildcard exports (line 2)
  write(root, "packages/adapter-b/src/index.ts", `import { Effect } from "effect"\nimport type { Workspace } from "@analytics/core/Workspace"\nimport { X } from "./X.ts"\n`)
  write(root, "packages/host/package.json", manifest("@analytics/host", { ".": "./src/index.ts" }))
  // allowed: the host imports every adapter, and its own files
  write(root, "packages/host/src/index.ts", `import { A } from "@analytics/adapter-a"\nimport { T } from "@analytics/adapter-a/testing"\nimport { B } from "@analytics/adapter-b"\nimport { createServer } from "node:http"\n`)
  return root
}

describe("check-imports", () => {
  it("finds one violation of each rule in the fixture and nothing else", () => {
    const root = fixture()
    try {
      const found = checkImports(root).map((v) => `${v.file}:${v.line}: ${v.rule} — ${v.specifier}`)
      assert.deepStrictEqual(found, [
        "packages/adapter-a/src/index.ts:3: no adapter imports another adapter — @analytics/adapter-b",
        "packages/adapter-b/src/index.ts:2: no deep imports across packages — @analytics/core/Workspace",
        "packages/core/src/platform/Ids.ts:2: core's platform/ imports only the domains it declares — ../sharing/Grant.ts",
        "packages/core/src/Workspace.ts:2: core imports no Node built-in — node:buffer"
      ])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("flags in the contract anything but effect and core", () => {
    const root = fixture()
    try {
      write(root, "packages/api/package.json", manifest("@analytics/api", { ".": "./src/index.ts" }))
      write(root, "packages/api/src/index.ts", `import { Schema } from "effect"\nimport { Workspace } from "@analytics/core"\nimport { randomUUID } from "node:crypto"\nimport { A } from "@analytics/adapter-a"\n`)
      assert.deepStrictEqual(
        checkImports(root).filter((v) => v.file.startsWith("packages/api/")).map((v) => `${v.line}: ${v.rule}`),
        ["3: the contract imports only effect and @analytics/core", "4: the contract imports only effect and @analytics/core"]
      )
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("flags in browser code a runtime import of effect, core or the contract, and Node built-ins; types and the Node-side Assets.ts pass", () => {
    const root = fixture()
    try {
      write(root, "packages/viewer/package.json", manifest("@analytics/viewer", { ".": "./src/index.ts", "./assets": "./src/Assets.ts" }))
      write(
        root,
        "packages/viewer/src/console/Screen.ts",
        `import type { Workspace } from "@analytics/core"\nimport { Schema } from "effect"\nimport { type Api } from "@analytics/api"\nexport type { Grant } from "@analytics/core"\n` +
          `type S = import("effect").Schema.Any\nconst core = () => import("@analytics/core")\nimport { readFileSync } from "node:fs"\nimport { html } from "lit"\n`
      )
      write(root, "packages/viewer/src/Assets.ts", `import { readFileSync } from "node:fs"\nimport { Effect } from "effect"\n`)
      assert.deepStrictEqual(
        checkImports(root).filter((v) => v.file.startsWith("packages/viewer/")).map((v) => `${v.file}:${v.line}: ${v.rule}`),
        [
          "packages/viewer/src/console/Screen.ts:2: browser code imports effect, @analytics/core, @analytics/api for types only",
          // `import { type X }` still loads the module (an empty import stays in the JavaScript)
          "packages/viewer/src/console/Screen.ts:3: browser code imports effect, @analytics/core, @analytics/api for types only",
          "packages/viewer/src/console/Screen.ts:6: browser code imports effect, @analytics/core, @analytics/api for types only",
          "packages/viewer/src/console/Screen.ts:7: browser code imports no Node built-in"
        ]
      )
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("flags in the test kits any import of an adapter, a type's too", () => {
    const root = fixture()
    try {
      write(root, "packages/testing/package.json", manifest("@analytics/testing", { ".": "./src/index.ts" }))
      write(
        root,
        "packages/testing/src/http/TestServer.ts",
        `import type { Stores } from "@analytics/core"\nimport { App } from "@analytics/adapter-a"\nimport type { B } from "@analytics/adapter-b"\nimport { createServer } from "node:http"\n`
      )
      assert.deepStrictEqual(
        checkImports(root).filter((v) => v.file.startsWith("packages/testing/")).map((v) => `${v.line}: ${v.rule} — ${v.specifier}`),
        ["2: the test kits import no adapter — @analytics/adapter-a", "3: the test kits import no adapter — @analytics/adapter-b"]
      )
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("flags in core an import of a domain not declared, a file at the top of src, and a folder not in the table", () => {
    const root = fixture()
    try {
      // sharing may import platform (declared), not comments (a domain, undeclared for sharing)
      write(root, "packages/core/src/sharing/Grants.ts", `import { Ids } from "../platform/Ids.ts"\nimport type { Comment } from "../comments/Comment.ts"\nimport type { Workspace } from "../Workspace.ts"\n`)
      write(root, "packages/core/src/billing/Invoice.ts", `import { Ids } from "../platform/Ids.ts"\n`)
      assert.deepStrictEqual(
        checkImports(root).filter((v) => !v.file.includes("platform/")).filter((v) => v.file.startsWith("packages/core/src/")).map((v) =>
          `${v.file}:${v.line}: ${v.rule} — ${v.specifier}`
        ),
        [
          "packages/core/src/billing/Invoice.ts:1: core's folders are domains of the table — billing",
          "packages/core/src/sharing/Grants.ts:2: core's sharing/ imports only the domains it declares — ../comments/Comment.ts",
          "packages/core/src/sharing/Grants.ts:3: core's sharing/ imports only the domains it declares — ../Workspace.ts",
          "packages/core/src/Workspace.ts:2: core imports no Node built-in — node:buffer"
        ]
      )
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("flags a cycle in the table of domains and a domain named without an entry; a declared import passes", () => {
    const root = fixture()
    try {
      const domains = { platform: ["tenancy", "sharing"], tenancy: ["platform"], sharing: ["platform", "reports"] }
      assert.deepStrictEqual(
        checkImports(root, domains).filter((v) => v.file === "scripts/check-imports.ts" || v.file.includes("platform/")).map((v) => v.specifier),
        ["platform → tenancy → platform", "platform → sharing → platform", "sharing → reports, a domain without an entry"]
      )
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("the repository's table has no cycle", () => {
    assert.deepStrictEqual(graphFaults(coreDomains), [])
  })

  it("flags a third-party import in core", () => {
    const root = fixture()
    try {
      write(root, "packages/core/src/Extra.ts", `export { parse } from "csv-parse/sync"\n`)
      assert.deepStrictEqual(checkImports(root).filter((v) => v.file.endsWith("Extra.ts")).map((v) => v.line), [1])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("as a command: prints file:line: rule — import and exits 1 on the fixture, 0 on this repository", () => {
    const root = fixture()
    try {
      const failing = spawnSync(process.execPath, [script, root], { encoding: "utf8" })
      assert.strictEqual(failing.status, 1)
      assert.include(failing.stderr, "packages/adapter-b/src/index.ts:2: no deep imports across packages — @analytics/core/Workspace")
      assert.include(failing.stderr, "4 violation(s)")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
    const passing = spawnSync(process.execPath, [script, repoRoot], { encoding: "utf8" })
    assert.strictEqual(passing.status, 0, passing.stderr)
    assert.match(passing.stdout, /^check-imports: \d+ files in packages\/\*\/src, no violations\n$/)
  })
})
