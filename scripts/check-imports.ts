/**
 * The import rules between packages (README "Layout"), checked in CI by `npm test`:
 *   1. no adapter (`@analytics/adapter-*`) imports another adapter; the host assembles them;
 *   2. core imports only `effect` (any subpath) and `jose`, and no Node built-in (the test kits
 *      live in `@analytics/testing`);
 *   3. another workspace package is imported only through an entry point its package.json
 *      `exports` declares by name (a path matched only by a `./*` wildcard is a deep import);
 *   4. core's folders are its domains, and `coreDomains` below declares the graph between them: a file
 *      in one imports only its own folder and the domains declared for it, never a file at the top of
 *      `src`; a folder missing from the table and a cycle in the table are violations too.
 *   5. the contract (`@analytics/api`) imports only `effect` (any subpath) and `@analytics/core`,
 *      and no Node built-in: a client can use it anywhere.
 *   6. the browser code (`@analytics/viewer`'s `src`, but `Assets.ts`, which Node runs) imports
 *      `@analytics/core`, `@analytics/api` and `effect` for types only (`import type`), and no
 *      Node built-in: one runtime import of them costs more than the console's size budget.
 *   7. the test kits (`@analytics/testing`) import no adapter, not even for types: every adapter's
 *      tests use them, so a kit that needs an application or an adapter's type takes it as a
 *      parameter or by its shape.
 * Over every `packages/*\/src/**\/*.ts` file; imports, re-exports, `import type`, `import()` and
 * `import("…")` types all count. Prints `file:line: rule — the import` per violation and exits 1.
 *
 * Usage: node scripts/check-imports.ts [repository root, default this script's parent]
 */
import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** What core may import: the runtime it is written in and its JWT library. */
const coreAllowed = ["effect", "jose"]

/** What browser code may import for types only: the runtime and the packages built on it. */
const typesOnlyInBrowser = ["effect", "@analytics/core", "@analytics/api"]

/** The viewer's files that run in Node, not in the browser. */
const viewerNodeFiles = new Set(["Assets.ts"])

/** What the contract may import: the runtime and the domain it describes. */
const apiAllowed = ["effect", "@analytics/core"]

export interface Violation {
  /** Relative to the root, with `/`. */
  readonly file: string
  readonly line: number
  readonly rule: string
  readonly specifier: string
}

interface Workspace {
  readonly name: string
  readonly dir: string
  /** Importable specifiers: the package name and each exports key without a wildcard. */
  readonly entryPoints: ReadonlySet<string>
}

const readWorkspaces = (root: string): ReadonlyArray<Workspace> => {
  const packagesDir = path.join(root, "packages")
  return fs
    .readdirSync(packagesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(packagesDir, d.name, "package.json")))
    .map((d) => {
      const dir = path.join(packagesDir, d.name)
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name: string
        exports?: string | Record<string, unknown>
      }
      const keys = manifest.exports === undefined || typeof manifest.exports === "string"
        ? ["."]
        : Object.keys(manifest.exports).filter((k) => k.startsWith("."))
      const entryPoints = new Set(
        keys.filter((k) => !k.includes("*")).map((k) => (k === "." ? manifest.name : manifest.name + k.slice(1)))
      )
      return { name: manifest.name, dir, entryPoints }
    })
}

const tsFiles = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = path.join(dir, d.name)
      if (d.isDirectory()) return d.name === "node_modules" ? [] : tsFiles(p)
      return d.isFile() && d.name.endsWith(".ts") ? [p] : []
    })
    : []

/** Every module specifier in a file, with its 1-based line and whether it is erased from the JavaScript (types only). */
const specifiersOf = (file: string): Array<{ specifier: string; line: number; typeOnly: boolean }> => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<{ specifier: string; line: number; typeOnly: boolean }> = []
  const add = (node: ts.Node | undefined, typeOnly = false) => {
    if (node !== undefined && ts.isStringLiteralLike(node)) {
      found.push({ specifier: node.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, typeOnly })
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly === true)
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0])
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string): string => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const builtins = new Set(builtinModules)
const isBuiltin = (specifier: string): boolean => specifier.startsWith("node:") || builtins.has(packageOf(specifier))

const isAdapter = (name: string): boolean => name.startsWith("@analytics/adapter-")

/** The package of the test kits, which every adapter's tests import. */
const testKits = "@analytics/testing"

/**
 * Core's domains (its `src` folders) and the domains each imports besides itself: what the code
 * imports, written down, so that a new dependency between domains is a decision (a line changed
 * here) and the graph stays without cycles (checked below). README "Layout" and decision 0028.
 */
export const coreDomains: Readonly<Record<string, ReadonlyArray<string>>> = {
  platform: [],
  tenancy: ["platform"],
  limits: ["platform", "tenancy"],
  webhooks: ["platform", "tenancy"],
  audit: ["platform", "tenancy", "webhooks"],
  directory: ["platform", "tenancy", "webhooks", "audit"],
  auth: ["platform", "tenancy", "limits", "webhooks", "audit", "directory"],
  datasets: ["platform", "tenancy", "limits", "webhooks", "audit", "directory", "auth"],
  reports: ["platform", "tenancy", "webhooks", "audit", "datasets"],
  questions: ["platform", "tenancy", "limits", "directory", "auth", "datasets", "reports"],
  sharing: ["platform", "tenancy", "limits", "webhooks", "audit", "directory", "auth", "datasets", "reports"],
  comments: ["platform", "tenancy", "webhooks", "audit", "directory", "auth", "datasets", "reports", "sharing"],
  exports: ["platform", "tenancy", "limits", "webhooks", "audit", "directory", "auth", "datasets", "reports", "sharing"],
  provisioning: ["platform", "tenancy", "webhooks", "audit", "directory", "auth", "exports"],
  workers: ["platform", "webhooks", "auth", "datasets", "reports", "exports"]
}

