/**
 * Bad input everywhere (decision 0001), driven by the OpenAPI document:
 * for every operation (and every route beside the contract), fast-check
 * generates hostile requests from the operation's own schemas, each invalid
 * by construction: malformed JSON, each body field of a wrong JSON type,
 * required fields missing, unknown fields, 100k-item arrays, 10k levels of
 * nesting, 1 MB strings, invalid UTF-8 and NUL bytes, path traversal in
 * every path parameter and key-like field, query parameters of wrong types
 * or out of range, CR/LF and NUL in header values, over-long headers, wrong
 * media types and bodies over the cap. They are sent as raw bytes over
 * `node:net` (fetch would refuse or normalise most of them), each with a
 * deadline. Every answer is a 4xx `application/problem+json` with a `code`
 * (SCIM's routes answer their own `application/scim+json` errors), never a
 * 5xx, never a hang; the fixture tenant's every list reads the same after
 * each operation's run.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import fc from "fast-check"
import * as Net from "node:net"
import { operatorToken } from "@analytics/testing/http"
import {
  addresses,
  arrange,
  extraAddresses,
  extraValueOf,
  type FixtureServer,
  type FixtureTenant,
  fill,
  fillRoute,
  hasPath,
  type Operation,
  operations,
  paramsOf,
  queryOf,
  resolve,
  serve,
  setAt,
  snapshot,
  unaddressed,
  unaddressedExtras
} from "./TenantFixture.ts"

/** Runs per operation: each is one request; the whole file stays well under two minutes on two cores. */
const numRuns = 25
/** How long one answer may take before the request counts as hung (a busy machine, 1 MB bodies). */
const deadlineMillis = 30_000

// ---------------------------------------------------------------------------
// raw HTTP/1.1 over a socket

/** A request as bytes on the wire. */
interface RawRequest {
  readonly method: string
  /** The request target, sent as is (no normalisation, no encoding). */
  readonly target: string
  /** Header lines, values sent byte for byte (CR, LF and NUL included). */
  readonly headers: ReadonlyArray<readonly [string, string | Buffer]>
  readonly body?: Buffer | undefined
  /** Send the body chunked, without a Content-Length. */
  readonly chunked?: boolean
}

interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly text: string
}

const dechunk = (body: Buffer): Buffer => {
  const parts: Array<Buffer> = []
  let at = 0
  for (;;) {
    const eol = body.indexOf("\r\n", at)
    if (eol === -1) break
    const size = Number.parseInt(body.subarray(at, eol).toString("latin1"), 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(body.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
  return Buffer.concat(parts)
}

const parse = (bytes: Buffer): RawResponse | undefined => {
  const end = bytes.indexOf("\r\n\r\n")
  if (end === -1) return undefined
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n")
  const status = Number(statusLine!.split(" ")[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = bytes.subarray(end + 4)
  if (headers["transfer-encoding"]?.includes("chunked")) body = dechunk(body)
  else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]))
  return { status, headers, text: body.toString("utf8") }
}

/** Sends `request` on a fresh connection and reads the answer until the server closes it; fails after the deadline. */
const send = (port: number, request: RawRequest): Promise<RawResponse> =>
  new Promise((resolvePromise, reject) => {
    const chunks: Array<Buffer> = []
    const socket = Net.connect(port, "127.0.0.1")
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within ${deadlineMillis} ms`))
    }, deadlineMillis)
    const finish = (error?: Error) => {
      clearTimeout(timer)
      const parsed = parse(Buffer.concat(chunks))
      if (parsed !== undefined) resolvePromise(parsed)
      else reject(error ?? new Error(`the connection closed without an answer (${Buffer.concat(chunks).toString("latin1").slice(0, 200)})`))
    }
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("end", () => finish())
    // The server may answer (413) and close before the body is all written: the answer counts, the reset does not.
    socket.on("error", (error) => finish(error))
    socket.on("close", () => finish())
    const head: Array<Buffer> = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`, "latin1")]
    for (const [name, value] of request.headers) head.push(Buffer.from(`${name}: `, "latin1"), Buffer.isBuffer(value) ? value : Buffer.from(value, "utf8"), Buffer.from("\r\n"))
    const body = request.body
    if (body !== undefined && request.chunked === true) {
      head.push(Buffer.from("transfer-encoding: chunked\r\n\r\n"))
      const framed: Array<Buffer> = []
      for (let at = 0; at < body.length; at += 65_536) {
        const piece = body.subarray(at, at + 65_536)
        framed.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"))
      }
      framed.push(Buffer.from("0\r\n\r\n"))
      socket.write(Buffer.concat([...head, ...framed]))
    } else {
      if (body !== undefined) head.push(Buffer.from(`content-length: ${body.length}\r\n`))
      head.push(Buffer.from("\r\n"))
      socket.write(body === undefined ? Buffer.concat(head) : Buffer.concat([...head, body]))
    }
  })

