/**
 * What the three servers of the HTTP benchmark share: the benchmarked request,
 * the data set, the work the two reference peers (Fastify and bare
 * `node:http`) do by hand to match ours, and the child-process protocol the
 * runner speaks with every server.
 *
 * The peers do the same work per request as the service does for
 * `GET /v1/workspaces?limit=20`:
 * - bearer authentication: SHA-256 of the token, looked up in a Map;
 * - `limit` validation: an integer from 1 to 500 (50 when absent);
 * - a keyset page: rows created at or before now, sorted by `created_at`
 *   descending then `workspace_id` ascending, `limit + 1` taken to learn
 *   `has_more` (the service sorts its in-memory rows per request as well);
 * - the next cursor: the same payload fields the service seals (`q` is the
 *   SHA-256 hex of the canonical query string, `limit` included, as in
 *   `Pagination.paginate`; `n` the tenant), sealed the same way: a format
 *   byte, a random 96-bit nonce, AES-256-GCM through Web Crypto with the key
 *   derived by HKDF-SHA256 from a 32-byte secret (`Cursor.makeCodec`), one
 *   unpadded base64url string. Every server seals with the secret the runner
 *   gives it (`BENCH_CURSOR_SECRET`; ours has it as its stored `cursor-hmac`),
 *   so the runner opens every server's cursor and checks that the payloads
 *   have the same fields, endpoint, query hash and sort: a change to the
 *   service's cursor shows up there;
 * - the same JSON envelope, `created_at` as an ISO 8601 string.
 *
 * Page 2 (`?limit=20&cursor=...`): the cursor opened as `Cursor.makeCodec`'s
 * `decode` does (canonical base64url, format byte, AES-256-GCM, the payload's
 * fields checked, then endpoint, query hash and tenant, then age), and the
 * page after its keyset position, bounded by its snapshot.
 *
 * `POST /v1/workspaces` with `Idempotency-Key` (decision 0004): the key checked
 * (1 to 255 printable ASCII), the body validated as `Workspace.WorkspaceCreate`
 * (`name` trimmed, 1 to 200 code points; `description` a string of at most
 * 2,000; nothing else), the fingerprint (SHA-256 of the body's canonical JSON),
 * the record of (tenant, `POST /v1/workspaces`, key) looked up: absent, reserve
 * it, create the workspace, store the 201 (status, headers, body); present
 * with the same fingerprint, replay the stored answer with
 * `idempotent-replayed: true`; with another, 422; still running, 409.
 *
 * Rate limiting (the API spec, section 8.1), on every request of the
 * benchmarked endpoint, as the service's edge does: two layers counted per
 * (tenant, endpoint class), `read` for GET and `write` for POST, with
 * rate-limiter-flexible's `RateLimiterMemory` (`makeRateLimits`); a request
 * with no valid credential is counted per client address instead, before its
 * 401; every answer of a counted request carries the six `X-RateLimit-*`
 * headers; a refusal is a 429 problem with `Retry-After`.
 */
import * as Crypto from "node:crypto"
import type * as Http from "node:http"
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible"
import { measureInProcess } from "./inproc-driver.ts"

export { benchPath, workspacesPath } from "./mix.ts"
/** The endpoint a cursor binds, as the service spells it. */
export const endpoint = "GET /v1/workspaces"
/** How many workspaces the tenant has, and how many a page shows. */
export const workspaceCount = 100
export const pageLimit = 20
/** The operator token the service is started with. */
export const operatorToken = "op"

/** Page size bounds and default, as the service's `Pagination.limits`. */
export const limits = { min: 1, max: 500, default: 50 } as const

/** The name of the i-th workspace (every server holds the same names). */
export const workspaceName = (i: number): string => `Workspace ${String(i).padStart(3, "0")}`

// ---------------------------------------------------------------------------
// data

/** A workspace row as the reference peers keep it. */
export interface WorkspaceRow {
  readonly workspace_id: string
  readonly tenant_id: string
  readonly name: string
  readonly description: string | null
  readonly created_at: Date
}

/** A UUIDv7 like the service's `uuidv7`: 48-bit millisecond timestamp, version and variant bits, random rest. */
export const uuidv7 = (millis: number): string => {
  const bytes = Crypto.randomBytes(16)
  let ts = millis
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts % 256
    ts = Math.floor(ts / 256)
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const h = bytes.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * The tenant's workspaces, created a few milliseconds apart (several share a
 * millisecond, as when the service creates them back to back), in Map
 * insertion order like the in-memory store.
 */
export const makeWorkspaces = (tenantId: string, count = workspaceCount): Array<WorkspaceRow> => {
  const start = Date.now() - 60_000
  const rows: Array<WorkspaceRow> = []
  for (let i = 0; i < count; i++) {
    const millis = start + Math.floor(i / 3)
    rows.push({
      workspace_id: uuidv7(millis),
      tenant_id: tenantId,
      name: workspaceName(i + 1),
      description: null,
      created_at: new Date(millis)
    })
  }
  return rows
}

