/**
 * `npm run bench:http`: three scenarios with a bearer token against ours,
 * Fastify, bare `node:http` and the same work on Effect's own platform
 * (`effect.ts`, the floor under ours), in one run:
 * - `page1`: `GET /v1/workspaces?limit=20`;
 * - `page2`: `GET /v1/workspaces?limit=20&cursor=<page 1's next_cursor>` (the cursor opened and verified);
 * - `post`:  `POST /v1/workspaces` with `Idempotency-Key` and a JSON body, a fixed
 *            mix of first sights (fresh keys) and replays (a pool of keys used before measuring).
 * Each server runs in its own child process, one at a time; autocannon drives
 * it from this one. Before measuring, every server is started once and asked
 * every scenario (and its refusals); the runner fails when their answers differ
 * in shape (status, content type, replay header, rate-limit headers, body keys,
 * body size), or when an answer, a refusal included, lacks one of the spec's
 * six `X-RateLimit-*` headers.
 *
 * Environment:
 * - `BENCH_SECONDS`        measured seconds per scenario and server (default 10), after a warm-up
 * - `BENCH_WARMUP_SECONDS` warm-up seconds per scenario and server (default 2)
 * - `BENCH_CONNECTIONS`    concurrent connections (default 50)
 * - `BENCH_SCENARIOS`      comma-separated scenarios (`page1,page2,post`, the default: all)
 * - `BENCH_POST_REPLAYS`   one POST in this many is a replay, the others first sights (default 4)
 * - `BENCH_ROUNDS`         rounds (default 1); servers are interleaved round by
 *                          round and each measure's median over the rounds is
 *                          reported, which evens out background load on a shared machine
 * - `BENCH_ONLY`           comma-separated servers to run (`ours,fastify,node:http,effect`)
 * - `BENCH_PROFILE`        a server to run under `node --cpu-prof`; its profile is
 *                          written to `bench/http/profiles/` and summarised
 * - `BENCH_OUTPUT_DIR`     where `last-run.json` goes (default `bench/http`)
 * - `BENCH_NODE_FLAGS`     V8 flags every server runs with, space-separated (default: the
 *                          host's, `V8Flags.serving` of adapter-node; `none` for V8's defaults)
 * - `BENCH_INTERLEAVED=1`  each server runs two variants in one process, switched every
 *                          200 ms (`globalThis.benchVariant`, read by the change under test),
 *                          and the CPU µs per request of each variant is reported
 *
 * Results are printed and written to `last-run.json`.
 */
import { writeRunRecord } from "../RunRecord.ts"
import autocannon from "autocannon"
import { fork } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import {
  benchPath,
  type CpuReport,
  cursorKeyOf,
  type CursorPayload,
  cursorSecretVariable,
  openCursor,
  pageLimit,
  type Ready,
  sealCursorWith,
  uuidv7,
  workspacesPath
} from "./shared.ts"
import { nodeFlagsOf, poolSize, postBody, postKey, ratioPairs, replayEvery, servers } from "./mix.ts"
import * as Crypto from "node:crypto"
import { summarise } from "./profile-summary.ts"

const here = import.meta.dirname
const outputDir = process.env["BENCH_OUTPUT_DIR"] ?? here
const seconds = Number(process.env["BENCH_SECONDS"] ?? 10)
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50)
const warmupSeconds = Number(process.env["BENCH_WARMUP_SECONDS"] ?? 2)
const pipelining = 1
const rounds = Math.max(1, Number(process.env["BENCH_ROUNDS"] ?? 1))
const profiled = process.env["BENCH_PROFILE"]
const profileDir = Path.join(here, "profiles")
/** The same for every server: the host's flags unless told otherwise. */
const nodeFlags = nodeFlagsOf(process.env["BENCH_NODE_FLAGS"])
type ServerName = typeof servers[number]["name"]

