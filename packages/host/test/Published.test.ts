/**
 * The packages as a user gets them (issue "the library, for real"; decision
 * 0006): every package packed from its build and published to a throwaway
 * registry, then, in directories outside the repository, each example
 * installed from it and its own test run there on Node 24 and on Node 22,
 * and the host installed into an empty directory and started. Nothing of
 * the repository is on the path: no workspace links, no sources, no
 * `@analytics/source` condition.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { afterAll, assert, beforeAll, describe, inject, it } from "vitest"
import { freshDatabase } from "@analytics/testing/postgres"
import { Effect, Exit, Scope, Semaphore } from "effect"
import { freePort } from "./HostProcess.ts"
import { command, installNode22, type Registry, repoRoot, startRegistry, userEnv } from "./LocalRegistry.ts"

const node24 = path.dirname(process.execPath)
const serverUrl = inject("databaseUrl") ?? ""

/** The examples with a test of their own. */
const examples = fs.readdirSync(path.join(repoRoot, "examples"))
  .filter((name) => fs.existsSync(path.join(repoRoot, "examples", name, "package.json")))
  .sort()

/** At most this many installs and test runs at once, on a machine of two cores. */
const installs = Semaphore.makeUnsafe(2)
const limited = <A>(task: () => Promise<A>): Promise<A> =>
  Effect.runPromise(installs.withPermit(Effect.promise(task)))

const copyExample = (name: string, into: string) =>
  fs.cpSync(path.join(repoRoot, "examples", name), into, {
    recursive: true,
    filter: (source) => !source.split(path.sep).includes("node_modules")
  })

/** The copies of `name` nested under another package of `modules` (a fresh install's registry resolution can make them). */
const nestedCopies = (modules: string, name: string): ReadonlyArray<string> =>
  fs.readdirSync(modules, { recursive: true, encoding: "utf8" })
    .filter((entry) => entry.endsWith(`${path.sep}node_modules${path.sep}${name}${path.sep}package.json`))