// ---------------------------------------------------------------------------
// tokens

/** SHA-256 of a UTF-8 string, lowercase hex (the service's `ApiToken.hash`). */
export const sha256Hex = (input: string): string => Crypto.createHash("sha256").update(input).digest("hex")

/** What a token hash resolves to. */
export interface TokenRecord {
  readonly tenantId: string
  readonly userId: string
  readonly roles: ReadonlyArray<string>
}

/** A provisioned tenant: its admin token (shown once) and the hash-keyed token table. */
export const makeTenant = (): {
  readonly tenantId: string
  readonly token: string
  readonly tokens: Map<string, TokenRecord>
} => {
  const tenantId = uuidv7(Date.now())
  const token = `ast_${Crypto.randomBytes(32).toString("base64url")}`
  const tokens = new Map<string, TokenRecord>([
    [sha256Hex(token), { tenantId, userId: `admin@${tenantId}`, roles: ["admin"] }]
  ])
  return { tenantId, token, tokens }
}

/**
 * The caller's token record, or `undefined` when the `authorization` header is
 * missing, not a bearer credential, or names no token.
 */
export const authenticate = (
  tokens: ReadonlyMap<string, TokenRecord>,
  authorization: string | undefined
): TokenRecord | undefined => {
  if (authorization === undefined || authorization.length < 8) return undefined
  if (authorization.slice(0, 7).toLowerCase() !== "bearer ") return undefined
  const token = authorization.slice(7)
  if (token.length === 0 || token.length > 512) return undefined
  return tokens.get(sha256Hex(token))
}

// ---------------------------------------------------------------------------
// query validation (bare node:http; Fastify validates with its JSON schema)

/** `limit` as the service accepts it: absent (default 50) or an integer from 1 to 500. */
const parseLimit = (raw: string | null): number | undefined => {
  if (raw === null) return limits.default
  if (raw.length === 0 || raw.length > 16) return undefined
  const n = Number(raw)
  return Number.isInteger(n) && n >= limits.min && n <= limits.max ? n : undefined
}

/**
 * The canonical query string a cursor binds: every parameter except
 * `cursor` (`limit` included), sorted by name then value, percent-encoded
 * (the service's `Pagination.canonicalQuery`).
 */
export const canonicalQuery = (params: Readonly<Record<string, unknown>>): string => {
  const pairs: Array<[string, string]> = []
  for (const [name, value] of Object.entries(params)) {
    if (name === "cursor" || value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, String(v)])
  }
  if (pairs.length === 0) return ""
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")
}

/** A list request's query, checked: its page size, its cursor, and the canonical query its cursor binds. */
export interface ListQuery {
  readonly limit: number
  readonly cursor: string | undefined
  readonly query: string
}

/**
 * The list's query string (`limit` and `cursor`, nothing else) checked as
 * the service checks it, for the servers that check it by hand (`bare.ts`,
 * `effect.ts`; Fastify validates with its JSON schema).
 */
export const listQuery = (params: Readonly<Record<string, string>>): ListQuery | Problem => {
  for (const name in params) {
    if (name !== "limit" && name !== "cursor") return invalid(`Unknown query parameter ${name}`)
  }
  const limit = parseLimit(params["limit"] ?? null)
  if (limit === undefined) return invalid("limit must be an integer from 1 to 500")
  const cursor = params["cursor"]
  if (cursor !== undefined && cursor.length === 0) return invalid("cursor must not be empty")
  return { limit, cursor, query: canonicalQuery(params) }
}

// ---------------------------------------------------------------------------
// the page

/** The cursor payload the service seals (`Cursor.CursorPayload`). */
export interface CursorPayload {
  readonly v: 2
  readonly e: string
  readonly q: string
  readonly n: string
  readonly s: string
  readonly k: readonly [string | number, string]
  readonly b: number
  readonly t: number
}

/** The variable the runner passes every server's cursor secret in (32 bytes, base64url). */
export const cursorSecretVariable = "BENCH_CURSOR_SECRET"

/** This process's cursor secret: the runner's, or a random one when run alone. */
export const cursorSecret: Uint8Array = (() => {
  const given = process.env[cursorSecretVariable]
  return given === undefined ? Crypto.randomBytes(32) : Buffer.from(given, "base64url")
})()

/** The cursor format byte, the associated data of the seal (`Cursor.formatByte`). */
const cursorFormat = Uint8Array.of(2)

/**
 * The AES-256-GCM key derived from a cursor secret as the service derives
 * it (HKDF-SHA256, empty salt, `Cursor.keyInfo`), imported once as the
 * service imports its `CryptoKey` once.
 */