// ---------------------------------------------------------------------------
// what the schemas say

type JsonType = "string" | "number" | "boolean" | "null" | "array" | "object"
const jsonTypes: ReadonlyArray<JsonType> = ["string", "number", "boolean", "null", "array", "object"]

const typeOfValue = (v: unknown): JsonType =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : (typeof v as JsonType)

/** The JSON types a schema accepts; undefined when it accepts anything (or says too little to tell). */
const acceptedTypes = (schema: any, depth = 0): Set<JsonType> | undefined => {
  const s = resolve(schema)
  if (s === undefined || depth > 10) return undefined
  const alternatives = s.anyOf ?? s.oneOf
  if (alternatives !== undefined) {
    const out = new Set<JsonType>()
    for (const alt of alternatives) {
      const types = acceptedTypes(alt, depth + 1)
      if (types === undefined) return undefined
      for (const t of types) out.add(t)
    }
    return out
  }
  if (Array.isArray(s.enum)) return new Set(s.enum.map(typeOfValue))
  if (s.const !== undefined) return new Set([typeOfValue(s.const)])
  const types: Array<string> = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]
  if (types.length > 0) return new Set(types.map((t) => (t === "integer" ? "number" : t)) as Array<JsonType>)
  if (s.properties !== undefined) return new Set(["object"])
  if (s.items !== undefined) return new Set(["array"])
  return undefined
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether a string schema surely refuses `value`: outside its enum, against its format or pattern, past its length bounds. */
const refuses = (schema: any, value: string): boolean => {
  const s = resolve(schema)
  if (s === undefined) return false
  const types = acceptedTypes(s)
  if (types === undefined || types.size !== 1 || !types.has("string")) return false
  return [s, ...(s.allOf ?? []).map(resolve)].some((p: any) =>
    p !== undefined && (
      (Array.isArray(p.enum) && !p.enum.includes(value)) ||
      (p.format === "uuid" && !uuid.test(value)) ||
      (typeof p.pattern === "string" && !new RegExp(p.pattern, "u").test(value)) ||
      (typeof p.maxLength === "number" && [...value].length > p.maxLength) ||
      (typeof p.minLength === "number" && [...value].length < p.minLength)
    ))
}

const maxLengthOf = (schema: any): number | undefined => {
  const s = resolve(schema)
  return [s, ...(s?.allOf ?? []).map(resolve)].map((p: any) => p?.maxLength).find((n) => typeof n === "number")
}

/** A field of a body: its dotted path (as `setAt` takes it), its schema, whether its object requires it. */
interface Field {
  readonly path: string
  readonly schema: any
  readonly required: boolean
}

/** The fields of `body` (and of the objects and first array items it holds) that its schema describes. */
const fieldsOf = (schema: any, body: unknown, prefix = "", depth = 0): Array<Field> => {
  const s = resolve(schema)
  if (s?.properties === undefined || depth > 5 || typeof body !== "object" || body === null) return []
  const required = new Set<string>(s.required ?? [])
  const out: Array<Field> = []
  for (const [name, sub] of Object.entries<any>(s.properties)) {
    const path = prefix === "" ? name : `${prefix}.${name}`
    out.push({ path, schema: sub, required: required.has(name) })
    const value = (body as Record<string, unknown>)[name]
    const r = resolve(sub)
    if (value !== null && typeof value === "object" && !Array.isArray(value)) out.push(...fieldsOf(r, value, path, depth + 1))
    if (Array.isArray(value) && value.length > 0 && r?.items !== undefined) out.push(...fieldsOf(r.items, value[0], `${path}[]`, depth + 1))
  }
  return out
}