const only = (process.env["BENCH_ONLY"] ?? profiled ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const selected = only.length === 0 ? servers : servers.filter((s) => only.includes(s.name))
if (selected.length === 0) throw new Error(`BENCH_ONLY names no server: ${only.join(",")}`)

const allScenarios = ["page1", "page2", "post"] as const
type Scenario = typeof allScenarios[number]
const asked = (process.env["BENCH_SCENARIOS"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const unknownScenarios = asked.filter((s) => !(allScenarios as ReadonlyArray<string>).includes(s))
if (unknownScenarios.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknownScenarios.join(",")} (${allScenarios.join(",")})`)
/** Always in this order: the POST adds workspaces, which would change the pages measured after it. */
const scenarios: ReadonlyArray<Scenario> = asked.length === 0 ? allScenarios : allScenarios.filter((s) => asked.includes(s))

/** What each scenario sends, for the record and the headings. */
const requestOf: Record<Scenario, string> = {
  page1: `GET ${benchPath}`,
  page2: `GET ${benchPath}&cursor=<page 1's next_cursor>`,
  post: `POST ${workspacesPath} with Idempotency-Key: ${replayEvery - 1} first sight(s) then 1 replay of ${poolSize} pool keys, in turn`
}


// ---------------------------------------------------------------------------
// child processes

interface Child {
  readonly ready: Ready
  readonly cpu: () => Promise<CpuReport>
  readonly stop: () => Promise<void>
}

const start = (name: ServerName, file: string): Promise<Child> => {
  const execArgv = ["--disable-warning=ExperimentalWarning", ...nodeFlags]
  if (profiled === name) {
    Fs.mkdirSync(profileDir, { recursive: true })
    execArgv.push(
      "--cpu-prof",
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${name.replace(/\W/g, "_")}-${Date.now()}.cpuprofile`,
      "--cpu-prof-interval=250"
    )
  }
  const child = fork(Path.join(here, file), [], {
    execArgv,
    env: { ...process.env, [cursorSecretVariable]: cursorSecret },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let onCpu: ((report: CpuReport) => void) | undefined
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000)
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before it was ready`)))
    child.on("message", (message: Ready | CpuReport) => {
      if (message.type === "cpu") return onCpu?.(message)
      clearTimeout(timer)
      resolve({
        ready: message,
        cpu: () =>
          new Promise((resolveCpu) => {
            onCpu = resolveCpu
            child.send({ type: "cpu" })
          }),
        stop: async () => {
          child.send({ type: "stop" })
          const killer = setTimeout(() => child.kill("SIGKILL"), 15_000)
          await exited
          clearTimeout(killer)
        }
      })
    })
  })
}

// ---------------------------------------------------------------------------
// checks before measuring: the same answers, and the same refusals

const fail = (name: string, what: string): never => {
  throw new Error(`${name}: ${what}`)
}

/** The cursor secret every server seals with: the runner opens each one's cursor with it, and forges some. */
const cursorSecret = Crypto.randomBytes(32).toString("base64url")
const cursorKey = await cursorKeyOf(Buffer.from(cursorSecret, "base64url"))

/** The parts of a cursor payload that do not depend on time, keys, tenant or data. */
const cursorShape = (payload: Record<string, unknown>) =>
  JSON.stringify({
    keys: Object.keys(payload),
    v: payload["v"],
    e: payload["e"],
    q: payload["q"],
    tenant: typeof payload["n"],
    s: payload["s"]
  })

/** The structure of a JSON value: keys in order and the types of the leaves (arrays: their length and first item). */
const structure = (value: unknown): unknown => {
  if (Array.isArray(value)) return { length: value.length, item: value.length === 0 ? null : structure(value[0]) }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, structure(v)]))
  }
  return value === null ? "null" : typeof value
}

/**
 * The rate-limit headers of the API spec (section 8.1), which every answer
 * must carry. Their values differ between servers (each counts its own
 * requests, with its own algorithm), so only their presence and the shape of
 * their values are checked: integers for the limits and remaining counts,
 * ISO 8601 UTC instants for the resets. Ours also sends `RateLimit-Policy`,
 * `RateLimit` and `X-Request-Id`, not required of the peers.
 */
const rateLimitHeaders = [
  "x-ratelimit-limit-burst",
  "x-ratelimit-remaining-burst",
  "x-ratelimit-reset-burst",
  "x-ratelimit-limit-sustained",
  "x-ratelimit-remaining-sustained",
  "x-ratelimit-reset-sustained"
] as const
const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/

/** Each rate-limit header's value shape: `integer` or `ISO 8601` when right, `missing` or what is wrong otherwise. */
const rateLimitShape = (headers: Headers): Record<string, string> =>
  Object.fromEntries(rateLimitHeaders.map((name) => {
    const value = headers.get(name)
    const kind = name.includes("-reset-") ? "ISO 8601" : "integer"
    if (value === null) return [name, "missing"]
    const right = kind === "integer" ? /^\d+$/.test(value) : isoInstant.test(value) && !Number.isNaN(Date.parse(value))
    return [name, right ? kind : `not ${kind}: ${value}`]
  }))