/** Each cycle of the graph once, as its path (`a → b → a`), and each domain it names without an entry. */
export const graphFaults = (domains: Readonly<Record<string, ReadonlyArray<string>>>): Array<string> => {
  const faults: Array<string> = []
  const done = new Set<string>()
  const visit = (domain: string, trail: ReadonlyArray<string>) => {
    const at = trail.indexOf(domain)
    if (at >= 0) return void faults.push([...trail.slice(at), domain].join(" → "))
    if (done.has(domain)) return
    for (const next of domains[domain] ?? []) {
      if (domains[next] === undefined) faults.push(`${domain} → ${next}, a domain without an entry`)
      else visit(next, [...trail, domain])
    }
    done.add(domain)
  }
  for (const domain of Object.keys(domains)) visit(domain, [])
  return faults
}

/** The first path segment of `file` under `dir` (a folder name, or the file itself at the top). */
const firstSegment = (dir: string, file: string): string => path.relative(dir, file).split(path.sep)[0]

/** Where the table of domains is written (this file, the table's line), for a fault of the table itself. */
const tableFile = "scripts/check-imports.ts"
const tableLine = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").findIndex((l) => l.startsWith("export const coreDomains")) + 1

export const checkImports = (root: string, domains = coreDomains): ReadonlyArray<Violation> => {
  const workspaces = readWorkspaces(root)
  const byName = new Map(workspaces.map((w) => [w.name, w]))
  const violations: Array<Violation> = graphFaults(domains).map((fault) => ({
    file: tableFile,
    line: tableLine,
    rule: "core's domains form no cycle and name only domains of the table",
    specifier: fault
  }))
  const undeclared = new Set<string>()
  for (const own of workspaces) {
    const isCore = own.name === "@analytics/core"
    const coreSrc = path.join(own.dir, "src")
    const isApi = own.name === "@analytics/api"
    const isTestKits = own.name === testKits
    for (const file of tsFiles(path.join(own.dir, "src"))) {
      const rel = path.relative(root, file).split(path.sep).join("/")
      // a file in a folder of core, or undefined for the files at the top of `src` and other packages
      const domain = isCore && path.dirname(file) !== coreSrc ? firstSegment(coreSrc, file) : undefined
      if (domain !== undefined && domains[domain] === undefined && !undeclared.has(domain)) {
        undeclared.add(domain)
        violations.push({ file: rel, line: 1, rule: "core's folders are domains of the table", specifier: domain })
      }
      const inBrowser = own.name === "@analytics/viewer" && !viewerNodeFiles.has(path.relative(coreSrc, file))
      for (const { line, specifier, typeOnly } of specifiersOf(file)) {
        const report = (rule: string) => violations.push({ file: rel, line, rule, specifier })
        if (specifier.startsWith(".")) {
          // a relative path that leaves the package reaches into another one
          const resolved = path.resolve(path.dirname(file), specifier)
          if (path.relative(own.dir, resolved).startsWith("..")) {
            report("no deep imports across packages")
          }
          const allowed = domain === undefined ? undefined : domains[domain]
          if (allowed !== undefined && !path.relative(coreSrc, resolved).startsWith("..")) {
            const to = firstSegment(coreSrc, resolved)
            if (to !== domain && !allowed.includes(to)) report(`core's ${domain}/ imports only the domains it declares`)
          }
          continue
        }
        const pkg = packageOf(specifier)
        const target = byName.get(pkg)
        if (target !== undefined && target !== own && !target.entryPoints.has(specifier)) {
          report("no deep imports across packages")
        }
        if (isAdapter(own.name) && isAdapter(pkg) && pkg !== own.name) report("no adapter imports another adapter")
        if (isTestKits && isAdapter(pkg)) report("the test kits import no adapter")
        if (isCore) {
          if (isBuiltin(specifier)) report("core imports no Node built-in")
          else if (!coreAllowed.includes(pkg)) report(`core imports only ${coreAllowed.join(" and ")}`)
        }
        if (isApi && (isBuiltin(specifier) || !apiAllowed.includes(pkg))) report(`the contract imports only ${apiAllowed.join(" and ")}`)
        if (inBrowser) {
          if (isBuiltin(specifier)) report("browser code imports no Node built-in")
          else if (!typeOnly && typesOnlyInBrowser.includes(pkg)) report(`browser code imports ${typesOnlyInBrowser.join(", ")} for types only`)
        }
      }
    }
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."))
  const violations = checkImports(root)
  for (const v of violations) console.error(`${v.file}:${v.line}: ${v.rule} — ${v.specifier}`)
  if (violations.length > 0) {
    console.error(`check-imports: ${violations.length} violation(s)`)
    process.exit(1)
  }
  const files = readWorkspaces(root).reduce((n, w) => n + tsFiles(path.join(w.dir, "src")).length, 0)
  console.log(`check-imports: ${files} files in packages/*/src, no violations`)
}