export const cursorKeyOf = async (secret: Uint8Array): Promise<CryptoKey> => {
  const base = await globalThis.crypto.subtle.importKey("raw", secret as Uint8Array<ArrayBuffer>, "HKDF", false, ["deriveKey"])
  return globalThis.crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("analytics cursor AES-256-GCM v2") },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"]
  )
}

/** The same key for `node:crypto` (HKDF-SHA256, empty salt, `Cursor.keyInfo`), which the peers seal and open with, synchronously, as ours does on Node. */
const cursorKeyBytes = Crypto.createSecretKey(Buffer.from(Crypto.hkdfSync("sha256", cursorSecret, new Uint8Array(0), "analytics cursor AES-256-GCM v2", 32)))

/** Cursor sealing, as `Cursor.makeCodec` does: format byte, random nonce, AES-256-GCM of the JSON, base64url. */
export const sealCursor = (payload: CursorPayload): Promise<string> => {
  const nonce = Crypto.randomBytes(12)
  const cipher = Crypto.createCipheriv("aes-256-gcm", cursorKeyBytes, nonce).setAAD(cursorFormat)
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final(), cipher.getAuthTag()])
  return Promise.resolve(Buffer.concat([cursorFormat, nonce, sealed]).toString("base64url"))
}

/** Sealing with a given key (the runner forges expired and foreign cursors with the shared secret). */
export const sealCursorWith = async (key: CryptoKey, payload: CursorPayload): Promise<string> => {
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(12))
  const sealed = await globalThis.crypto.subtle.encrypt(
    { name: "AES-GCM", iv: nonce, additionalData: cursorFormat },
    key,
    new TextEncoder().encode(JSON.stringify(payload))
  )
  const bytes = new Uint8Array(13 + sealed.byteLength)
  bytes[0] = 2
  bytes.set(nonce, 1)
  bytes.set(new Uint8Array(sealed), 13)
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")
}

/** Opens a cursor sealed with `key` (the runner's check of every server's cursor). */
export const openCursor = async (key: CryptoKey, cursor: string): Promise<Record<string, unknown>> => {
  const bytes = Buffer.from(cursor, "base64url")
  if (bytes.toString("base64url") !== cursor || bytes[0] !== 2) throw new Error(`not a sealed cursor: ${cursor}`)
  const plain = await globalThis.crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.subarray(1, 13), additionalData: cursorFormat },
    key,
    bytes.subarray(13)
  )
  return JSON.parse(new TextDecoder().decode(plain)) as Record<string, unknown>
}

/** The list envelope. */
export interface WorkspacePage {
  readonly data: ReadonlyArray<{
    readonly workspace_id: string
    readonly name: string
    readonly description: string | null
    readonly created_at: Date
  }>
  readonly page: { readonly limit: number; readonly next_cursor: string | null; readonly has_more: boolean }
}

/** `created_at` descending, then `workspace_id` ascending. */
const newestFirst = (a: WorkspaceRow, b: WorkspaceRow): number => {
  const x = a.created_at.getTime()
  const y = b.created_at.getTime()
  if (x !== y) return x < y ? 1 : -1
  return a.workspace_id < b.workspace_id ? -1 : a.workspace_id > b.workspace_id ? 1 : 0
}

/** A refusal: status, problem code, detail (the peers' problem bodies carry these three). */
export interface Problem {
  readonly status: number
  readonly code: string
  readonly detail: string
}

/** The media type of a problem's body. */
export const problemContentType = "application/problem+json"

/** A problem's body as every peer answers it (the service adds `title` and `request_id`, not compared). */
export const problemJson = ({ status, code, detail }: Problem): string => JSON.stringify({ type: "about:blank", status, code, detail })

/** The 401 of a request without a valid bearer token, as every peer answers it. */
export const unauthenticated: Problem = { status: 401, code: "auth/unauthenticated", detail: "The bearer token is not valid" }

/** The largest request body the hand-written peers read (Fastify's default `bodyLimit`, 1 MiB). */
export const maxBodyBytes = 1024 * 1024

/** The 413 of a body over `maxBodyBytes`. */
export const tooLarge: Problem = { status: 413, code: "request/too-large", detail: "The body is too large" }

export const isProblem = (value: unknown): value is Problem =>
  typeof value === "object" && value !== null && "code" in value && "status" in value && !("data" in value)