/** Fails unless the six rate-limit headers are there, each of the right shape. */
const expectRateLimitHeaders = (name: string, what: string, shapes: Record<string, string>) => {
  const wrong = Object.entries(shapes).filter(([, shape]) => shape !== "integer" && shape !== "ISO 8601")
  if (wrong.length > 0) fail(name, `${what}: rate-limit headers ${wrong.map(([header, shape]) => `${header} ${shape}`).join(", ")}`)
}

/** What the servers' answers to a scenario must share. */
interface Shape {
  readonly status: number
  readonly contentType: string
  readonly replayed: string | null
  readonly rateLimit: Record<string, string>
  readonly bytes: number
  readonly body: unknown
  readonly cursor?: string
}

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

const ask = async (base: string, path: string, init: RequestInit = {}): Promise<Answer> => {
  const response = await fetch(`${base}${path}`, init)
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON: compared as text
  }
  return { status: response.status, headers: response.headers, text, json }
}

const shapeOf = (answer: Answer, cursor?: string): Shape => ({
  status: answer.status,
  // The media type: Fastify adds `; charset=utf-8`, which clients ignore for JSON.
  contentType: (answer.headers.get("content-type") ?? "").split(";")[0].trim(),
  replayed: answer.headers.get("idempotent-replayed"),
  rateLimit: rateLimitShape(answer.headers),
  bytes: Buffer.byteLength(answer.text),
  body: structure(answer.json),
  ...(cursor === undefined ? {} : { cursor })
})

/** Checks a refusal's status and, when given, its problem code. */
const expectRefusal = (name: string, what: string, answer: Answer, status: number, code?: string) => {
  if (answer.status !== status) fail(name, `${what} answered ${answer.status} instead of ${status}: ${answer.text}`)
  if (code !== undefined && answer.json?.code !== code) fail(name, `${what} answered code ${answer.json?.code} instead of ${code}`)
  expectRateLimitHeaders(name, what, rateLimitShape(answer.headers))
}

type Page = { data: Array<Record<string, unknown>>; page: { limit: unknown; next_cursor: unknown; has_more: unknown } }

/** A page's items in the right shape and order, `has_more` and a cursor that opens with the shared secret. */
const checkPage = async (name: string, what: string, answer: Answer): Promise<{ page: Page; payload: Record<string, unknown> }> => {
  if (answer.status !== 200) fail(name, `${what} answered ${answer.status}: ${answer.text}`)
  const body = answer.json as Page
  if (body.data.length !== pageLimit) fail(name, `${what}: ${body.data.length} items instead of ${pageLimit}`)
  const keys = ["workspace_id", "name", "description", "created_at"]
  for (const item of body.data) {
    if (JSON.stringify(Object.keys(item)) !== JSON.stringify(keys)) fail(name, `${what}: item keys ${Object.keys(item)}`)
    if (typeof item["created_at"] !== "string" || Number.isNaN(Date.parse(item["created_at"]))) {
      fail(name, `${what}: created_at ${String(item["created_at"])} is not an ISO date`)
    }
  }
  for (let i = 1; i < body.data.length; i++) {
    if (!ordered(body.data[i - 1], body.data[i])) fail(name, `${what}: items are not sorted by created_at desc, workspace_id asc`)
  }
  const { page } = body
  if (page.limit !== pageLimit || page.has_more !== true || typeof page.next_cursor !== "string") {
    fail(name, `${what}: page ${JSON.stringify(page)}`)
  }
  // One unpadded base64url string (decision 0003), which opens with the shared secret.
  if (!/^[\w-]+$/.test(page.next_cursor as string)) fail(name, `${what}: next_cursor ${String(page.next_cursor)}`)
  const payload = await openCursor(cursorKey, page.next_cursor as string)
    .catch((error) => fail(name, `${what}: next_cursor does not open: ${error}`))
  return { page: body, payload }
}

/** Whether `a` comes strictly before `b` in `-created_at` order (ties by workspace_id ascending). */
const ordered = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  const ta = Date.parse(a["created_at"] as string)
  const tb = Date.parse(b["created_at"] as string)
  return ta > tb || (ta === tb && (a["workspace_id"] as string) < (b["workspace_id"] as string))
}