/** The schema of one item of an array field, when it is one. */
const itemsOf = (schema: any) => resolve(schema)?.items

// ---------------------------------------------------------------------------
// hostile values

const valueOf: Record<JsonType, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 20 }),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.integer(), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer(), { maxKeys: 3 })
}

/** A value of a JSON type `schema` does not accept. */
const wrongValue = (schema: any): fc.Arbitrary<unknown> | undefined => {
  const accepted = acceptedTypes(schema)
  if (accepted === undefined) return undefined
  const others = jsonTypes.filter((t) => !accepted.has(t))
  return others.length === 0 ? undefined : fc.constantFrom(...others).chain((t) => valueOf[t])
}

/** Path traversal and friends, for path parameters (raw in the request target) and key-like fields. */
const traversals = [
  "..",
  "../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%252e%252e%252f",
  "..\\..\\windows\\win.ini",
  "%00",
  "a%00b",
  "%2F",
  "....//....//etc/passwd",
  "%c0%ae%c0%ae%2f",
  "%ff%fe",
  "x".repeat(8_000)
]

const deep = (levels: number, open: string, close: string, inner = "1") => open.repeat(levels) + inner + close.repeat(levels)
const megabyte = "A".repeat(1_000_000)
const invalidUtf8 = Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xa0, 0xa1])

/** A body's JSON with `marker` (a string value) replaced by raw bytes. */
const withBytes = (json: string, marker: string, bytes: Buffer) => {
  const at = json.indexOf(marker)
  return Buffer.concat([Buffer.from(json.slice(0, at)), bytes, Buffer.from(json.slice(at + marker.length))])
}

/** One hostile request, labelled for the failure message. */
interface Hostile {
  readonly label: string
  readonly request: RawRequest
}

/** A valid call of an operation, as the hostile requests start from. */
interface Baseline {
  readonly method: string
  readonly pathTemplate: string
  /** Fills the template with the tenant's values, one replaced by a raw (unencoded) value. */
  readonly path: (replace?: { readonly param: string; readonly raw: string }) => string
  readonly query: (extra?: Record<string, string>) => string
  readonly params: ReadonlyArray<string>
  readonly body: unknown
  readonly bodySchema: any
  readonly contentType: string
  readonly credential: string | undefined
  readonly idempotent: boolean
  /** Each query parameter: its schema, or the values it surely refuses. */
  readonly queryParams: ReadonlyArray<{ readonly name: string; readonly schema: any; readonly refused?: ReadonlyArray<string> }>
  /** Whether a body decoded as JSON is what the route reads (not a file, not a form). */
  readonly jsonBody: boolean
}

let clients = 0
/** Headers of a baseline request; each request comes from its own client address (per-address limits are not under test). */
const headersOf = (b: Baseline, extra: ReadonlyArray<readonly [string, string | Buffer]> = [], contentType = b.contentType) => {
  clients += 1
  const out: Array<readonly [string, string | Buffer]> = [
    ["accept", "application/json"],
    ["x-forwarded-for", `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`]
  ]
  if (b.credential !== undefined) out.push(["authorization", `Bearer ${b.credential}`])
  if (b.body !== undefined) out.push(["content-type", contentType])
  return [...out, ...extra]
}

const encodeBody = (body: unknown) => Buffer.from(typeof body === "string" ? body : JSON.stringify(body))

