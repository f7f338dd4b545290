/**
 * A throwaway npm registry (verdaccio, from the npm registry) with the
 * repository's packages published to it, and what a new user does with it:
 * an empty directory outside the repository, `npm install` from it, then run
 * there on a given Node. Only the `@analytics` scope comes from this
 * registry; every other package comes from the npm registry, as it would for
 * a team whose private packages live on a registry of their own.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { freePort } from "./HostProcess.ts"

const run = promisify(execFile)

/** The repository's root. */
export const repoRoot = path.resolve(import.meta.dirname, "..", "..", "..")

/**
 * What of this environment is the user's machine rather than this repository: how npm reaches
 * its registry (its configuration files, CA file and cache, proxies) and the system's CAs.
 */
const machineVariables = /^(npm_config_(globalconfig|userconfig|cafile|cache|proxy|https_proxy|noproxy|registry)|https?_proxy|no_proxy|SSL_CERT_FILE|SSL_CERT_DIR)$/i

/** The environment of a user's shell: their PATH with `nodeBin` first, their HOME and npm settings, nothing of this repository's. */
export const userEnv = (nodeBin: string, extra: Record<string, string> = {}): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name, value]) => machineVariables.test(name) && value !== undefined)) as Record<string, string>,
  PATH: `${nodeBin}${path.delimiter}${process.env["PATH"] ?? ""}`,
  HOME: process.env["HOME"] ?? os.homedir(),
  TMPDIR: os.tmpdir(),
  CI: "true",
  NO_COLOR: "1",
  // The machine's CAs, as a user's Node trusts them (a proxy's CA among them), whichever npm configuration is found.
  NODE_OPTIONS: "--use-system-ca",
  ...extra
})

/** Runs a command to its end; rejects with its output when it fails. */
export const command = async (
  file: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly timeout?: number }
): Promise<string> => {
  try {
    const { stdout, stderr } = await run(file, [...args], {
      cwd: options.cwd,
      env: options.env,
      timeout: options.timeout ?? 600_000,
      maxBuffer: 64 * 1024 * 1024
    })
    return stdout + stderr
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${file} ${args.join(" ")} (in ${options.cwd}) failed: ${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`)
  }
}

/** Every package directory under `packages/` with its manifest. */
export const workspacePackages = (): ReadonlyArray<{ readonly dir: string; readonly name: string }> =>
  fs.readdirSync(path.join(repoRoot, "packages"))
    .map((name) => path.join(repoRoot, "packages", name))
    .filter((dir) => fs.existsSync(path.join(dir, "package.json")))
    .map((dir) => ({ dir, name: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).name as string }))

/** A running registry with the packages published to it. */
export interface Registry {
  readonly url: string
  /** The `.npmrc` that takes the `@analytics` scope from this registry. */
  readonly npmrc: string
  /** Each published tarball's file name and size in bytes. */
  readonly tarballs: ReadonlyArray<{ readonly name: string; readonly bytes: number }>
  readonly stop: () => Promise<void>
}

const waitFor = async (url: string, child: ChildProcess, output: () => string) => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output()}`)
    const up = await fetch(`${url}/-/ping`).then((r) => r.ok, () => false)
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`verdaccio did not answer at ${url}:\n${output()}`)
}

/**
 * Packs every package of `packages/` (their builds: `npm run build` first), starts verdaccio on a
 * free port with its storage in `dir`, and publishes the tarballs to it.
 */
export const startRegistry = async (dir: string, nodeBin: string): Promise<Registry> => {
  const packages = workspacePackages()
  for (const { dir: pkg, name } of packages) {
    if (!fs.existsSync(path.join(pkg, "dist", "index.js"))) throw new Error(`${name} is not built: run \`npm run build\` first`)
  }
  const tarballDir = path.join(dir, "tarballs")
  fs.mkdirSync(tarballDir, { recursive: true })
  const env = userEnv(nodeBin)
  for (const { dir: pkg } of packages) {
    await command("npm", ["pack", "--silent", "--pack-destination", tarballDir], { cwd: pkg, env })
  }
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const config = path.join(dir, "verdaccio.yaml")
  fs.writeFileSync(config, [
    `storage: ${path.join(dir, "storage")}`,
    "auth:",
    "  htpasswd:",
    `    file: ${path.join(dir, "htpasswd")}`,
    "uplinks: {}",
    "packages:",
    "  '@analytics/*':",
    "    access: $all",
    "    publish: $authenticated",
    "log: { type: stdout, format: pretty, level: warn }",
    ""
  ].join("\n"))
  const bin = path.join(repoRoot, "node_modules", "verdaccio", "bin", "verdaccio")
  const child = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], {
    env: userEnv(nodeBin),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  try {
    await waitFor(url, child, () => output)
    // A user of its own to publish with (the scope takes no anonymous publishing).
    const user = await fetch(`${url}/-/user/org.couchdb.user:publisher`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "publisher", password: "publisher-password" })
    })
    const { token } = (await user.json()) as { token?: string }
    if (!user.ok || token === undefined) throw new Error(`verdaccio refused the publisher: ${user.status}`)
    const host = `//127.0.0.1:${port}/`
    const npmrc = `@analytics:registry=${url}/\n${host}:_authToken=${token}\n`
    fs.writeFileSync(path.join(dir, ".npmrc"), npmrc)
    const tarballs = fs.readdirSync(tarballDir).map((name) => ({ name, bytes: fs.statSync(path.join(tarballDir, name)).size }))
    for (const { name } of tarballs) {
      await command("npm", ["publish", path.join(tarballDir, name), "--registry", `${url}/`, "--userconfig", path.join(dir, ".npmrc")], { cwd: dir, env })
    }
    return { url, npmrc, tarballs, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Node 22 from the `node` package of the npm registry, installed into `dir`:
 * the directory holding its `node` binary.
 */
export const installNode22 = async (dir: string, nodeBin: string): Promise<string> => {
  fs.mkdirSync(dir, { recursive: true })
  // The `node` package installs its binary in a script of its own, which npm runs only when allowed.
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ private: true, allowScripts: { node: true } }))
  await command("npm", ["install", "--no-audit", "--no-fund", "node@22"], { cwd: dir, env: userEnv(nodeBin) })
  return path.join(dir, "node_modules", "node", "bin")
}