/** Page 1: its answer, and its cursor (which page 2 sends). */
const checkPage1 = async (name: string, base: string, token: string) => {
  const auth = { authorization: `Bearer ${token}` }
  const answer = await ask(base, benchPath, { headers: auth })
  const { page, payload } = await checkPage(name, `GET ${benchPath}`, answer)
  const refusals: Array<[string, Record<string, string>, number]> = [
    [benchPath, {}, 401],
    [benchPath, { authorization: "Bearer ast_not-a-token" }, 401],
    ["/v1/workspaces?limit=0", auth, 400],
    ["/v1/workspaces?limit=501", auth, 400],
    ["/v1/workspaces?limit=2.5", auth, 400],
    ["/v1/workspaces?limit=ten", auth, 400],
    ["/v1/workspaces?limit=20&unknown=1", auth, 400]
  ]
  for (const [path, headers, status] of refusals) expectRefusal(name, `GET ${path}`, await ask(base, path, { headers }), status)
  return { answer, page, payload, cursor: page.page.next_cursor as string }
}

/** Page 2 from page 1's cursor: the next 20 items, the snapshot kept; and the cursor refusals, forged ones included. */
const checkPage2 = async (name: string, base: string, token: string, first: Awaited<ReturnType<typeof checkPage1>>) => {
  const auth = { authorization: `Bearer ${token}` }
  const path = `${benchPath}&cursor=${first.cursor}`
  const answer = await ask(base, path, { headers: auth })
  const { page, payload } = await checkPage(name, "page 2", answer)
  const lastOfFirst = first.page.data[first.page.data.length - 1]
  if (!ordered(lastOfFirst, page.data[0])) fail(name, "page 2 does not continue after page 1's last item")
  if (payload["b"] !== first.payload["b"]) fail(name, `page 2's cursor has snapshot ${payload["b"]}, page 1's ${first.payload["b"]}`)
  if (JSON.stringify(payload["k"]) === JSON.stringify(first.payload["k"])) fail(name, "page 2's cursor points where page 1's does")

  const forge = (change: Partial<CursorPayload>) => sealCursorWith(cursorKey, { ...(first.payload as unknown as CursorPayload), ...change })
  const flipped = first.cursor.slice(0, 20) + (first.cursor[20] === "A" ? "B" : "A") + first.cursor.slice(21)
  const refusals: Array<[string, string, string]> = [
    ["another limit", `/v1/workspaces?limit=21&cursor=${first.cursor}`, "pagination/cursor-mismatch"],
    ["an altered cursor", `${benchPath}&cursor=${flipped}`, "pagination/cursor-invalid"],
    ["a padded cursor", `${benchPath}&cursor=${first.cursor}%3D`, "pagination/cursor-invalid"],
    ["another tenant's cursor", `${benchPath}&cursor=${await forge({ n: uuidv7(Date.now()) })}`, "pagination/cursor-mismatch"],
    ["an expired cursor", `${benchPath}&cursor=${await forge({ t: Date.now() - 25 * 3600_000 })}`, "pagination/cursor-expired"]
  ]
  for (const [what, refusedPath, code] of refusals) {
    expectRefusal(name, `page 2 with ${what}`, await ask(base, refusedPath, { headers: auth }), 400, code)
  }
  return { answer, payload }
}

const postInit = (token: string, key: string | undefined, body: string): RequestInit => ({
  method: "POST",
  headers: {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    ...(key === undefined ? {} : { "idempotency-key": key })
  },
  body
})