describe("the published packages, outside the repository", () => {
  let root = ""
  let registry: Registry
  let node22 = ""
  // A database of their own for the examples that take DATABASE_URL (on Node 24), dropped at the end.
  const databases = Effect.runSync(Scope.make())
  let databaseUrl = ""
  const timings: Array<string> = []

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-published-"))
    assert.isFalse(root.startsWith(repoRoot + path.sep), "the user's directories are outside the repository")
    ;[registry, node22] = await Promise.all([
      startRegistry(path.join(root, "registry"), node24),
      installNode22(path.join(root, "node22"), node24)
    ])
    const version = (await command(path.join(node22, "node"), ["--version"], { cwd: root, env: userEnv(node22) })).trim()
    assert.match(version, /^v22\./)
    if (serverUrl !== "") databaseUrl = await Effect.runPromise(Scope.provide(freshDatabase(serverUrl), databases))
  }, 600_000)

  afterAll(async () => {
    await registry?.stop()
    await Effect.runPromise(Scope.close(databases, Exit.void))
    if (timings.length > 0) {
      console.log(
        `Published tarballs:\n${registry.tarballs.map((t) => `  ${t.name}: ${(t.bytes / 1024).toFixed(1)} KiB`).join("\n")}\n` +
          `Installs from the registry:\n${timings.map((line) => `  ${line}`).join("\n")}`
      )
    }
    if (root !== "") fs.rmSync(root, { recursive: true, force: true })
  })

  it("publishes every package, none private, each with its build only", () => {
    const names = registry.tarballs.map((t) => t.name).sort()
    assert.strictEqual(names.length, fs.readdirSync(path.join(repoRoot, "packages")).filter((d) => fs.existsSync(path.join(repoRoot, "packages", d, "package.json"))).length)
    assert.include(names, "analytics-viewer-0.1.0.tgz")
  })

  for (const [label, bin] of [["Node 24", () => node24], ["Node 22", () => node22]] as const) {
    it.concurrent(`${label}: @analytics/host installed into an empty directory serves /healthz and the console`, () =>
      limited(async () => {
        const dir = path.join(root, `host-${label.replace(" ", "")}`)
        fs.mkdirSync(dir)
        fs.writeFileSync(path.join(dir, ".npmrc"), registry.npmrc)
        const env = userEnv(bin())
        const started = Date.now()
        await command("npm", ["install", "--no-audit", "--no-fund", "@analytics/host@0.1.0"], { cwd: dir, env })
        timings.push(`@analytics/host on ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
        assert.isFalse(fs.existsSync(path.join(dir, "node_modules", "@analytics", "core", "src")), "no sources are shipped")
        // One copy of Effect: a second (a package's own, nested under it) holds other services, tags and
        // Redacted values than the first, and the host fails at its first request.
        assert.deepStrictEqual(nestedCopies(path.join(dir, "node_modules"), "effect"), [], "effect is installed once")
        const port = await freePort()
        const host = spawn(path.join(dir, "node_modules", ".bin", "analytics-host"), ["serve"], {
          cwd: dir,
          env: { ...env, PORT: String(port), LOG_LEVEL: "warn" },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        host.stdout!.on("data", (chunk) => (output += chunk))
        host.stderr!.on("data", (chunk) => (output += chunk))
        try {
          const base = `http://127.0.0.1:${port}`
          const deadline = Date.now() + 120_000
          let token: string | undefined
          while (Date.now() < deadline && host.exitCode === null && token === undefined) {
            token = /admin token \(shown once\):\s+(\S+)/.exec(output)?.[1]
            if (token === undefined) await new Promise((resolve) => setTimeout(resolve, 250))
          }
          assert.isDefined(token, `no admin token printed:\n${output}`)
          const health = await fetch(`${base}/healthz`)
          assert.strictEqual(health.status, 200, output)
          const consolePage = await fetch(`${base}/`)
          assert.strictEqual(consolePage.status, 200, output)
          const html = await consolePage.text()
          const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1]
          assert.isDefined(script, html)
          const asset = await fetch(new URL(script!, `${base}/`))
          assert.strictEqual(asset.status, 200, `the console's script ${script}`)
          const workspaces = await fetch(`${base}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })
          assert.strictEqual(workspaces.status, 200, await workspaces.text())
          // PGlite by default, in the directory it was started in.
          assert.isTrue(fs.existsSync(path.join(dir, ".data")), `no .data in ${dir}: ${fs.readdirSync(dir).join(", ")}`)
        } finally {
          host.kill("SIGTERM")
          await new Promise((resolve) => host.exitCode === null ? host.once("exit", resolve) : resolve(undefined))
        }
      }), 300_000)
  }

  for (const name of examples) {
    it.concurrent(`examples/${name} installs from the registry and passes its test on Node 24 and Node 22`, () =>
      limited(async () => {
        const dir = path.join(root, "examples", name)
        copyExample(name, dir)
        fs.writeFileSync(path.join(dir, ".npmrc"), registry.npmrc)
        const started = Date.now()
        await command("npm", ["install", "--no-audit", "--no-fund"], { cwd: dir, env: userEnv(node24) })
        timings.push(`examples/${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
        for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
          if (!dependency.startsWith("@analytics/")) continue
          const installed = fs.realpathSync(path.join(dir, "node_modules", dependency))
          assert.isTrue(installed.startsWith(path.join(dir, "node_modules")), `${dependency} is installed, not linked: ${installed}`)
        }
        // On Node 24 against the test PostgreSQL when there is one (examples that take DATABASE_URL use it), on Node 22 without.
        for (const env of [userEnv(node24, databaseUrl === "" ? {} : { DATABASE_URL: databaseUrl }), userEnv(node22)]) {
          const output = await command("npm", ["test"], { cwd: dir, env })
          // Standalone, a test that cannot find what the repository's setup gives would skip, not fail: none may.
          assert.match(output, /Tests\s+\d+ passed/, output)
          assert.notMatch(output, /\d+ skipped/, output)
        }
      }), 900_000)
  }
})