const cursorInvalid: Problem = { status: 400, code: "pagination/cursor-invalid", detail: "The cursor was not issued by this service or was altered" }
const cursorMismatch: Problem = {
  status: 400,
  code: "pagination/cursor-mismatch",
  detail: "The cursor belongs to another endpoint or query string; send the same query with it"
}
const cursorExpired: Problem = { status: 400, code: "pagination/cursor-expired", detail: "The cursor is older than 24 hours" }
/** `Cursor.maxCursorLength`, `Cursor.cursorLifetime`. */
const maxCursorLength = 4096
const cursorLifetimeMillis = 24 * 60 * 60 * 1000
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/** The payload's fields as `Cursor.CursorPayload` decodes them (extra fields ignored, as Schema.Struct does). */
const isCursorPayload = (p: unknown): p is CursorPayload => {
  if (typeof p !== "object" || p === null) return false
  const o = p as Record<string, unknown>
  const k = o["k"]
  return o["v"] === 2 && typeof o["e"] === "string" && typeof o["q"] === "string" && typeof o["n"] === "string" &&
    typeof o["s"] === "string" && Array.isArray(k) && k.length === 2 &&
    (typeof k[0] === "string" || typeof k[0] === "number") && typeof k[1] === "string" &&
    typeof o["b"] === "number" && typeof o["t"] === "number"
}

/**
 * Opens and verifies a cursor as `Cursor.makeCodec`'s `decode` does, in its
 * order: seal (canonical base64url, format byte, AES-256-GCM, UTF-8, the
 * payload's fields), binding (endpoint, query hash, tenant), age.
 */
export const verifyCursor = async (
  cursor: string,
  binding: { readonly query: string; readonly tenant: string }
): Promise<CursorPayload | Problem> => {
  if (cursor.length > maxCursorLength || !/^[\w-]*$/.test(cursor)) return cursorInvalid
  const bytes = Buffer.from(cursor, "base64url")
  if (bytes.toString("base64url") !== cursor || bytes.length <= 1 + 12 + 16 || bytes[0] !== 2) return cursorInvalid
  let payload: unknown
  try {
    const decipher = Crypto.createDecipheriv("aes-256-gcm", cursorKeyBytes, bytes.subarray(1, 13)).setAAD(cursorFormat)
    decipher.setAuthTag(bytes.subarray(bytes.length - 16))
    const plain = Buffer.concat([decipher.update(bytes.subarray(13, bytes.length - 16)), decipher.final()])
    payload = JSON.parse(strictUtf8.decode(plain))
  } catch {
    return cursorInvalid
  }
  if (!isCursorPayload(payload)) return cursorInvalid
  if (payload.e !== endpoint || payload.q !== binding.query || payload.n !== binding.tenant) return cursorMismatch
  if (Date.now() - payload.t > cursorLifetimeMillis) return cursorExpired
  return payload
}

/**
 * A page of the default sort (`-created_at`), with its sealed next cursor;
 * `query` is the canonical query string, which the cursor binds by hash, with
 * the caller's tenant. Without a cursor, the first page (snapshot: now); with
 * one, the cursor verified, then the rows after its position created at or
 * before its snapshot.
 */
export const listPage = async (
  rows: ReadonlyArray<WorkspaceRow>,
  limit: number,
  query: string,
  tenantId: string,
  cursor?: string | undefined
): Promise<WorkspacePage | Problem> => {
  const now = Date.now()
  const queryHash = sha256Hex(query)
  let snapshot = now
  let after: readonly [number, string] | undefined
  if (cursor !== undefined) {
    const payload = await verifyCursor(cursor, { query: queryHash, tenant: tenantId })
    if (isProblem(payload)) return payload
    if (payload.s !== "-created_at" || typeof payload.k[0] !== "number") return cursorInvalid
    snapshot = payload.b
    after = [payload.k[0], payload.k[1]]
  }
  const taken: Array<WorkspaceRow> = []
  for (const row of rows) {
    const at = row.created_at.getTime()
    if (at > snapshot) continue
    if (after !== undefined && (at > after[0] || (at === after[0] && row.workspace_id <= after[1]))) continue
    taken.push(row)
  }
  taken.sort(newestFirst)
  const hasMore = taken.length > limit
  const page = taken.slice(0, limit)
  let nextCursor: string | null = null
  if (hasMore) {
    const last = page[page.length - 1]
    nextCursor = await sealCursor({
      v: 2,
      e: endpoint,
      q: queryHash,
      n: tenantId,
      s: "-created_at",
      k: [last.created_at.getTime(), last.workspace_id],
      b: snapshot,
      t: now
    })
  }
  return {
    data: page.map((w) => ({
      workspace_id: w.workspace_id,
      name: w.name,
      description: w.description,
      created_at: w.created_at
    })),
    page: { limit, next_cursor: nextCursor, has_more: hasMore }
  }
}

// ---------------------------------------------------------------------------
// POST /v1/workspaces with Idempotency-Key

/** The scope of the POST's keys: method and concrete path. */
export const createScope = "POST /v1/workspaces"

