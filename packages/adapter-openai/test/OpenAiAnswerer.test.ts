/**
 * The OpenAI-compatible answerer against a real chat-completions server on
 * loopback (node:http, scripted replies; no mock of the HTTP client): what
 * it sends (model, members, the question as user content, the strict
 * schemas, the key), what it accepts (only output that decodes as a query
 * or a reason), how it streams narration, and how errors, time-outs and
 * interruption end (an AnswererError; the connection closed on the
 * server's side).
 */
import { OpenAiAnswerer } from "@analytics/adapter-openai"
import { ChatServer } from "@analytics/testing/openai"
import { Answerer, Report } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted, Stream } from "effect"

const model = {
  dimensions: [
    { name: "region", type: "string" as const, title: "Sales region" },
    { name: "product", type: "string" as const, column: "product_name_internal" },
    { name: "created_at", type: "time" as const }
  ],
  measures: [
    { name: "amount", aggregation: "sum" as const, column: "amount_cents_internal", title: "Total amount" },
    { name: "orders", aggregation: "count" as const },
    { name: "average_amount", expression: "amount / orders" }
  ],
  row_level_security: [{ roles: ["sales"], filter: { member: "region", operator: "equals" as const, values: [{ attribute: "region" }] } }]
}

const question: Answerer.Question = {
  text: "total amount by region last month",
  dataset: { name: "Sales", description: "Orders since 2020", model },
  context: [
    { role: "user", content: "how many orders in 2025?" },
    { role: "assistant", content: "There were 1,204 orders in 2025." }
  ],
  values: { region: ["EMEA", "APAC"] },
  now: new Date("2026-03-15T10:00:00Z")
}

const validArguments = {
  query: {
    measures: ["amount"],
    dimensions: ["region"],
    time_dimensions: [{ dimension: "created_at", granularity: null, date_range: "last month" }],
    filters: null,
    order: [{ member: "amount", direction: "desc" }],
    limit: null
  },
  visual: { type: "bar", encoding: { columns: null, x: "region", y: ["amount"], series: null, category: null, value: null } }
}

const answerer = (baseUrl: string, options: Partial<OpenAiAnswerer.Options> = {}) =>
  Effect.service(Answerer.Answerer).pipe(
    Effect.provide(OpenAiAnswerer.layer({ baseUrl, apiKey: Redacted.make("sk-test-secret"), model: "gpt-test", ...options }))
  )

const plan = (baseUrl: string, options: Partial<OpenAiAnswerer.Options> = {}) =>
  Effect.flatMap(answerer(baseUrl, options), (a) => a.plan(question))

const result: Answerer.Result = {
  query: { measures: ["amount"], dimensions: ["region"] },
  columns: [
    { name: "region", member: "region", kind: "dimension", type: "string" },
    { name: "amount", member: "amount", kind: "measure", type: "number" }
  ],
  rows: [{ region: "EMEA", amount: 1250.5 }, { region: "APAC", amount: 980 }]
}

const narrate = (baseUrl: string, r: Answerer.Result = result, options: Partial<OpenAiAnswerer.Options> = {}) =>
  Stream.unwrap(Effect.map(answerer(baseUrl, options), (a) => a.narrate(question, r)))

const assertAnswererError = (error: unknown, includes: string) => {
  assert.instanceOf(error, Answerer.AnswererError)
  assert.include((error as Answerer.AnswererError).detail, includes)
  assert.notInclude((error as Answerer.AnswererError).detail, "sk-test-secret")
}

