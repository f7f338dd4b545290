/**
 * The document tells all the server does: a broad walk over a real server
 * (the fixture tenant's one of everything, in-memory stores, DuckDB) calls
 * every operation of the document validly, then the problems it declares
 * where they are cheap to provoke (400 bad limit and cursor, 401 no
 * credential, 403 a member on admins' operations, 404 unknown ids, 409 a
 * taken address, 413 and 415 bodies, 422 a reused idempotency key, 429 of
 * the export and question limits and on a server with a small burst), and checks each
 * answer against the document `GET /v1/openapi.json` serves: its status is
 * declared, its media type is one the status declares, its body validates
 * against the schema (ajv, JSON Schema 2020-12, formats checked), every
 * required header is present and valid, and every header of those it
 * documents (`X-RateLimit-*`, `RateLimit*`, `Retry-After`, `X-Request-Id`,
 * `Set-Cookie`, `Content-Disposition`) that it carries is declared.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { RateLimit } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import Ajv2020 from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Effect } from "effect"
import { type JsonResponse, operatorToken, start, type TestServer } from "./TestServer.ts"
import { addresses, arrange, fill, type Operation, operations, paramsOf, queryOf, serve } from "./TenantFixture.ts"

/** The headers the document must declare when a response carries them: the rate limits', the request id, a cookie, a file's name. */
const declaredFamily = /^(x-ratelimit-|ratelimit$|ratelimit-policy$|retry-after$|x-request-id$|set-cookie$|content-disposition$)/

/** Checks answers against one served document. */
const makeChecker = (document: any) => {
  // Both are CommonJS: their default import is the module, whose `default` is the class (the plugin).
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true })
  addFormats.default(ajv)
  ajv.addSchema(document, "doc")
  /** A schema of the document, its `$ref`s pointed into the registered document. */
  const rebased = (schema: unknown): unknown =>
    Array.isArray(schema)
      ? schema.map(rebased)
      : typeof schema === "object" && schema !== null
      ? Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#") ? `doc${v}` : rebased(v)]))
      : schema
  const resolve = (node: any): any => {
    let n = node
    while (n !== undefined && typeof n.$ref === "string") n = n.$ref.replace(/^#\//, "").split("/").reduce((at: any, key: string) => at?.[key], document)
    return n
  }
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>()
  const validatorOf = (key: string, schema: unknown) => {
    let validate = compiled.get(key)
    if (validate === undefined) {
      validate = ajv.compile(rebased(schema) as object)
      compiled.set(key, validate)
    }
    return validate
  }
  /** A header's text as its schema types it (integers arrive as text). */
  const headerValue = (text: string, schema: any): unknown => (schema?.type === "integer" && /^-?\d+$/.test(text) ? Number(text) : text)

  /** What is wrong with an answer of `op`, as sentences (none: it agrees with the document). */
  return (path: string, method: string, answer: JsonResponse): Array<string> => {
    const op = document.paths[path]?.[method.toLowerCase()]
    const where = `${method} ${path} ${answer.status}`
    if (op === undefined) return [`${method} ${path}: not in the document`]
    const declared = op.responses?.[String(answer.status)]
    if (declared === undefined) {
      return [`${where}: status not declared (declared: ${Object.keys(op.responses ?? {}).join(", ")}): ${answer.text.slice(0, 200)}`]
    }
    const wrong: Array<string> = []
    // The media type: one the status declares, and the body valid against its schema.
    const contentType = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim()
    const content = declared.content ?? {}
    if (Object.keys(content).length === 0) {
      if (answer.text !== "") wrong.push(`${where}: a body (${contentType}) where none is declared: ${answer.text.slice(0, 200)}`)
    } else if (content[contentType] === undefined) {
      wrong.push(`${where}: media type ${contentType || "(none)"} not declared (declared: ${Object.keys(content).join(", ")})`)
    } else if (/json$/.test(contentType)) {
      const schema = content[contentType].schema
      const validate = validatorOf(`${method} ${path} ${answer.status} ${contentType}`, schema)
      if (answer.body === undefined) wrong.push(`${where}: not JSON: ${answer.text.slice(0, 200)}`)
      else if (!validate(answer.body)) {
        wrong.push(`${where}: body does not match the schema: ${ajv.errorsText(validate.errors, { separator: "; " }).slice(0, 600)}: ${answer.text.slice(0, 300)}`)
      }
    }
    // Headers: every required one present and valid; every one of the family declared.
    const headers = Object.fromEntries(Object.entries<any>(declared.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve(h)]))
    for (const [name, header] of Object.entries<any>(headers)) {
      const value = answer.headers.get(name)
      if (value === null) {
        if (header.required === true) wrong.push(`${where}: required header ${name} absent`)
        continue
      }
      const validate = validatorOf(`header ${JSON.stringify(header.schema)}`, header.schema ?? {})
      if (!validate(headerValue(value, header.schema))) wrong.push(`${where}: header ${name}: ${value}: ${ajv.errorsText(validate.errors)}`)
    }
    answer.headers.forEach((_, name) => {
      if (declaredFamily.test(name) && headers[name] === undefined) wrong.push(`${where}: header ${name} sent but not declared`)
    })
    return wrong
  }
}