/** `Idempotency.validateKey`: 1 to 255 printable ASCII characters without spaces; `undefined` when valid. */
export const invalidKey = (key: string): Problem | undefined =>
  key.length === 0 || key.length > 255
    ? { status: 400, code: "idempotency/invalid-key", detail: "The key must be 1 to 255 characters" }
    : /^[\x21-\x7e]+$/.test(key)
    ? undefined
    : { status: 400, code: "idempotency/invalid-key", detail: "The key must be printable ASCII without spaces" }

const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** `Idempotency.fingerprint` of a parsed JSON body: SHA-256 of its canonical JSON. */
export const fingerprintOf = (body: unknown): string => sha256Hex(canonicalJson(body))

/** Length in code points, as `Schema.isMaxCodePoints` and Ajv's `maxLength` count. */
const codePoints = (s: string): number => {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdbff || i + 1 === s.length) n++
    else {
      const d = s.charCodeAt(i + 1)
      n++
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
  }
  return n
}

/** What `POST /v1/workspaces` accepts (`Workspace.WorkspaceCreate`). */
export interface WorkspaceCreate {
  readonly name: string
  readonly description?: string
}

const invalid = (detail: string): Problem => ({ status: 400, code: "request/invalid", detail })

/** `Workspace.WorkspaceCreate` by hand (bare node:http; Fastify validates with its JSON schema). */
export const validateCreate = (body: unknown): WorkspaceCreate | Problem => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalid("Expected an object")
  const o = body as Record<string, unknown>
  for (const key in o) if (key !== "name" && key !== "description") return invalid(`Unexpected property ${key}`)
  const name = o["name"]
  if (typeof name !== "string") return invalid("name: expected a string")
  if (name.trim() !== name) return invalid("name: expected no leading or trailing whitespace")
  if (name.length === 0 || (name.length > 200 && codePoints(name) > 200)) return invalid("name: 1 to 200 characters")
  const description = o["description"]
  if (description === undefined) return "description" in o ? invalid("description: expected a string") : { name }
  if (typeof description !== "string") return invalid("description: expected a string")
  if (description.length > 2000 && codePoints(description) > 2000) return invalid("description: at most 2000 characters")
  return { name, description }
}

/** The JSON schema of the same rules, for Fastify (Ajv counts `maxLength` in code points; the pattern is `isTrimmed`). */
export const workspaceCreateSchema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200, pattern: "^(?!\\s)[\\s\\S]*(?<!\\s)$" },
    description: { type: "string", maxLength: 2000 }
  },
  required: ["name"],
  additionalProperties: false
} as const

/** An entry of the audit log (`AuditLog.AuditEntry`). */
interface AuditEntry {
  readonly entry_id: string
  readonly tenant_id: string
  readonly workspace_id: string | null
  readonly action: string
  readonly actor: { readonly type: "user"; readonly id: string }
  readonly target: { readonly type: string; readonly id: string }
  readonly detail: Readonly<Record<string, unknown>>
  readonly created_at: Date
}

/** An event as webhooks receive it (`Events.Envelope`). */
interface EventEnvelope {
  readonly id: string
  readonly type: string
  readonly created_at: string
  readonly workspace_id: string
  readonly data: unknown
}

/**
 * The audit log and the events published, in this process: what ours does
 * beside the row on every create (`AuditedChanges.createWorkspace`: an entry
 * `workspace.created`, and its `audit.event` offered to the tenant's webhooks
 * that hear it; the bench subscribes none), so that the peers do the same work.
 */
const audit = { entries: [] as Array<AuditEntry>, events: [] as Array<EventEnvelope>, subscribers: new Map<string, ReadonlyArray<string>>() }

const recordCreated = (row: WorkspaceRow, member: TokenRecord, now: number) => {
  const entry: AuditEntry = {
    entry_id: uuidv7(now),
    tenant_id: row.tenant_id,
    workspace_id: row.workspace_id,
    action: "workspace.created",
    actor: { type: "user", id: member.userId },
    target: { type: "workspace", id: row.workspace_id },
    detail: { name: row.name, description: row.description },
    created_at: new Date(now)
  }
  audit.entries.push(entry)
  const event: EventEnvelope = {
    id: uuidv7(now),
    type: "audit.event",
    created_at: new Date(now).toISOString(),
    workspace_id: row.workspace_id,
    data: { action: entry.action, actor: entry.actor, target: entry.target, detail: entry.detail }
  }
  for (const _webhook of audit.subscribers.get(row.tenant_id) ?? []) audit.events.push(event)
}

/**
 * `Workspaces.create` with its audit (`AuditedChanges.createWorkspace`): a new
 * row, created now, in the tenant's rows (insertion order, as the in-memory
 * store), its entry and event recorded.
 */