/** The POST: a first sight, its replay (same body, keys reordered), and the refusals of keys and bodies. */
const checkPost = async (name: string, base: string, token: string) => {
  const key = `check-${Crypto.randomUUID()}`
  const created = await ask(base, workspacesPath, postInit(token, key, postBody))
  if (created.status !== 201) fail(name, `POST answered ${created.status}: ${created.text}`)
  if (created.headers.get("idempotent-replayed") !== null) fail(name, "a first sight says idempotent-replayed")
  const item = created.json as Record<string, unknown>
  if (JSON.stringify(Object.keys(item)) !== JSON.stringify(["workspace_id", "name", "description", "created_at"])) {
    fail(name, `POST answered keys ${Object.keys(item)}`)
  }
  const sent = JSON.parse(postBody) as Record<string, unknown>
  if (item["name"] !== sent["name"] || item["description"] !== sent["description"]) fail(name, `POST answered ${created.text}`)
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(sent).reverse()))
  const replayed = await ask(base, workspacesPath, postInit(token, key, ` ${reordered} `))
  if (replayed.status !== 201 || replayed.text !== created.text) {
    fail(name, `the replay answered ${replayed.status} ${replayed.text}, the first sight ${created.status} ${created.text}`)
  }
  if (replayed.headers.get("idempotent-replayed") !== "true") fail(name, "the replay does not say idempotent-replayed: true")

  const post = (k: string | undefined, body: string) => ask(base, workspacesPath, postInit(token, k, body))
  const fresh = () => `check-${Crypto.randomUUID()}`
  const refusals: Array<[string, Promise<Answer>, number, string]> = [
    ["its key with another body", post(key, JSON.stringify({ name: "Another" })), 422, "idempotency/key-reused"],
    ["a key with a space", post("a key", postBody), 400, "idempotency/invalid-key"],
    ["a key of 256 characters", post("k".repeat(256), postBody), 400, "idempotency/invalid-key"],
    ["an unknown property", post(fresh(), JSON.stringify({ name: "X", extra: 1 })), 400, "request/invalid"],
    ["an untrimmed name", post(fresh(), JSON.stringify({ name: " X" })), 400, "request/invalid"],
    ["an empty name", post(fresh(), JSON.stringify({ name: "" })), 400, "request/invalid"],
    ["a name of 201 characters", post(fresh(), JSON.stringify({ name: "n".repeat(201) })), 400, "request/invalid"],
    ["a null description", post(fresh(), JSON.stringify({ name: "X", description: null })), 400, "request/invalid"],
    ["malformed JSON", post(fresh(), "{"), 400, "request/malformed-json"]
  ]
  for (const [what, answer, status, code] of refusals) expectRefusal(name, `POST with ${what}`, await answer, status, code)
  // A refused body does not keep its key; a name of 200 code points (astral ones count once) is accepted; no key, no replay.
  const retried = fresh()
  expectRefusal(name, "POST with an untrimmed name", await post(retried, JSON.stringify({ name: "Y " })), 400, "request/invalid")
  expectRefusal(name, "POST of a key refused for its body, retried", await post(retried, postBody), 201)
  expectRefusal(name, "POST with a name of 200 astral characters", await post(fresh(), JSON.stringify({ name: "😀".repeat(200) })), 201)
  const unkeyed = await post(undefined, postBody)
  expectRefusal(name, "POST without a key", unkeyed, 201)
  if (unkeyed.headers.get("idempotent-replayed") !== null) fail(name, "a POST without a key says idempotent-replayed")
  return { created, replayed }
}

type Shapes = Partial<Record<string, Shape>>

/** Starts a server, asks it every scenario and its refusals, and returns the answers' shapes. */
const check = async (name: ServerName, file: string): Promise<Shapes> => {
  const child = await start(name, file)
  try {
    const base = `http://127.0.0.1:${child.ready.port}`
    const token = child.ready.token
    const shapes: Shapes = {}
    const first = await checkPage1(name, base, token)
    if (scenarios.includes("page1")) shapes["page1"] = shapeOf(first.answer, cursorShape(first.payload))
    if (scenarios.includes("page2")) {
      const second = await checkPage2(name, base, token, first)
      shapes["page2"] = shapeOf(second.answer, cursorShape(second.payload))
    }
    if (scenarios.includes("post")) {
      const { created, replayed } = await checkPost(name, base, token)
      shapes["post first sight"] = shapeOf(created)
      shapes["post replay"] = shapeOf(replayed)
    }
    for (const [what, shape] of Object.entries(shapes)) expectRateLimitHeaders(name, what, shape!.rateLimit)
    return shapes
  } finally {
    await child.stop()
  }
}

// ---------------------------------------------------------------------------
// measuring

interface Measured {
  readonly scenario: Scenario
  readonly server: ServerName
  readonly reqPerSec: number
  readonly reqPerSecStddev: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly latencyAvgMs: number
  readonly totalRequests: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly serverCpuPercent: number
  /** Server CPU time (all threads) per completed request: robust to other load on the machine. */
  readonly serverCpuMicrosPerRequest: number
  readonly loadgenCpuPercent: number
  readonly loadAverage1m: number
  /** Under `BENCH_INTERLEAVED`: CPU µs per request of variants 0 and 1. */
  readonly variantCpuMicrosPerRequest?: readonly [number, number]
}