/** Whether an answer is a problem of this status and code. */
const isProblem = (answer: JsonResponse, status: number, code?: string) =>
  answer.status === status && (answer.headers.get("content-type") ?? "").startsWith("application/problem+json") &&
  (code === undefined || answer.body?.code === code)

describe("every answer of a broad walk agrees with the OpenAPI document", () => {
  it.live("every operation called validly, then the problems cheap to provoke: statuses, media types, bodies and headers as declared", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const { server } = fixture
      const t = yield* arrange(fixture, "walk")
      const served = yield* server.request("GET", "/v1/openapi.json")
      assert.strictEqual(served.status, 200)
      const check = makeChecker(served.body)
      const wrong: Array<string> = []
      const statuses = new Map<string, Set<number>>()
      const record = (path: string, method: string, answer: JsonResponse) => {
        wrong.push(...check(path, method, answer))
        const key = `${method} ${path}`
        statuses.set(key, (statuses.get(key) ?? new Set()).add(answer.status))
        return answer
      }
      const call = (op: Operation, options: { readonly token?: string | undefined; readonly url?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}) =>
        Effect.map(
          server.request(op.method, options.url ?? `${fill(op.path, paramsOf(t, op))}${queryOf(t, op)}`, {
            token: "token" in options ? options.token : addresses[op.id]?.operatorOnly === true ? operatorToken : t.admin,
            body: "body" in options ? options.body : addresses[op.id]?.body?.(t),
            headers: { "idempotency-key": crypto.randomUUID(), ...options.headers }
          }),
          (answer) => record(op.path, op.method, answer)
        )

      // Every operation, called validly (destructive ones last, so the others still find what they name).
      const ordered = [...operations].sort((a, b) => Number(addresses[a.id]?.destructive === true) - Number(addresses[b.id]?.destructive === true))
      const safe = ordered.filter((op) => addresses[op.id]?.destructive !== true)
      for (const op of safe) yield* call(op)

      // The upload, served beside the contract and declared in the document.
      const upload = yield* server.request("PUT", `/v1/datasets/${t.ids.dataset}/data`, {
        token: t.admin,
        body: "region,amount\nEU,1\n",
        headers: { "content-type": "text/csv" }
      })
      record("/v1/datasets/{id}/data", "PUT", upload)
      const uploadJson = yield* server.request("PUT", `/v1/datasets/${t.ids.dataset}/data`, { token: t.admin, body: { rows: [] } })
      assert.strictEqual(record("/v1/datasets/{id}/data", "PUT", uploadJson).status, 415, uploadJson.text)

      const byId = (id: string) => operations.find((op) => op.id === id)!
      // 400: a limit out of range and a cursor not issued by the service, on every list.
      const lists = safe.filter((op) => op.queryParams.some((q) => q.name === "cursor"))
      for (const op of lists) {
        const url = `${fill(op.path, paramsOf(t, op))}${queryOf(t, op)}`
        const sep = url.includes("?") ? "&" : "?"
        assert.isTrue(isProblem(yield* call(op, { url: `${url}${sep}limit=0` }), 400, "request/invalid"), `${op.id} limit=0`)
        assert.isTrue(isProblem(yield* call(op, { url: `${url}${sep}cursor=not-a-cursor` }), 400, "pagination/cursor-invalid"), `${op.id} cursor`)
      }
      // 400: malformed JSON on every operation with a body.
      for (const op of safe.filter((o) => o.bodySchema !== undefined)) {
        const answer = yield* call(op, { body: "{\"unclosed\":" })
        assert.strictEqual(answer.status, 400, `${op.id} malformed: ${answer.text}`)
      }
      // 413 and 415: a body over the cap and one of another media type, on every operation with a body.
      const oversized = JSON.stringify({ name: "x".repeat(1_100_000) })
      for (const op of safe.filter((o) => o.bodySchema !== undefined)) {
        const tooLarge = yield* call(op, { body: oversized })
        assert.isTrue(isProblem(tooLarge, 413, "request/body-too-large"), `${op.id} oversized: ${tooLarge.status} ${tooLarge.text.slice(0, 200)}`)
        const text = yield* call(op, { body: "name=x", headers: { "content-type": "text/plain" } })
        assert.isTrue(isProblem(text, 415, "request/unsupported-media-type"), `${op.id} text/plain: ${text.status} ${text.text.slice(0, 200)}`)
      }
      // A question answered as server-sent events.
      const streamed = yield* call(byId("ai.ask"), { headers: { accept: "text/event-stream" } })
      assert.strictEqual(streamed.headers.get("content-type")?.split(";")[0], "text/event-stream", streamed.text.slice(0, 200))
      // 401: no credential, on every secured operation.
      for (const op of safe.filter((o) => o.secured)) {
        assert.isTrue(isProblem(yield* call(op, { token: undefined }), 401, "auth/unauthenticated"), `${op.id} without a credential`)
      }
      // 404: an unknown id in every path that names one.
      for (const op of safe.filter((o) => o.pathParams.length > 0)) {
        // The real id with its last four characters changed: the same shape, naming nothing.
        const unknown = Object.fromEntries(Object.entries(paramsOf(t, op)).map(([p, v]) => [p, `${v.slice(0, -4)}${v.endsWith("0000") ? "1111" : "0000"}`]))
        const answer = yield* call(op, { url: `${fill(op.path, unknown)}${queryOf(t, op)}` })
        assert.include([403, 404], answer.status, `${op.id} unknown id: ${answer.text}`)
      }
      // 409: an address another user has.
      assert.isTrue(isProblem(yield* call(byId("users.create"), { body: { email: t.memberEmail, name: "Again" } }), 409), "users.create taken")
      // 422: an idempotency key reused with another body.
      const key = crypto.randomUUID()
      yield* call(byId("workspaces.create"), { body: { name: "Once" }, headers: { "idempotency-key": key } })
      assert.isTrue(
        isProblem(yield* call(byId("workspaces.create"), { body: { name: "Twice" }, headers: { "idempotency-key": key } }), 422, "idempotency/key-reused")
      )
      // Paged lists that paged before they took a cursor: the next page continues.
      const firstTypes = yield* call(byId("webhooks.eventTypes"), { url: "/v1/event-types?limit=1" })
      assert.isString(firstTypes.body.page.next_cursor)
      yield* call(byId("webhooks.eventTypes"), { url: `/v1/event-types?limit=1&cursor=${encodeURIComponent(firstTypes.body.page.next_cursor)}` })

      // 403: a member (no admin role) on what only admins may do.
      for (const id of ["users.list", "users.create", "webhooks.list", "auditLog.list", "scimTokens.list", "branding.update"]) {
        assert.isTrue(isProblem(yield* call(byId(id), { token: t.member }), 403), `${id} as a member`)
      }
      // Every read as a member (no admin role): what they may see, 403 or 404 otherwise.
      for (const op of safe.filter((o) => o.method === "GET" && addresses[o.id]?.operatorOnly !== true)) yield* call(op, { token: t.member })
      // 400 query/invalid: a measure the model does not have.
      assert.isTrue(isProblem(yield* call(byId("datasets.query"), { body: { measures: ["no_such_measure"] } }), 400, "query/invalid"))
      // A job's status while it waits: 200 with Retry-After.
      const queued = yield* call(byId("exports.export"))
      const waiting = yield* call(byId("exports.job"), { url: `/v1/jobs/${queued.body.job_id}` })
      assert.isNotNull(waiting.headers.get("retry-after"), waiting.text)
      // The people search pages: the next page continues where the first stopped.
      const firstPeople = yield* call(byId("sharing.people"), { url: "/v1/directory/people?q=e&limit=1" })
      assert.isTrue(firstPeople.body.page.has_more, firstPeople.text)
      const nextPeople = yield* call(byId("sharing.people"), { url: `/v1/directory/people?q=e&limit=1&cursor=${encodeURIComponent(firstPeople.body.page.next_cursor)}` })
      assert.notDeepEqual(nextPeople.body.data, firstPeople.body.data)

      // A session opened with the admin's API token: 200 with its cookie.
      const signedIn = yield* call(byId("session.signInWithToken"), { token: undefined, body: { api_token: t.admin } })
      assert.strictEqual(signedIn.status, 200, signedIn.text)
      assert.isNotNull(signedIn.headers.get("set-cookie"))
      // 429 of the per-operation limits: a burst of 10 API exports per workspace, 30 questions a minute per user (with Retry-After).
      const refusedAfter = (op: Operation, most: number, code: string) =>
        Effect.gen(function*() {
          for (let i = 0; i < most; i++) {
            const answer = yield* call(op)
            if (answer.status === 429) {
              assert.strictEqual(answer.body?.code, code, answer.text)
              assert.isNotNull(answer.headers.get("retry-after"))
              return
            }
          }
          assert.fail(`${op.id}: no 429 within ${most} requests`)
        })
      yield* refusedAfter(byId("exports.export"), 12, "rate-limit/exports-exceeded")
      yield* refusedAfter(byId("ai.ask"), 32, "rate-limit/ai-questions-exceeded")

      // 409 webhook/disabled: a test send to a disabled webhook.
      const disabled = yield* call(byId("webhooks.create"), { body: { url: "https://hooks.example.com/off", events: ["export.succeeded"] } })
      yield* call(byId("webhooks.update"), { url: `/v1/webhooks/${disabled.body.webhook_id}`, body: { enabled: false } })
      assert.isTrue(
        isProblem(yield* call(byId("webhooks.test"), { url: `/v1/webhooks/${disabled.body.webhook_id}/test` }), 409, "webhook/disabled")
      )

      // The destructive operations last: changes, then removals.
      const destructive = ordered.filter((o) => addresses[o.id]?.destructive === true)
      for (const op of [...destructive.filter((o) => o.method !== "DELETE"), ...destructive.filter((o) => o.method === "DELETE")]) yield* call(op)

      // 429: a server whose tenants have a burst of 3: the fourth request is refused, with Retry-After.
      const tight: TestServer = yield* start(MemoryStores.layer, {
        rateLimits: () => ({ burst: RateLimit.bucket(3), sustained: RateLimit.window(1000) })
      })
      const tightChecker = makeChecker((yield* tight.request("GET", "/v1/openapi.json")).body)
      const tenant = yield* tight.tenant()
      let refused: JsonResponse | undefined
      for (let i = 0; i < 6 && refused === undefined; i++) {
        const answer = yield* tight.request("GET", "/v1/workspaces", { token: tenant.token })
        wrong.push(...tightChecker("/v1/workspaces", "GET", answer))
        if (answer.status === 429) refused = answer
      }
      assert.isDefined(refused, "no 429 within 6 requests")
      assert.isTrue(isProblem(refused!, 429, "rate-limit/burst-exceeded"))
      assert.isNotNull(refused!.headers.get("retry-after"))

      if (process.env.WALK_DEBUG) console.log([...statuses].map(([k, v]) => `${k} ${[...v].join(",")}`).join("\n"))
      assert.deepStrictEqual(wrong, [], `\n${wrong.join("\n")}`)
      // The walk is broad: every operation answered, and with several statuses in all.
      for (const op of operations) assert.isTrue(statuses.has(`${op.method} ${op.path}`), `${op.id} not walked`)
      const total = [...statuses.values()].reduce((n, s) => n + s.size, 0)
      assert.isAbove(total, operations.length * 2)
    }).pipe(Effect.scoped), 600_000)

  it.live("an undeclared status, an undeclared rate-limit header or a body off its schema is found", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const check = makeChecker((yield* server.request("GET", "/v1/openapi.json")).body)
      const { token } = yield* server.tenant()
      const answer = yield* server.request("GET", "/v1/workspaces", { token })
      assert.deepStrictEqual(check("/v1/workspaces", "GET", answer), [])
      const headers = new Headers(answer.headers)
      assert.lengthOf(check("/v1/workspaces", "GET", { ...answer, status: 418 }), 1)
      headers.set("x-ratelimit-limit-hourly", "1")
      assert.match(check("/v1/workspaces", "GET", { ...answer, headers }).join(), /x-ratelimit-limit-hourly sent but not declared/)
      const without = new Headers(answer.headers)
      without.delete("x-ratelimit-remaining-burst")
      assert.match(check("/v1/workspaces", "GET", { ...answer, headers: without }).join(), /required header x-ratelimit-remaining-burst absent/)
      assert.match(check("/v1/workspaces", "GET", { ...answer, body: { data: [{}], page: answer.body.page } }).join(), /does not match the schema/)
    }).pipe(Effect.scoped))
})