export const createWorkspace = (rows: Array<WorkspaceRow>, member: TokenRecord, input: WorkspaceCreate): WorkspaceRow => {
  const now = Date.now()
  const row: WorkspaceRow = {
    workspace_id: uuidv7(now),
    tenant_id: member.tenantId,
    name: input.name,
    description: input.description ?? null,
    created_at: new Date(now)
  }
  rows.push(row)
  recordCreated(row, member, now)
  return row
}

/** A workspace as the API shows it (`WorkspaceJson`: no tenant). */
export const workspaceJson = (row: WorkspaceRow) => ({
  workspace_id: row.workspace_id,
  name: row.name,
  description: row.description,
  created_at: row.created_at
})

/** A response kept for replay (`Idempotency.StoredResponse`). */
export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

interface IdempotencyRecord {
  readonly fingerprint: string
  readonly createdAt: number
  response: StoredResponse | undefined
}

/** `Idempotency.retention`, `Idempotency.inFlightTimeout`. */
const retentionMillis = 24 * 60 * 60 * 1000
const inFlightMillis = 60 * 1000

/** What to do with a keyed request (`Idempotency.begin`). */
export type Decision =
  | { readonly _tag: "Run"; readonly reservation: string }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Refuse"; readonly problem: Problem }

/** The in-memory idempotency records, as `MemoryStores.idempotencyStore`: one Map keyed by owner, scope and key. */
export const makeIdempotencyStore = () => {
  const records = new Map<string, IdempotencyRecord>()
  return {
    begin: (owner: string, scope: string, key: string, fingerprint: string): Decision => {
      const id = `${owner}\u0000${scope}\u0000${key}`
      const now = Date.now()
      const existing = records.get(id)
      const stale = existing !== undefined && (
        existing.createdAt < now - retentionMillis ||
        (existing.response === undefined && existing.createdAt < now - inFlightMillis)
      )
      if (existing === undefined || stale) {
        records.set(id, { fingerprint, createdAt: now, response: undefined })
        return { _tag: "Run", reservation: id }
      }
      if (existing.fingerprint !== fingerprint) {
        return {
          _tag: "Refuse",
          problem: { status: 422, code: "idempotency/key-reused", detail: "This Idempotency-Key was used with a different request body; use a new key" }
        }
      }
      if (existing.response === undefined) {
        return { _tag: "Refuse", problem: { status: 409, code: "idempotency/in-progress", detail: "The first request with this key is still running" } }
      }
      return { _tag: "Replay", response: existing.response }
    },
    complete: (reservation: string, response: StoredResponse): void => {
      const record = records.get(reservation)
      if (record !== undefined) record.response = response
    },
    release: (reservation: string): void => void records.delete(reservation)
  }
}

/** An answer as the servers that write it by hand send it: status, headers, body and its media type. */
export interface Written {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly contentType: string
}

/** A problem as a hand-written answer. */
export const writtenProblem = (problem: Problem): Written =>
  ({ status: problem.status, headers: {}, body: problemJson(problem), contentType: problemContentType })

/** A page (`listPage`'s answer) as a hand-written answer: `JSON.stringify`'s text, or the problem refusing its cursor. */
export const writtenPage = (page: WorkspacePage | Problem): Written =>
  isProblem(page) ? writtenProblem(page) : { status: 200, headers: {}, body: JSON.stringify(page), contentType: "application/json" }

/**
 * `POST /v1/workspaces` by hand, for the servers that write it so (`bare.ts`,
 * `effect.ts`), in the service's order: the key, then the body, then the
 * key's record, then the handler, whose 403 is kept for replay as a 201 is.
 * A replay carries `idempotent-replayed: true`.
 */
export const answerCreate = (
  rows: Array<WorkspaceRow>,
  idempotency: ReturnType<typeof makeIdempotencyStore>,
  member: TokenRecord,
  key: string | undefined,
  text: string
): Written => {
  if (key !== undefined) {
    const refused = invalidKey(key)
    if (refused !== undefined) return writtenProblem(refused)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return writtenProblem({ status: 400, code: "request/malformed-json", detail: "The request body is not valid JSON" })
  }
  const input = validateCreate(body)
  if (isProblem(input)) return writtenProblem(input)
  const handle = (): StoredResponse =>
    member.roles.includes("admin")
      ? { status: 201, headers: {}, body: JSON.stringify(workspaceJson(createWorkspace(rows, member, input))) }
      : { status: 403, headers: {}, body: JSON.stringify({ type: "about:blank", status: 403, code: "auth/forbidden" }) }
  const written = ({ status, headers, body }: StoredResponse, replayed: boolean): Written => ({
    status,
    headers: replayed ? { ...headers, [replayedHeader]: "true" } : headers,
    body,
    contentType: status < 400 ? "application/json" : problemContentType
  })
  if (key === undefined) return written(handle(), false)
  const decision = idempotency.begin(member.tenantId, createScope, key, fingerprintOf(body))
  if (decision._tag === "Refuse") return writtenProblem(decision.problem)
  if (decision._tag === "Replay") return written(decision.response, true)
  const answer = handle()
  idempotency.complete(decision.reservation, answer)
  return written(answer, false)
}