/** CPU µs per request of each variant between two reports (`BENCH_INTERLEAVED`). */
const perVariant = (before: CpuReport, after: CpuReport): readonly [number, number] | undefined => {
  const [from, to] = [before.variants, after.variants]
  if (from === undefined || to === undefined) return undefined
  const of = (i: 0 | 1) => Math.round((to.cpuMicros[i] - from.cpuMicros[i]) / Math.max(1, to.requests[i] - from.requests[i]))
  return [of(0), of(1)]
}

/** What autocannon sends for a scenario; `post` counts its requests runner-wide so every server gets the same mix. */
const loadOf = (scenario: Scenario, token: string, cursor: string, poolKeys: ReadonlyArray<string>, tag: string) => {
  const authorization = `Bearer ${token}`
  if (scenario === "page1") return { headers: { authorization }, path: benchPath }
  if (scenario === "page2") return { headers: { authorization }, path: `${benchPath}&cursor=${cursor}` }
  let sent = 0
  return {
    headers: { authorization },
    path: workspacesPath,
    requests: [{
      method: "POST",
      path: workspacesPath,
      body: postBody,
      setupRequest: (request: { headers: Record<string, string> }) => {
        const n = sent++
        const key = postKey(n, poolKeys, `bench-${tag}-${n}`)
        return {
          ...request,
          method: "POST",
          path: workspacesPath,
          body: postBody,
          headers: { ...request.headers, authorization, "content-type": "application/json", "idempotency-key": key }
        }
      }
    }]
  }
}

const load = (base: string, target: ReturnType<typeof loadOf>, duration: number) =>
  autocannon({
    url: `${base}${target.path}`,
    connections,
    pipelining,
    duration,
    headers: target.headers,
    ...("requests" in target ? { requests: target.requests } : {})
  })

/** The measured window of the profiled server, on its monotonic clock (last scenario of the last round). */
let profileWindow: { readonly from: number; readonly to: number } | undefined

const percentOfCore = (micros: number, seconds: number) => Math.round((micros / 1e6 / seconds) * 1000) / 10

/** The keys of the replays: each used once (a first sight, answered) before the warm-up, so every replay finds a stored answer. */
const makePool = async (base: string, token: string, tag: string): Promise<Array<string>> => {
  const keys = Array.from({ length: poolSize }, (_, i) => `pool-${tag}-${i}`)
  for (let i = 0; i < keys.length; i += 25) {
    await Promise.all(keys.slice(i, i + 25).map(async (key) => {
      const answer = await ask(base, workspacesPath, postInit(token, key, postBody))
      if (answer.status !== 201) throw new Error(`pool POST answered ${answer.status}: ${answer.text}`)
    }))
  }
  return keys
}

/** Starts a server and measures every scenario on it, in order. */
const measure = async (name: ServerName, file: string, round: number): Promise<Array<Measured>> => {
  const child = await start(name, file)
  const measured: Array<Measured> = []
  try {
    const base = `http://127.0.0.1:${child.ready.port}`
    const token = child.ready.token
    const first = await ask(base, benchPath, { headers: { authorization: `Bearer ${token}` } })
    if (first.status !== 200) fail(name, `GET ${benchPath} answered ${first.status}`)
    const cursor = first.json.page.next_cursor as string
    const tag = Crypto.randomBytes(6).toString("base64url")
    let poolKeys: Array<string> = []
    for (const scenario of scenarios) {
      process.stdout.write(`${rounds > 1 ? `round ${round} ` : ""}${scenario.padEnd(6)} ${name.padEnd(10)}`)
      if (scenario === "post") {
        poolKeys = await makePool(base, token, tag)
        process.stdout.write(` ${poolKeys.length} pool keys used;`)
      }
      const target = loadOf(scenario, token, cursor, poolKeys, tag)
      if (warmupSeconds > 0) {
        process.stdout.write(` warming up ${warmupSeconds} s,`)
        await load(base, target, warmupSeconds)
      }
      process.stdout.write(` measuring ${seconds} s`)
      const cpuBefore = await child.cpu()
      const loadgenBefore = process.cpuUsage()
      const result = await load(base, target, seconds)
      const loadgen = process.cpuUsage(loadgenBefore)
      const cpuAfter = await child.cpu()
      if (profiled === name) profileWindow = { from: cpuBefore.monotonicMicros, to: cpuAfter.monotonicMicros }
      const cpuMicros = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system
      const variants = perVariant(cpuBefore, cpuAfter)
      process.stdout.write(
        ` ${Math.round(result.latency.totalCount / result.duration)} req/s` +
          `${variants === undefined ? "" : `; CPU µs per request, variant 0 / 1: ${variants[0]} / ${variants[1]}`}\n`
      )
      measured.push({
        scenario,
        server: name,
        // Completed requests over the measured time (autocannon's per-second mean misses partial seconds).
        reqPerSec: result.latency.totalCount / result.duration,
        reqPerSecStddev: result.requests.stddev,
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
        latencyAvgMs: result.latency.average,
        totalRequests: result.latency.totalCount,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        serverCpuPercent: percentOfCore(cpuMicros, result.duration),
        serverCpuMicrosPerRequest: Math.round(cpuMicros / Math.max(1, result.latency.totalCount)),
        loadgenCpuPercent: percentOfCore(loadgen.user + loadgen.system, result.duration),
        loadAverage1m: Math.round(Os.loadavg()[0] * 100) / 100,
        ...(variants === undefined ? {} : { variantCpuMicrosPerRequest: variants })
      })
    }
  } finally {
    await child.stop()
  }
  return measured
}