/** The hostile requests that are invalid for this call by construction. */
const hostile = (b: Baseline): fc.Arbitrary<Hostile> => {
  const arbitraries: Array<fc.Arbitrary<Hostile>> = []
  const add = (weight: number, arbitrary: fc.Arbitrary<Hostile>) => {
    for (let i = 0; i < weight; i++) arbitraries.push(arbitrary)
  }
  const target = (replace?: { readonly param: string; readonly raw: string }, extra?: Record<string, string>) => b.path(replace) + b.query(extra)
  const request = (label: string, body: Buffer | undefined, options: { readonly headers?: ReadonlyArray<readonly [string, string | Buffer]>; readonly target?: string; readonly chunked?: boolean; readonly contentType?: string } = {}): Hostile => ({
    label,
    request: {
      method: b.method,
      target: options.target ?? target(),
      headers: headersOf(b, options.headers, options.contentType),
      body,
      ...(options.chunked === true ? { chunked: true } : {})
    }
  })
  const valid = b.body === undefined ? undefined : encodeBody(b.body)

  // Path traversal (and NUL, over-long, encoded slashes) in every path parameter.
  if (b.params.length > 0) {
    add(3, fc.record({ param: fc.constantFrom(...b.params), raw: fc.constantFrom(...traversals) }).map((r) =>
      request(`path ${r.param} = ${r.raw.slice(0, 40)}`, valid, { target: target(r) })))
  }

  if (b.jsonBody && b.body !== undefined && typeof b.body === "object") {
    const json = JSON.stringify(b.body)
    const fields = fieldsOf(b.bodySchema, b.body)
    const schema = resolve(b.bodySchema)
    // Malformed JSON: the valid body cut short, or garbage.
    add(1, fc.integer({ min: 1, max: Math.max(1, json.length - 1) }).map((cut) => request(`JSON cut at ${cut}`, Buffer.from(json.slice(0, cut)))))
    add(1, fc.constantFrom("{", "{\"a\":}", "[1,]", "{'a':1}", "nul", "{\"a\":1}}", "\u0000", "{\"a\":NaN}", "{\"a\":01}").map((t) => request(`malformed ${JSON.stringify(t)}`, Buffer.from(t))))
    // Bytes that are no UTF-8 (or NUL) where JSON allows no such thing.
    add(1, fc.constantFrom(invalidUtf8, Buffer.from([0])).map((bytes) => request(`raw bytes ${bytes.toString("hex")} outside strings`, Buffer.concat([Buffer.from("{\"a\":"), bytes, Buffer.from("}")]))))
    // Every field of a wrong JSON type.
    const typed = fields.flatMap((f) => {
      const wrong = wrongValue(f.schema)
      return wrong === undefined ? [] : [wrong.map((v) => ({ f, v }))]
    })
    if (typed.length > 0) {
      add(4, fc.oneof(...typed).map(({ f, v }) => request(`${f.path} = ${JSON.stringify(v)}`, encodeBody(setAt(b.body, f.path, v)))))
    }
    // A required field missing.
    const required = fields.filter((f) => f.required && hasPath(b.body, f.path))
    if (required.length > 0) {
      add(2, fc.constantFrom(...required).map((f) => request(`without ${f.path}`, encodeBody(setAt(b.body, f.path, undefined)))))
    }
    // Unknown fields (objects refuse excess properties), with hostile names and values.
    if (schema?.additionalProperties === false) {
      const known = new Set(Object.keys(schema.properties ?? {}))
      const name = fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("__proto__", "constructor", "../../etc/passwd", "a\u0000b", "$where"))
        .filter((n) => !known.has(n))
      const extraValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(megabyte), fc.constant("\u0000"))
      add(2, fc.record({ name, value: extraValue }).map(({ name: n, value }) =>
        request(`extra ${JSON.stringify(n).slice(0, 40)}`, Buffer.from(json.replace(/^\{/, `{${JSON.stringify(n)}:${JSON.stringify(value)}${json === "{}" ? "" : ","}`)))))
      // Invalid UTF-8 and NUL inside an unknown field's name.
      add(1, fc.constantFrom(invalidUtf8, Buffer.from([0])).map((bytes) =>
        request(`extra field named with bytes ${bytes.toString("hex")}`, withBytes(json.replace(/^\{/, `{"@@MARK@@":1${json === "{}" ? "" : ","}`), "@@MARK@@", bytes))))
      // 10k levels of nesting under an unknown field.
      add(1, fc.constantFrom(["[", "]"], ["{\"a\":", "}"]).map(([open, close]) =>
        request(`10k levels of ${open} under an extra field`, Buffer.from(json.replace(/^\{/, `{"deep":${deep(10_000, open!, close!)}${json === "{}" ? "" : ","}`)))))
    }
    // The body as 100k items, or 10k levels deep, where an object belongs.
    add(1, fc.constantFrom("array", "nested").map((shape) =>
      request(shape === "array" ? "a 100k-item array for a body" : "10k nested arrays for a body", Buffer.from(shape === "array" ? `[${Array(100_000).fill("1").join(",")}]` : deep(10_000, "[", "]")))))
    // Array fields with 100k items of a type they refuse.
    const arrays = fields.flatMap((f) => {
      const items = itemsOf(f.schema)
      const accepted = items === undefined ? undefined : acceptedTypes(items)
      if (accepted === undefined) return []
      const wrong = (["number", "null", "boolean"] as const).find((t) => !accepted.has(t))
      return wrong === undefined ? [] : [{ f, wrong }]
    })
    if (arrays.length > 0) {
      const sample = { number: 1, null: null, boolean: true } as const
      add(1, fc.constantFrom(...arrays).map(({ f, wrong }) =>
        request(`${f.path}: 100k ${wrong}s`, encodeBody(setAt(b.body, f.path, Array(100_000).fill(sample[wrong]))))))
    }
    // 10k levels of nesting, and 1 MB of text, in a field that takes neither.
    const noArrays = fields.filter((f) => acceptedTypes(f.schema) !== undefined && !acceptedTypes(f.schema)!.has("array"))
    if (noArrays.length > 0) {
      add(1, fc.constantFrom(...noArrays).map((f) =>
        request(`${f.path}: 10k levels`, withBytes(JSON.stringify(setAt(b.body, f.path, "@@MARK@@")), "\"@@MARK@@\"", Buffer.from(deep(10_000, "[", "]"))))))
    }
    const noLongText = fields.filter((f) => {
      const types = acceptedTypes(f.schema)
      if (types === undefined) return false
      if (!types.has("string")) return true
      const max = maxLengthOf(f.schema)
      return types.size === 1 && max !== undefined && max < megabyte.length
    })
    if (noLongText.length > 0) {
      add(1, fc.constantFrom(...noLongText).map((f) => request(`${f.path}: 1 MB of text`, encodeBody(setAt(b.body, f.path, megabyte)))))
    }
    // Traversal, NUL and invalid UTF-8 in key-like fields (ids, names of visuals, formats): wherever the schema surely refuses them.
    const hostileKeys = [...traversals, "a\u0000b", "../\u0000"]
    const keyCases = fields.filter((f) => hasPath(b.body, f.path)).flatMap((f) => hostileKeys.filter((raw) => refuses(f.schema, raw)).map((raw) => ({ f, raw })))
    if (keyCases.length > 0) {
      add(2, fc.constantFrom(...keyCases).map(({ f, raw }) => request(`${f.path} = ${JSON.stringify(raw).slice(0, 40)}`, encodeBody(setAt(b.body, f.path, raw)))))
    }
    const byteFields = fields.filter((f) => hasPath(b.body, f.path) && refuses(f.schema, "\ufffd(\ufffd\ufffd\ufffd\ufffd"))
    if (byteFields.length > 0) {
      add(1, fc.constantFrom(...byteFields).map((f) =>
        request(`${f.path} with invalid UTF-8`, withBytes(JSON.stringify(setAt(b.body, f.path, "@@MARK@@")), "@@MARK@@", invalidUtf8))))
    }
    // A media type that is not JSON.
    add(1, fc.constantFrom("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "image/png").map((type) =>
      request(`content-type ${type}`, valid, { contentType: type })))
  }

  // Over the cap (1 MiB), announced or chunked; an upload has its own cap (1 GiB by default: Datasets.test.ts).
  if (b.body !== undefined && (b.contentType === "application/json" || b.contentType === "application/scim+json")) {
    const over = Buffer.alloc(1024 * 1024 + 1, 0x20)
    add(1, fc.boolean().map((chunked) => request(`${over.length} bytes${chunked ? ", chunked" : ""}`, over, { chunked })))
  }

  // Query parameters of a wrong type or out of range.
  const queryCases = b.queryParams.flatMap((q) => {
    const s = resolve(q.schema)
    const values: Array<string> = []
    if (q.refused !== undefined) return q.refused.map((value) => ({ name: q.name, value }))
    if (q.name === "limit") values.push("0", "501", "1e9", "-1", "abc", "1.5", "", "%00", "1e3", "Infinity")
    else if (q.name === "cursor") values.push("", "garbage", "%00", "AAAA", "x".repeat(5000), "eyJ0IjoxfQ", "../../etc/passwd")
    else values.push("nope", "", "%00", "not-a-uuid", "../../etc/passwd", "x".repeat(201), "x".repeat(4097))
    // Only values the parameter surely refuses (after percent-decoding, as the server reads them).
    return values.filter((v) => q.name === "limit" || q.name === "cursor" || refuses(s, decoded(v))).map((value) => ({ name: q.name, value }))
  })
  if (queryCases.length > 0) {
    add(3, fc.constantFrom(...queryCases).map(({ name, value }) => ({
      label: `query ${name}=${value.slice(0, 40)}`,
      request: { method: b.method, target: b.path() + rawQuery(b.query(), name, value), headers: headersOf(b), body: b.body === undefined ? undefined : encodeBody(b.body) }
    })))
  }

  // Headers: CR, LF and NUL in a value (the parser refuses the request), an over-long header.
  const body = b.body === undefined ? undefined : encodeBody(b.body)
  add(2, fc.constantFrom(
    Buffer.from("abc\rdef"),
    Buffer.from("abc\r\n\u0001bad header line"),
    Buffer.from("abc\u0000def"),
    Buffer.from("abc\r\n folded")
  ).map((value) => request(`idempotency-key ${JSON.stringify(value.toString("latin1"))}`, body, { headers: [["idempotency-key", value]] })))
  add(1, fc.constant(request("a 40 KB header", body, { headers: [["x-padding", "p".repeat(40_000)]] })))
  if (b.idempotent) {
    add(1, fc.constantFrom("k".repeat(256), "é-not-ascii", "tab\there", "\u007f").map((key) =>
      request(`idempotency-key ${JSON.stringify(key.slice(0, 30))}`, body, { headers: [["idempotency-key", Buffer.from(key, "utf8")]] })))
  }
  if (b.credential !== undefined) {
    add(1, fc.constantFrom(`Bearer ${"t".repeat(8_000)}`, "Bearer", "Basic YTpi", `Bearer ${b.credential}\u0000`).map((auth) => ({
      label: `authorization ${JSON.stringify(auth.slice(0, 30))}`,
      request: {
        method: b.method,
        target: target(),
        headers: headersOf({ ...b, credential: undefined }, [["authorization", Buffer.from(auth, "utf8")]]),
        body
      }
    })))
  }
  return fc.oneof(...arbitraries)
}

const decoded = (v: string) => {
  try {
    return decodeURIComponent(v)
  } catch {
    return v
  }
}

/** The query string with `name` set to a raw (unencoded) value. */
const rawQuery = (query: string, name: string, value: string) => {
  const params = new URLSearchParams(query)
  params.delete(name)
  const rest = params.toString()
  return `?${rest === "" ? "" : `${rest}&`}${name}=${value}`
}

// ---------------------------------------------------------------------------

/** The baseline of an operation of the document, as the fixture tenant. */
const baselineOf = (t: FixtureTenant, op: Operation): Baseline => {
  const address = addresses[op.id]!
  const params = paramsOf(t, op)
  return {
    method: op.method,
    pathTemplate: op.path,
    path: (replace) => {
      const filled = fill(op.path, replace === undefined ? params : { ...params, [replace.param]: "@@RAW@@" })
      return replace === undefined ? filled : filled.replace(encodeURIComponent("@@RAW@@"), replace.raw)
    },
    query: (extra) => queryOf(t, op, extra),
    params: op.pathParams,
    body: address.body?.(t),
    bodySchema: op.bodySchema,
    contentType: "application/json",
    credential: address.operatorOnly === true ? operatorToken : op.secured ? t.admin : undefined,
    idempotent: op.headerParams.includes("idempotency-key"),
    queryParams: op.queryParams,
    jsonBody: true
  }
}

/** The baseline of a route beside the contract. */
const extraBaselineOf = (t: FixtureTenant, key: string): Baseline => {
  const address = extraAddresses[key]!
  const [method, route] = key.split(" ") as [string, string]
  const params = Object.fromEntries(Object.entries(address.params ?? {}).map(([p, k]) => [p, extraValueOf(t, k)]))
  const query = address.query?.(t) ?? {}
  const body = address.body?.(t)
  return {
    method,
    pathTemplate: route,
    path: (replace) => {
      const filled = fillRoute(route, replace === undefined ? params : { ...params, [replace.param]: "@@RAW@@" })
      return replace === undefined ? filled : filled.replace(encodeURIComponent("@@RAW@@"), replace.raw)
    },
    query: (extra) => {
      const text = new URLSearchParams({ ...query, ...extra }).toString()
      return text === "" ? "" : `?${text}`
    },
    params: Object.keys(address.params ?? {}),
    body,
    bodySchema: undefined,
    contentType: address.contentType ?? "application/json",
    credential: address.credential === "admin" ? t.admin : address.credential === "scim" ? t.scimToken : undefined,
    idempotent: false,
    // The signed URL's and the embed token's parameters, and a SCIM filter: garbage in each is refused.
    queryParams: Object.keys(query).map((name) => ({ name, schema: undefined, refused: refusedQuery[name] ?? [] })),
    // A passwordless link's unlock reads no body, and a file is no JSON: neither is invalid for a bad body.
    jsonBody: body !== undefined && typeof body === "object" && key !== "POST /s/:slug"
  }
}

const garbage = ["", "garbage", "%00", "../../etc/passwd", "%ff%fe", "x".repeat(5000)]
/** What the query parameters of the routes beside the contract surely refuse. */
const refusedQuery: Record<string, ReadonlyArray<string>> = {
  tenant: garbage,
  expires: ["", "garbage", "-1", "1e99", "%00", "0"],
  signature: garbage,
  token: garbage,
  filter: ["nope", "userName", "userName eq", "userName%20eq%20%22a%22%20and%20(", "emails%5Btype%20eq", "%00", "x".repeat(5000)]
}

/** Whether an answer is a refusal in the documented shape: 4xx problem+json with a code (SCIM: its own error body). */
const refusal = (response: RawResponse, scim: boolean): string | undefined => {
  if (response.status < 400 || response.status > 499) return `status ${response.status}`
  const type = response.headers["content-type"] ?? ""
  const expected = scim && type.startsWith("application/scim+json") ? "application/scim+json" : "application/problem+json"
  if (!type.startsWith(expected)) return `content-type ${JSON.stringify(type)}`
  let body: any
  try {
    body = JSON.parse(response.text)
  } catch {
    return "a body that does not parse"
  }
  if (expected === "application/problem+json" && (typeof body?.code !== "string" || body.status !== response.status)) return "a problem without code or status"
  if (expected === "application/scim+json" && String(body?.status) !== String(response.status)) return "a SCIM error without status"
  return undefined
}

let fixture: FixtureServer
let tenant: FixtureTenant
let port: number
let scope: Scope.Closeable

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const arranged = await Effect.runPromise(Effect.gen(function*() {
    const f = yield* serve(MemoryStores.layer)
    return { f, t: yield* arrange(f, "fuzz") }
  }).pipe(Scope.provide(scope)))
  fixture = arranged.f
  tenant = arranged.t
  port = Number(new URL(fixture.server.url).port)
}, 120_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** Runs the property for one baseline and checks the tenant's state before and after. */
const fuzz = async (label: string, baseline: Baseline, scim: boolean) => {
  const before = await Effect.runPromise(snapshot(fixture.server, tenant))
  await fc.assert(
    fc.asyncProperty(hostile(baseline), async (h) => {
      const response = await send(port, h.request).catch((error: Error) => {
        throw new Error(`${label}: ${h.label}: ${error.message}`)
      })
      const wrong = refusal(response, scim)
      if (wrong !== undefined) {
        throw new Error(`${label}: ${h.label}: answered ${wrong}: ${response.status} ${response.text.slice(0, 300)}`)
      }
    }),
    { numRuns, verbose: 1 }
  )
  const after = await Effect.runPromise(snapshot(fixture.server, tenant))
  assert.deepStrictEqual(after, before, `${label} changed the tenant's state`)
}

describe("bad input", () => {
  it("every operation of the OpenAPI document, and every route beside it, is addressed by the fixture", () => {
    assert.deepStrictEqual([...unaddressed(), ...unaddressedExtras()], [])
  })

  for (const op of operations) {
    it(`${op.id}: ${op.method} ${op.path}`, async () => {
      if (addresses[op.id] === undefined) throw new Error(`${op.id} has no entry in TenantFixture.addresses`)
      await fuzz(op.id, baselineOf(tenant, op), false)
    }, 120_000)
  }

  for (const key of Object.keys(extraAddresses)) {
    it(key, async () => {
      await fuzz(key, extraBaselineOf(tenant, key), key.includes("/scim/v2"))
    }, 120_000)
  }
})