/** The header a replay carries. */
export const replayedHeader = "idempotent-replayed"

// ---------------------------------------------------------------------------
// rate limiting (the API spec, section 8.1)

/** The endpoint class a request is counted in, as the service classifies these endpoints: `read` for GET (and HEAD), `write` otherwise. */
export type RateLimitClass = "read" | "write"
export const rateLimitClassOf = (method: string | undefined): RateLimitClass =>
  method === "GET" || method === "HEAD" ? "read" : "write"

/** The limits of every bench server: ours's `unlimited` in `ours.ts`, so no run is refused (each request still counted, its headers written). */
export const benchRateLimits = { burst: 1_000_000_000, sustained: 1_000_000_000 } as const

/** A rate-limit decision: the headers every answer carries, and when refused, its 429 problem and `Retry-After` seconds. */
export interface RateLimitOutcome {
  readonly allowed: boolean
  readonly headers: Record<string, string>
  /** 0 when allowed. */
  readonly retryAfterSeconds: number
  readonly problem: Problem | undefined
}

/** A layer's answer: its `RateLimiterRes`, whether it was resolved (allowed) or rejected (refused). */
const settled = (consumed: Promise<RateLimiterRes>): Promise<RateLimiterRes> =>
  consumed.catch((rejection: unknown) => {
    if (rejection instanceof RateLimiterRes) return rejection
    throw rejection
  })

/**
 * The two layers of the spec with rate-limiter-flexible 11.4.0, in memory,
 * one setup for both peers. The library has neither a token bucket nor a
 * sliding window, so both layers are its fixed windows: the burst layer
 * `points` = the bucket's capacity per 60 s (the bucket's fill window; a
 * bucket refills continuously, this window all at once at its end), the
 * sustained layer `points` = the hourly limit per 3,600 s (a fixed hour,
 * not a sliding one). Each layer's window starts at a key's first request.
 *
 * Both layers count every request, as `RateLimiterUnion` does (its rejection
 * keeps only the refusing layer's result, and the headers of a 429 need
 * both layers' numbers, so the two `consume` calls are awaited here, which
 * is what the union does inside). Reset times are `Date.now()` plus the
 * library's `msBeforeNext`, as ISO 8601; `Retry-After` is the longest wait
 * of the refusing layers, in whole seconds.
 *
 * `tenant(tenantId, endpointClass)` counts a tenant member's request under
 * `tenant:<id>:<class>`; `client(address)` a `/v1` request without a valid
 * credential under `client:<address>`, all classes together, as ours does.
 */
export const makeRateLimits = (limits: { readonly burst: number; readonly sustained: number } = benchRateLimits) => {
  const burst = new RateLimiterMemory({ keyPrefix: "burst", points: limits.burst, duration: 60 })
  const sustained = new RateLimiterMemory({ keyPrefix: "sustained", points: limits.sustained, duration: 60 * 60 })
  const decide = async (key: string, counted: string): Promise<RateLimitOutcome> => {
    const [b, s] = await Promise.all([settled(burst.consume(key)), settled(sustained.consume(key))])
    const now = Date.now()
    const headers: Record<string, string> = {
      "x-ratelimit-limit-burst": String(limits.burst),
      "x-ratelimit-remaining-burst": String(b.remainingPoints),
      "x-ratelimit-reset-burst": new Date(now + b.msBeforeNext).toISOString(),
      "x-ratelimit-limit-sustained": String(limits.sustained),
      "x-ratelimit-remaining-sustained": String(s.remainingPoints),
      "x-ratelimit-reset-sustained": new Date(now + s.msBeforeNext).toISOString()
    }
    // RateLimiterMemory refuses when more than `points` were consumed in the window.
    const burstRefused = b.consumedPoints > limits.burst
    const sustainedRefused = s.consumedPoints > limits.sustained
    if (!burstRefused && !sustainedRefused) return { allowed: true, headers, retryAfterSeconds: 0, problem: undefined }
    const waitMillis = Math.max(burstRefused ? b.msBeforeNext : 0, sustainedRefused ? s.msBeforeNext : 0)
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMillis / 1000))
    headers["retry-after"] = String(retryAfterSeconds)
    return {
      allowed: false,
      headers,
      retryAfterSeconds,
      problem: sustainedRefused
        ? { status: 429, code: "rate-limit/sustained-exceeded", detail: `The hourly limit of ${limits.sustained} requests ${counted} is reached` }
        : { status: 429, code: "rate-limit/burst-exceeded", detail: `The burst limit of ${limits.burst} requests per minute ${counted} is reached` }
    }
  }
  return {
    tenant: (tenantId: string, endpointClass: RateLimitClass): Promise<RateLimitOutcome> =>
      decide(`tenant:${tenantId}:${endpointClass}`, "of this class"),
    client: (address: string | undefined): Promise<RateLimitOutcome> =>
      decide(`client:${address ?? "unknown"}`, "without a valid credential from this address")
  }
}