console.log(
  `${scenarios.join(", ")} against ${selected.map((s) => s.name).join(", ")}; ${connections} connections, pipelining ${pipelining}, ` +
    `${warmupSeconds} s warm-up + ${seconds} s each` +
    `${rounds > 1 ? `, ${rounds} interleaved rounds (median reported)` : ""}` +
    ` (node ${process.version}, ${Os.cpus().length} CPUs, load average ${Os.loadavg()[0].toFixed(2)})` +
    (profiled === undefined ? "" : ` -- ${profiled} runs under --cpu-prof, its numbers are not comparable`)
)
for (const scenario of scenarios) console.log(`  ${scenario.padEnd(6)} ${requestOf[scenario]}`)

// The check: every server asked every scenario once; their answers must have the same shape.
const shapes: Record<string, Shapes> = {}
for (const { name, file } of selected) {
  shapes[name] = await check(name, file)
  console.log(`checked ${name.padEnd(10)} ${Object.keys(shapes[name]).join(", ")}: answers and refusals as the service's`)
}
const shapeNames = [...new Set(Object.values(shapes).flatMap((s) => Object.keys(s)))]
const differences: Array<string> = []
for (const what of shapeNames) {
  const seen = new Map<string, Array<string>>()
  for (const { name } of selected) {
    const text = JSON.stringify(shapes[name][what] ?? null)
    seen.set(text, [...(seen.get(text) ?? []), name])
  }
  if (seen.size > 1) {
    differences.push(`${what}:\n${[...seen].map(([text, names]) => `  ${names.join(", ")}: ${text}`).join("\n")}`)
  }
}
const shapesCheck = { ok: differences.length === 0, byServer: shapes, differences }
if (!shapesCheck.ok) {
  writeRunRecord(outputDir, { scenarios, settings: settings(), shapes: shapesCheck })
  console.error(`The servers' answers differ, so the peers no longer do the service's work; update shared.ts to match:\n${differences.join("\n")}`)
  process.exit(1)
}
console.log(
  `shapes: the same status, content type, replay header, body keys and size from every server, ` +
    `and the six rate-limit headers in the same shape (${shapeNames.join(", ")})`
)

function settings() {
  return {
    seconds,
    warmupSeconds,
    connections,
    pipelining,
    rounds,
    profiled: profiled ?? null,
    interleaved: process.env["BENCH_INTERLEAVED"] === "1",
    nodeFlags,
    post: { replayEvery, poolSize, body: postBody }
  }
}

