/**
 * `RequestDecoder` decodes as Schema does under the API's parse options:
 * every params, headers, query and JSON payload schema of the contract, given inputs
 * built from its own property names (valid, invalid, missing, excess), gets
 * the same exit from both, successes by value and failures by message.
 * Which schemas take the fast path is checked too: a flat struct does, one
 * with a struct, a declaration or a record inside does not.
 */
import { Api } from "@analytics/api"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Schema, SchemaAST } from "effect"
import { HttpApi } from "effect/http-api"
import * as RequestDecoder from "../src/edge/RequestDecoder.ts"

/** The API's own options (packages/api's `Api`): headers have their own. */
const options = Context.getOrUndefined(Api.annotations, HttpApi.ParseOptions)
const headerOptions = Context.getOrUndefined(Api.annotations, HttpApi.HeadersParseOptions)

/** Values for one property: text, numbers as text, an array, absent, and wrong types. */
const samples: ReadonlyArray<unknown> = [
  "x",
  "",
  "20",
  "0",
  "-created_at",
  "created_at",
  "0190b2a6-6d0a-7c4e-8f3b-1a2b3c4d5e6f",
  "a".repeat(300),
  ["20"],
  ["1", "2"],
  20,
  null,
  true,
  undefined
]

/** Inputs for a struct with `names`: each property set to each sample alone and all together, none, and an excess key. */
const inputsFor = (names: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  const inputs: Array<unknown> = [{}, { unknown: "x" }, "text", null, []]
  for (const sample of samples) {
    const all: Record<string, unknown> = {}
    for (const name of names) {
      inputs.push({ [name]: sample })
      all[name] = sample
    }
    inputs.push(all, { ...all, unknown: "x" })
  }
  // A typical valid shape too: names set to plausible texts.
  inputs.push(Object.fromEntries(names.map((name) => [name, name === "limit" ? "20" : "A name"])))
  return inputs
}

/** An exit in comparable form: the value, or the failure's message. */
const outcome = (effect: Effect.Effect<unknown, Schema.SchemaError>) => {
  const exit = Effect.runSyncExit(effect)
  return Exit.isSuccess(exit)
    ? { ok: exit.value }
    : { failed: Exit.isFailure(exit) ? String(exit.cause) : "" }
}

interface Slot {
  readonly name: string
  /** The slot's own options, when the API gives it some (else the API's, as `ApiRoutes` picks them). */
  readonly options?: SchemaAST.ParseOptions | undefined
  readonly schema: Schema.Codec<unknown, unknown>
}

/** Every params, headers, query and JSON payload slot of the contract, as the compiled routes decode them. */
const slots: ReadonlyArray<Slot> = (() => {
  const found: Array<Slot> = []
  HttpApi.reflect(Api, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      const label = `${endpoint.method} ${endpoint.path}`
      if (endpoint.params !== undefined) found.push({ name: `${label} params`, schema: endpoint.params as Schema.Codec<unknown, unknown> })
      if (endpoint.headers !== undefined) {
        found.push({ name: `${label} headers`, options: headerOptions, schema: endpoint.headers as Schema.Codec<unknown, unknown> })
      }
      if (endpoint.query !== undefined) {
        found.push({ name: `${label} query`, schema: Schema.toCodecArrayFromSingle(endpoint.query) as Schema.Codec<unknown, unknown> })
      }
      for (const { encoding, schemas } of endpoint.payload.values()) {
        if (encoding._tag !== "Json") continue
        found.push({ name: `${label} payload`, schema: Schema.Union(schemas as ReadonlyArray<Schema.Top>) as unknown as Schema.Codec<unknown, unknown> })
      }
    }
  })
  return found
})()

describe("RequestDecoder", () => {
  it("decodes every slot of the contract as Schema does under the API's options", () => {
    // The options whose excess-key check the fast path must keep.
    assert.strictEqual(options?.onExcessProperty, "error")
    let fast = 0
    let compared = 0
    for (const slot of slots) {
      const names = RequestDecoder.fastPathKeys(slot.schema)
      if (names !== undefined) fast++
      const decode = RequestDecoder.make(slot.schema, slot.options ?? options)
      const declared = Schema.decodeUnknownEffect(slot.schema, slot.options ?? options)
      // A slot off the fast path is decoded as declared: its own property names still make its inputs.
      const struct = SchemaAST.isUnion(slot.schema.ast) ? slot.schema.ast.types[0] : slot.schema.ast
      const propertyNames = struct !== undefined && SchemaAST.isObjects(struct) ? struct.propertySignatures.map((p) => String(p.name)) : ["value"]
      for (const input of inputsFor(propertyNames)) {
        assert.deepStrictEqual(outcome(decode(input)), outcome(declared(input)), `${slot.name}: ${JSON.stringify(input)}`)
        compared++
      }
    }
    // Most of the contract's slots are flat structs, the list queries and the workspace payload among them.
    assert.isAbove(fast, slots.length / 2, `${fast} of ${slots.length} slots take the fast path`)
    assert.isAbove(compared, 1000)
  })

  it("takes the fast path for a flat struct only", () => {
    const listQuery = slots.find((slot) => slot.name === "GET /v1/workspaces query")
    const createPayload = slots.find((slot) => slot.name === "POST /v1/workspaces payload")
    assert.deepStrictEqual([...RequestDecoder.fastPathKeys(listQuery!.schema)!].sort(), ["cursor", "limit", "sort"])
    assert.deepStrictEqual([...RequestDecoder.fastPathKeys(createPayload!.schema)!].sort(), ["description", "name"])
    const nested = Schema.Struct({ a: Schema.Struct({ b: Schema.String }) })
    const record = Schema.Record(Schema.String, Schema.String)
    const dated = Schema.Struct({ at: Schema.Date })
    const listed = Schema.Struct({ tags: Schema.Array(Schema.Struct({ b: Schema.String })) })
    const unionOfTwo = Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.String })])
    for (const schema of [nested, record, dated, listed, unionOfTwo]) assert.isUndefined(RequestDecoder.fastPathKeys(schema))
  })

  it("refuses an excess key inside a nested struct, which the default options would drop", () => {
    // Why nested structs are left to the declared options: under the defaults this input decodes.
    const nested = Schema.Struct({ a: Schema.Struct({ b: Schema.String }) })
    const input = { a: { b: "x", extra: 1 } }
    assert.isTrue(Exit.isSuccess(Effect.runSyncExit(Schema.decodeUnknownEffect(nested)(input))))
    assert.isTrue(Exit.isFailure(Effect.runSyncExit(RequestDecoder.make(nested, options)(input))))
  })
})