// ---------------------------------------------------------------------------
// the child-process protocol

/** What a server child tells the runner once it listens and holds its data. */
export interface Ready {
  readonly type: "ready"
  readonly name: string
  readonly port: number
  readonly token: string
}

/**
 * The child's CPU time so far, in microseconds, answered to `{ type: "cpu" }`,
 * with its monotonic clock in microseconds (the clock of `--cpu-prof`
 * timestamps), so a profile can be cut to the measured window.
 */
export interface CpuReport {
  readonly type: "cpu"
  readonly user: number
  readonly system: number
  readonly monotonicMicros: number
  /** Under `BENCH_INTERLEAVED`: CPU µs and requests so far attributed to variants 0 and 1. */
  readonly variants?: { readonly cpuMicros: readonly [number, number]; readonly requests: readonly [number, number] }
}

/** The variable that runs a server's two variants interleaved (`interleave`). */
const interleavedVariable = "BENCH_INTERLEAVED"

/** How often the variant in force changes, in ms. */
const variantPeriodMillis = 200

/**
 * Two variants of one server in one process, for a change smaller than the
 * machine's noise between runs (docs/decisions/0008, "How it is measured"):
 * `globalThis.benchVariant` is 0 or 1 and changes every 200 ms; the code
 * under test reads it (a scratch edit, not kept); each request and each
 * slice of CPU time is attributed to the variant in force, so the machine's
 * drift falls on both alike.
 */
const interleave = (server: Http.Server): (() => NonNullable<CpuReport["variants"]>) => {
  const state = globalThis as { benchVariant?: 0 | 1 }
  state.benchVariant = 0
  const cpuMicros: [number, number] = [0, 0]
  const requests: [number, number] = [0, 0]
  server.prependListener("request", () => {
    requests[state.benchVariant!]++
  })
  let last = process.cpuUsage()
  /** The CPU time since the last call, given to the variant in force. */
  const settle = () => {
    const now = process.cpuUsage()
    cpuMicros[state.benchVariant!] += now.user - last.user + now.system - last.system
    last = now
  }
  setInterval(() => {
    settle()
    state.benchVariant = state.benchVariant === 0 ? 1 : 0
  }, variantPeriodMillis).unref()
  return () => {
    settle()
    return { cpuMicros: [...cpuMicros], requests: [...requests] }
  }
}

/** The variable carrying `inproc.ts`'s settings to a server's process (JSON of `measureInProcess`'s options). */
export const inProcessVariable = "BENCH_INPROC"

/**
 * Listens on an ephemeral loopback port, prepares the data, tells the
 * runner, answers CPU-time queries and exits cleanly on `{ type: "stop" }`
 * (so `--cpu-prof` writes its profile); or, under `inproc.ts`, measures the
 * handler in this process and exits.
 */
export const serve = async (
  name: string,
  server: Http.Server,
  prepare: (port: number) => Promise<string>,
  dispose: () => Promise<void> = () => Promise.resolve()
): Promise<void> => {
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no TCP address")
  const token = await prepare(address.port)
  // `inproc.ts`: the handler measured in this process, without sockets, then exit.
  const inProcess = process.env[inProcessVariable]
  if (inProcess !== undefined) {
    const results = await measureInProcess(server, token, JSON.parse(inProcess))
    process.send?.({ type: "inproc", name, results })
    server.close()
    await dispose()
    process.exit(0)
  }
  const send = (message: Ready | CpuReport) => process.send?.(message)
  const variants = process.env[interleavedVariable] === "1" ? interleave(server) : undefined
  process.on("message", (message: { readonly type: string }) => {
    if (message.type === "cpu") {
      const usage = process.cpuUsage()
      const monotonicMicros = Number(process.hrtime.bigint() / 1000n)
      send({ type: "cpu", user: usage.user, system: usage.system, monotonicMicros, ...(variants === undefined ? {} : { variants: variants() }) })
    } else if (message.type === "stop") {
      server.closeAllConnections()
      server.close()
      void dispose().finally(() => process.exit(0))
    }
  })
  process.on("disconnect", () => process.exit(0))
  send({ type: "ready", name, port: address.port, token })
}

/** What each peer serves from: a tenant and its token, its workspaces, an idempotency store and the rate limiters. */
export const makePeer = () => {
  const tenant = makeTenant()
  return { tenant, rows: makeWorkspaces(tenant.tenantId), idempotency: makeIdempotencyStore(), rateLimits: makeRateLimits() }
}