describe("OpenAiAnswerer", () => {
  it.live("plan sends the model's members, the conversation and the question as user content, strict tools and the key; a valid call becomes a Plan", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.toolCall("query", validArguments))
      const planned = yield* plan(server.baseUrl)

      assert.deepStrictEqual(planned, {
        _tag: "Query",
        query: {
          measures: ["amount"],
          dimensions: ["region"],
          time_dimensions: [{ dimension: "created_at", date_range: "last month" }],
          order: [{ member: "amount", direction: "desc" }]
        },
        visual: { type: "bar", encoding: { x: "region", y: ["amount"] } }
      })
      const [request] = server.received
      assert.strictEqual(request.path, "/v1/chat/completions")
      assert.strictEqual(request.headers.authorization, "Bearer sk-test-secret")
      assert.strictEqual(request.body.model, "gpt-test")
      const messages = request.body.messages as Array<{ role: string; content: string }>
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user"])
      const system = messages[0].content
      for (const member of ["region", "product", "created_at", "amount", "orders", "average_amount", "Sales region", "Orders since 2020"]) {
        assert.include(system, member)
      }
      assert.include(system, "2026-03-15")
      // The values of string dimensions the asker may see, to write filters with.
      assert.include(system, `{"name":"region","type":"string","title":"Sales region","values":["EMEA","APAC"]}`)
      // Members only: not the table's columns, not row-level security, and the question stays out of the instructions.
      for (const hidden of ["product_name_internal", "amount_cents_internal", "row_level_security", "attribute", question.text]) {
        assert.notInclude(system, hidden)
      }
      assert.deepStrictEqual(messages.slice(1), [...question.context, { role: "user", content: question.text }])
      assert.deepStrictEqual(request.body.tool_choice, "required")
      const [queryTool, cannotTool] = request.body.tools
      assert.strictEqual(queryTool.function.name, "query")
      assert.strictEqual(queryTool.function.strict, true)
      const parameters = queryTool.function.parameters
      assert.deepStrictEqual(parameters.required, ["query", "visual"])
      assert.strictEqual(parameters.additionalProperties, false)
      const query = parameters.properties.query
      assert.deepStrictEqual(query.required, ["measures", "dimensions", "time_dimensions", "filters", "order", "limit"])
      assert.deepStrictEqual(query.properties.limit, { anyOf: [{ type: "integer", minimum: 1, maximum: 50_000 }, { type: "null" }] })
      assert.deepStrictEqual(parameters.properties.visual.properties.type.enum, [...Report.VisualType.literals])
      assert.includeMembers(parameters.properties.visual.properties.type.enum, ["table", "bar", "line", "pie", "kpi", "heatmap"])
      assert.strictEqual(query.properties.filters.anyOf[0].items.$ref, "#/$defs/Union_")
      assert.property(parameters.$defs, "Union_")
      assert.strictEqual(cannotTool.function.name, "cannot_answer")
      assert.deepStrictEqual(cannotTool.function.parameters.required, ["reason"])
    }).pipe(Effect.scoped))

  it.live("cannot_answer or a refusal becomes a CannotAnswer with the model's reason", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.toolCall("cannot_answer", { reason: "The dataset has no customer names; it can total amounts by region." }))
      assert.deepStrictEqual(yield* plan(server.baseUrl), {
        _tag: "CannotAnswer",
        reason: "The dataset has no customer names; it can total amounts by region."
      })
      // A model's refusal (OpenAI's message.refusal) is a reason too.
      server.script({ _tag: "Json", status: 200, body: { choices: [{ message: { role: "assistant", content: null, refusal: "I can't help with that." } }] } })
      assert.deepStrictEqual(yield* plan(server.baseUrl), { _tag: "CannotAnswer", reason: "I can't help with that." })
    }).pipe(Effect.scoped))

  it.live("without a key no Authorization is sent; a base URL's query string is kept (gateways' api-version)", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.toolCall("query", validArguments))
      const planned = yield* Effect.flatMap(
        Effect.service(Answerer.Answerer),
        (a) => a.plan(question)
      ).pipe(Effect.provide(OpenAiAnswerer.layer({ baseUrl: `${server.baseUrl}/?api-version=2025-04-01`, model: "local" })))
      assert.strictEqual(planned._tag, "Query")
      assert.strictEqual(server.received[0].path, "/v1/chat/completions?api-version=2025-04-01")
      assert.notProperty(server.received[0].headers, "authorization")
    }).pipe(Effect.scoped))

  it.live("with output json_schema: a strict response format instead of tools, and the content decoded", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(
        ChatServer.content(JSON.stringify({ answer: validArguments })),
        ChatServer.content(JSON.stringify({ answer: { reason: "No such data." } })),
        ChatServer.content(JSON.stringify({ answer: { ...validArguments, sql: "SELECT 1" } }))
      )
      const planned = yield* plan(server.baseUrl, { output: "json_schema" })
      assert.strictEqual(planned._tag, "Query")
      const body = server.received[0].body
      assert.notProperty(body, "tools")
      assert.strictEqual(body.response_format.type, "json_schema")
      assert.strictEqual(body.response_format.json_schema.strict, true)
      const answer = body.response_format.json_schema.schema.properties.answer
      assert.deepStrictEqual(answer.anyOf.map((branch: { required: Array<string> }) => branch.required), [["query", "visual"], ["reason"]])
      assert.deepStrictEqual(yield* plan(server.baseUrl, { output: "json_schema" }), { _tag: "CannotAnswer", reason: "No such data." })
      assertAnswererError(yield* Effect.flip(plan(server.baseUrl, { output: "json_schema" })), "not valid")
    }).pipe(Effect.scoped))

  it.live("output that is not a query of the schema is an AnswererError, never a Plan", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      const cases: ReadonlyArray<readonly [ChatServer.Reply, string]> = [
        [ChatServer.toolCall("run_sql", { sql: "DROP TABLE orders" }), `unknown tool "run_sql"`],
        [ChatServer.toolCall("query", { ...validArguments, query: { ...validArguments.query, sql: "SELECT * FROM orders" } }), `["query"]["sql"]`],
        [ChatServer.toolCall("query", { ...validArguments, query: { ...validArguments.query, limit: 50_001 } }), `["query"]["limit"]`],
        [ChatServer.toolCall("query", { ...validArguments, query: { ...validArguments.query, measures: ["amount; DROP TABLE orders"] } }), `["query"]["measures"][0]`],
        [ChatServer.toolCall("query", { query: validArguments.query }), `["visual"]`],
        [ChatServer.toolCall("query", { ...validArguments, visual: { type: "3d-pie", encoding: {} } }), `["visual"]["type"]`],
        [ChatServer.toolCall("query", "{\"query\": {\"measures\": [\"amount\"]"), "not JSON"],
        [ChatServer.toolCall("cannot_answer", { reason: "" }), "not valid"],
        [ChatServer.content("SELECT region, SUM(amount) FROM orders GROUP BY region"), "answered in text instead of calling a tool"],
        [ChatServer.content(""), "no answer"],
        [{ _tag: "Json", status: 200, body: { object: "chat.completion", choices: [] } }, "no chat completion"],
        [{ _tag: "Text", status: 200, body: "<html>gateway</html>" }, "not JSON"]
      ]
      server.script(...cases.map(([reply]) => reply))
      for (const [, detail] of cases) assertAnswererError(yield* Effect.flip(plan(server.baseUrl)), detail)
    }).pipe(Effect.scoped))

  it.live("SQL text where a member is expected is just a string the schema allows: the service's planner decides", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      const filters = [{ member: "region') OR 1=1 --", operator: "equals", values: ["x"] }]
      server.script(ChatServer.toolCall("query", { ...validArguments, query: { ...validArguments.query, filters } }))
      const planned = yield* plan(server.baseUrl)
      assert.deepStrictEqual(planned._tag === "Query" ? planned.query.filters : undefined, filters as any)
    }).pipe(Effect.scoped))

  it.live("401, 429 with Retry-After, 5xx and an unreachable server are AnswererErrors that say which", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(
        ChatServer.error(401, "Incorrect API key provided"),
        ChatServer.error(429, "Rate limit reached for gpt-test", { "retry-after": "20" }),
        ChatServer.error(503, "The engine is currently overloaded")
      )
      const unauthorized = yield* Effect.flip(plan(server.baseUrl))
      assertAnswererError(unauthorized, "refused the API key (401): Incorrect API key provided")
      assertAnswererError(yield* Effect.flip(plan(server.baseUrl)), "rate limiting (429); retry after 20 s: Rate limit reached")
      assertAnswererError(yield* Effect.flip(plan(server.baseUrl)), "failed (503): The engine is currently overloaded")
      assertAnswererError(yield* Effect.flip(plan(server.baseUrl.replace("/v1", "/wrong"))), "answered 404")
      const closed = yield* Effect.scoped(Effect.map(ChatServer.start, (s) => s.baseUrl))
      assertAnswererError(yield* Effect.flip(plan(closed)), "could not be reached")
    }).pipe(Effect.scoped))

  it.live("a server that does not answer in time is an AnswererError, and the request is aborted", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.hang)
      assertAnswererError(yield* Effect.flip(plan(server.baseUrl, { timeoutMillis: 300 })), "did not answer within")
      yield* Effect.promise(() => server.received[0].leftEarly)
    }).pipe(Effect.scoped))

  it.live("interrupting plan aborts the request", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.hang)
      const fiber = yield* Effect.forkChild(plan(server.baseUrl))
      yield* server.awaitRequests(1)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.received[0].leftEarly)
    }).pipe(Effect.scoped))

  it.live("narrate streams the pieces in order from a streamed completion shown the rows, the question as user content", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.stream(["EMEA leads ", "with 1250.5, ", "then APAC ", "with 980."]))
      const pieces = yield* Stream.runCollect(narrate(server.baseUrl))
      assert.deepStrictEqual(pieces, ["EMEA leads ", "with 1250.5, ", "then APAC ", "with 980."])
      const { body, headers } = server.received[0]
      assert.strictEqual(headers.authorization, "Bearer sk-test-secret")
      assert.strictEqual(body.stream, true)
      assert.strictEqual(body.model, "gpt-test")
      assert.notProperty(body, "tools")
      const messages = body.messages as Array<{ role: string; content: string }>
      assert.deepStrictEqual(messages.at(-1), { role: "user", content: question.text })
      assert.include(messages[0].content, "Use only the numbers")
      assert.include(messages[0].content, JSON.stringify(result.rows))
      assert.notInclude(messages[0].content, question.text)
    }).pipe(Effect.scoped))

  it.live("narrate shows at most maxRows rows and says how many there are", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.stream(["Many rows."]))
      const rows = Array.from({ length: 250 }, (_, i) => ({ region: `R${i}`, amount: i }))
      yield* Stream.runDrain(narrate(server.baseUrl, { ...result, rows }))
      const system = server.received[0].body.messages[0].content as string
      assert.include(system, JSON.stringify(rows.slice(0, 200)))
      assert.notInclude(system, `"R200"`)
      assert.include(system, "The result has 250 rows; the first 200 are shown")
    }).pipe(Effect.scoped))

  it.live("a stream that ends without [DONE], is cut mid-way, errors, or goes silent is an AnswererError after the pieces that came", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      const cases: ReadonlyArray<readonly [ChatServer.Reply, string]> = [
        [ChatServer.stream(["EMEA ", "leads"], "close"), "ended before [DONE]"],
        [ChatServer.stream(["EMEA ", "leads"], "cut"), "broke off"],
        [ChatServer.stream(["EMEA ", "leads"], "hang"), "did not send the next piece within"],
        [{ _tag: "Stream", data: [JSON.stringify({ choices: [{ delta: { content: "EMEA " } }] }), JSON.stringify({ error: { message: "overloaded" } })], end: "done" }, "failed mid-stream: overloaded"],
        [{ _tag: "Stream", data: [JSON.stringify({ choices: [{ delta: { content: "EMEA " } }] }), "{not json"], end: "done" }, "no completion chunk"],
        [ChatServer.error(500, "boom"), "failed (500): boom"]
      ]
      server.script(...cases.map(([reply]) => reply))
      for (const [reply, detail] of cases) {
        const seen: Array<string> = []
        // Only the silent stream is given a short time-out: the others fail for their own reason, however slow the machine.
        const timeoutMillis = reply._tag === "Stream" && reply.end === "hang" ? 300 : 30_000
        const error = yield* Effect.flip(Stream.runForEach(narrate(server.baseUrl, result, { timeoutMillis }), (piece) => Effect.sync(() => seen.push(piece))))
        assertAnswererError(error, detail)
        if (reply._tag === "Stream") assert.strictEqual(seen[0], "EMEA ")
      }
    }).pipe(Effect.scoped))

  it.live("interrupting narrate closes the connection, as does taking fewer pieces than it streams", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.stream(["EMEA ", "leads"], "hang"), ChatServer.stream(["EMEA ", "leads"], "hang"))
      const first = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(Stream.runForEach(narrate(server.baseUrl), () => Deferred.succeed(first, undefined)))
      yield* Deferred.await(first)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.received[0].leftEarly)

      assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(narrate(server.baseUrl), 1)), ["EMEA "])
      yield* Effect.promise(() => server.received[1].leftEarly)
    }).pipe(Effect.scoped))
})