const allRounds: Array<Measured> = []
for (let round = 1; round <= rounds; round++) {
  for (const { name, file } of selected) allRounds.push(...(await measure(name, file, round)))
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Each scenario's servers, every numeric measure taken as its median over the rounds. */
const results: Array<Measured> = scenarios.flatMap((scenario) =>
  selected.map(({ name }) => {
    const mine = allRounds.filter((r) => r.server === name && r.scenario === scenario)
    const merged: Record<string, unknown> = { ...mine[0] }
    for (const [key, value] of Object.entries(mine[0])) {
      if (typeof value === "number") merged[key] = median(mine.map((r) => r[key as keyof Measured] as number))
    }
    return merged as unknown as Measured
  })
)

// ---------------------------------------------------------------------------
// report

const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits
type Ratio = { reqPerSec: number; latencyP99: number; requestsPerCpuSecond: number }
const ratios: Record<string, Record<string, Ratio>> = {}
for (const scenario of scenarios) {
  const mine = results.filter((r) => r.scenario === scenario)
  console.log(`\n${scenario}: ${requestOf[scenario]}`)
  console.table(mine.map((r) => ({
    server: r.server,
    "req/s": round(r.reqPerSec),
    "± stddev": round(r.reqPerSecStddev),
    "p50 ms": r.latencyP50Ms,
    "p99 ms": r.latencyP99Ms,
    "avg ms": round(r.latencyAvgMs, 2),
    "server CPU %": r.serverCpuPercent,
    "CPU µs/req": r.serverCpuMicrosPerRequest,
    "loadgen CPU %": r.loadgenCpuPercent,
    "load avg": r.loadAverage1m,
    requests: r.totalRequests,
    "non-2xx": r.non2xx,
    errors: r.errors + r.timeouts
  })))
  // BENCH_INTERLEAVED: each round's pair, not a median, since a pair compares only with itself.
  for (const { name } of selected) {
    const pairs = allRounds.flatMap((r) =>
      r.server === name && r.scenario === scenario && r.variantCpuMicrosPerRequest !== undefined ? [r.variantCpuMicrosPerRequest] : []
    )
    if (pairs.length > 0) console.log(`${name}: CPU µs per request, variant 0 / variant 1, by round: ${pairs.map(([a, b]) => `${a} / ${b}`).join(", ")}`)
  }
  ratios[scenario] = {}
  for (const [name, peer] of ratioPairs) {
    const server = mine.find((r) => r.server === name)
    const other = mine.find((r) => r.server === peer)
    if (server === undefined || other === undefined) continue
    const ratio: Ratio = {
      reqPerSec: round(server.reqPerSec / other.reqPerSec, 3),
      latencyP99: round(server.latencyP99Ms / other.latencyP99Ms, 3),
      requestsPerCpuSecond: round(other.serverCpuMicrosPerRequest / server.serverCpuMicrosPerRequest, 3)
    }
    ratios[scenario][`${name} / ${peer}`] = ratio
    console.log(
      `${`${name} / ${peer}`.padEnd(16)}  req/s ${ratio.reqPerSec.toFixed(3)}x   p99 ${ratio.latencyP99.toFixed(3)}x (lower is better)` +
        `   req per CPU-second ${ratio.requestsPerCpuSecond.toFixed(3)}x`
    )
  }
  // The bar (docs/decisions/0008): ours at least 1.0x a plain server on Effect's own platform doing the same work.
  const vsEffect = ratios[scenario]["ours / effect"]
  if (vsEffect !== undefined) {
    console.log(vsEffect.reqPerSec >= 1 ? "bar met: ours >= 1.0x effect" : "bar NOT met: ours < 1.0x effect")
  }
}
const failed = results.filter((r) => r.non2xx > 0 || r.errors + r.timeouts > 0)
if (failed.length > 0) {
  console.log(
    `\nWARNING: some answers were not 2xx or failed, so those figures are not of the benchmarked work: ` +
      failed.map((r) => `${r.scenario} ${r.server} (${r.non2xx} non-2xx, ${r.errors + r.timeouts} errors)`).join(", ")
  )
}
const unsaturated = results.filter((r) => r.serverCpuPercent < 85)
if (unsaturated.length > 0) {
  console.log(
    `note: ${unsaturated.map((r) => `${r.server} (${r.scenario})`).join(", ")} used < 85% of a core while measured: the load generator ` +
      `or other processes on this ${Os.cpus().length}-CPU machine (load average above) limited it, not only the server`
  )
}

const output = writeRunRecord(outputDir, {
  scenarios,
  requests: Object.fromEntries(scenarios.map((s) => [s, requestOf[s]])),
  settings: settings(),
  shapes: shapesCheck,
  profileWindowMicros: profileWindow ?? null,
  results,
  rounds: allRounds,
  ratios
})
console.log(`results written to ${Path.relative(process.cwd(), output)}`)

if (profiled !== undefined) {
  const written = Fs.readdirSync(profileDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => Path.join(profileDir, f))
    .sort((a, b) => Fs.statSync(b).mtimeMs - Fs.statSync(a).mtimeMs)[0]
  if (written !== undefined) {
    console.log(`\nprofile: ${Path.relative(process.cwd(), written)}`)
    console.log(summarise(written, { window: profileWindow }))
  }
}
