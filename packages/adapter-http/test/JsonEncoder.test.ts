import { assert, describe, it } from "@effect/vitest"
import { Option, Schema, SchemaAST } from "effect"
import { spawnSync } from "node:child_process"
import { Groups, ListEnvelope as Lists } from "@analytics/api"
import * as JsonEncoder from "../src/edge/JsonEncoder.ts"

const { Health, PublicConfig } = Groups.System
const { ProvisionedTenant } = Groups.Tenants
const { WorkspaceJson } = Groups.Workspaces
const ListEnvelope = Lists.make

/** The path HttpApiBuilder takes (with checks, which generated values pass). */
const generic = <S extends Schema.ConstraintEncoder<unknown>>(schema: S) => {
  const encode = Schema.encodeSync(Schema.toCodecJson(schema))
  return (value: S["Type"]): string => JSON.stringify(encode(value))
}

/** Both paths' outcome: the JSON text, or the error's class and message. */
const outcome = (f: () => string): string => {
  try {
    return f()
  } catch (error) {
    return `throws ${(error as Error).name}: ${(error as Error).message}`
  }
}

/** A property test: for values generated from the schema, the compiled encoder writes what the generic path writes. */
const same = <S extends Schema.Codec<any, any>>(
  name: string,
  schema: S,
  options: { readonly compiled: boolean; readonly runs?: number }
) => {
  const compiled = JsonEncoder.compile(schema)
  const reference = generic(schema)
  it(`${name}: ${options.compiled ? "compiled throughout" : "uses the generic path"}`, () => {
    assert.strictEqual(JsonEncoder.isCompiled(schema), options.compiled)
  })
  it.prop(`${name}: same JSON as the generic path`, { value: schema }, ({ value }) => {
    assert.strictEqual(compiled(value), reference(value))
  }, { arbitrary: { runs: options.runs ?? 200 } })
}

describe("JsonEncoder", () => {
  describe("the API's response schemas", () => {
    same("ListEnvelope(WorkspaceJson)", ListEnvelope(WorkspaceJson), { compiled: true })
    same("WorkspaceJson", WorkspaceJson, { compiled: true })
    same("ProvisionedTenant", ProvisionedTenant, { compiled: true })
    same("Health", Health, { compiled: true })
    same("PublicConfig", PublicConfig, { compiled: true })
  })

  describe("every supported node", () => {
    same(
      "primitives and literals",
      Schema.Struct({
        string: Schema.String,
        number: Schema.Number, // NaN and ±Infinity are written as strings
        finite: Schema.Finite,
        int: Schema.Int.check(Schema.isBetween({ minimum: -5, maximum: 5 })),
        boolean: Schema.Boolean,
        null: Schema.Null,
        undefined: Schema.Undefined,
        void: Schema.Void,
        literal: Schema.Literal("a\"b"),
        literalNumber: Schema.Literal(-1.5),
        literalBoolean: Schema.Literal(false),
        literals: Schema.Literals(["x", 1, true]),
        enum: Schema.Enum({ A: "a", B: 2 }),
        date: Schema.Date,
        branded: Schema.String.check(Schema.isMinLength(1)).pipe(Schema.brand("Id")),
        checked: Schema.Number.check(Schema.isGreaterThan(0))
      }),
      { compiled: true }
    )
    same(
      "optional keys, key order and escaped names",
      Schema.Struct({
        b: Schema.optionalKey(Schema.String),
        "10": Schema.Boolean,
        a: Schema.optional(Schema.Number),
        "2": Schema.optionalKey(Schema.Int),
        "é \"quoted\"\n": Schema.NullOr(Schema.String),
        "01": Schema.String,
        last: Schema.optional(Schema.Date)
      }),
      { compiled: true }
    )
    same(
      "unions",
      Schema.Struct({
        nullOr: Schema.NullOr(Schema.Date),
        mixed: Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Null]),
        literalOrString: Schema.Union([Schema.Literal("a"), Schema.String]),
        objects: Schema.Union([
          Schema.Struct({ kind: Schema.Literal("a"), a: Schema.String }),
          Schema.Struct({ kind: Schema.Literal("b"), b: Schema.Number }),
          Schema.Array(Schema.Int)
        ]),
        undefinedOr: Schema.UndefinedOr(Schema.String)
      }),
      { compiled: true }
    )
    same(
      "arrays, tuples and records",
      Schema.Struct({
        array: Schema.Array(Schema.Struct({ id: Schema.String, at: Schema.Date })),
        nested: Schema.Array(Schema.Array(Schema.NullOr(Schema.Number))),
        tuple: Schema.Tuple([Schema.String, Schema.Number, Schema.optionalKey(Schema.Boolean)]),
        tupleWithRest: Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Int]),
        empty: Schema.Tuple([]),
        record: Schema.Record(Schema.String, Schema.NullOr(Schema.Number)),
        records: Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Date))
      }),
      { compiled: true }
    )
  })

  describe("the generic path where a node is not compiled", () => {
    same("a bigint", Schema.Struct({ id: Schema.String, big: Schema.BigInt }), { compiled: false })
    same(
      "transformations",
      Schema.Struct({
        n: Schema.NumberFromString,
        o: Schema.OptionFromOptionalKey(Schema.String),
        d: Schema.DateTimeUtc,
        s: Schema.String
      }),
      { compiled: false }
    )
    same("plain and integer numbers in one union", Schema.Union([Schema.Int, Schema.Number]), { compiled: false })
    same("a oneOf union", Schema.Union([Schema.String, Schema.Number], { mode: "oneOf" }), { compiled: false })
    same(
      "a struct with a record",
      Schema.StructWithRest(Schema.Struct({ a: Schema.String }), [Schema.Record(Schema.String, Schema.String)]),
      { compiled: false }
    )
    same("an empty struct", Schema.Struct({}), { compiled: false })
    same("a template literal", Schema.Struct({ t: Schema.TemplateLiteral(["id-", Schema.Number]) }), { compiled: false })

    interface Tree {
      readonly name: string
      readonly children: ReadonlyArray<Tree>
    }
    const Tree = Schema.Struct({
      name: Schema.String,
      children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
    })
    same("a recursive schema", Tree, { compiled: false, runs: 50 })

    class Item extends Schema.Class<Item>("Item")({ id: Schema.String, at: Schema.Date }) {}
    same("a class", Schema.Struct({ items: Schema.Array(Item) }), { compiled: false, runs: 50 })
  })

  describe("values", () => {
    it("writes what JSON.stringify writes", () => {
      const schema = Schema.Struct({
        s: Schema.String,
        n: Schema.Number,
        f: Schema.Finite,
        o: Schema.optional(Schema.Number),
        r: Schema.Record(Schema.String, Schema.Boolean)
      })
      const encode = JsonEncoder.compile(schema)
      const value = {
        s: "\u0000\"\\\n\u2028\ud800 é 😀",
        n: Number.NaN,
        f: -0,
        o: undefined,
        r: { b: true, "2": false, a: true, "1": true, __proto__x: false }
      }
      assert.strictEqual(encode(value), generic(schema)(value))
      assert.strictEqual(
        encode(value),
        `{"s":${JSON.stringify(value.s)},"n":"NaN","f":0,"o":null,"r":{"1":true,"2":false,"b":true,"a":true,"__proto__x":false}}`
      )
      assert.strictEqual(encode({ s: "", n: Infinity, f: 1e21, r: {} }), `{"s":"","n":"Infinity","f":1e+21,"r":{}}`)
    })

    it("writes dates as toISOString does, years 0000-9999 and beyond", () => {
      const encode = JsonEncoder.compile(Schema.Array(Schema.Date))
      const times = [
        0,
        -1,
        1,
        951_782_400_000, // 2000-02-29
        -2_203_891_200_000, // 1900-03-01
        -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
        -62_167_219_200_001,
        253_402_300_799_999, // 9999-12-31T23:59:59.999Z
        253_402_300_800_000,
        8.64e15,
        -8.64e15
      ]
      // A deterministic spread over the whole range, and runs of the same day (the cached prefix).
      let seed = 42
      for (let i = 0; i < 20_000; i++) {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
        times.push(Math.round((seed / 2_147_483_648 - 0.5) * 2 * 8.64e15 / 10 ** (i % 6)))
        if (i % 100 === 0) times.push(times[times.length - 1] + 1, times[times.length - 1] + 86_399_999)
      }
      const dates = times.map((t) => new Date(t))
      assert.strictEqual(encode(dates), JSON.stringify(dates.map((d) => d.toISOString())))
    })

    it("refuses what the generic path refuses, with its error", () => {
      const schema = Schema.Struct({
        id: Schema.String,
        at: Schema.Date,
        tags: Schema.Array(Schema.String),
        pair: Schema.Tuple([Schema.String, Schema.Number]),
        opt: Schema.optionalKey(Schema.String),
        nullable: Schema.NullOr(Schema.String)
      })
      const encode = JsonEncoder.compile(schema)
      const reference = generic(schema)
      const valid = { id: "a", at: new Date(0), tags: [], pair: ["x", 1], nullable: null }
      const invalid: ReadonlyArray<unknown> = [
        null,
        [],
        "text",
        { ...valid, id: 1 },
        { ...valid, at: new Date(Number.NaN) },
        { ...valid, at: "1970-01-01T00:00:00.000Z" },
        { ...valid, tags: [1] },
        { ...valid, tags: "a" },
        { ...valid, pair: ["x"] },
        { ...valid, pair: ["x", 1, 2] },
        { ...valid, opt: undefined },
        { ...valid, nullable: undefined },
        (({ nullable: _, ...rest }) => rest)(valid)
      ]
      assert.strictEqual(encode(valid as any), reference(valid as any))
      for (const value of invalid) {
        const compiled = outcome(() => encode(value as any))
        assert.match(compiled, /^throws SchemaError/)
        assert.strictEqual(compiled, outcome(() => reference(value as any)))
      }
    })

    it("does not re-run checks: the values come from the domain", () => {
      const schema = Schema.Struct({ name: Schema.String.check(Schema.isMinLength(3)) })
      assert.strictEqual(JsonEncoder.compile(schema)({ name: "a" }), `{"name":"a"}`)
      assert.match(outcome(() => generic(schema)({ name: "a" })), /^throws SchemaError/)
    })

    it("writes array-index keys first, as the object the generic path builds does", () => {
      // Schema.Struct's fields are already in that order; an AST built by hand need not be.
      const schema = Schema.make<Schema.Codec<{ readonly "10": string; readonly b: string; readonly "2": string }>>(
        new SchemaAST.Objects(
          ["10", "b", "2"].map((name) => new SchemaAST.PropertySignature(name, SchemaAST.string)),
          []
        )
      )
      const value = { "10": "x", b: "y", "2": "z" }
      assert.strictEqual(JsonEncoder.compile(schema)(value), `{"2":"z","10":"x","b":"y"}`)
      assert.strictEqual(JsonEncoder.compile(schema)(value), generic(schema)(value))
    })

    it("leaves out excess properties, as the generic path does", () => {
      const schema = Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.Number) })
      const value = { z: 1, a: "x", extra: new Date(0), b: 2 }
      assert.strictEqual(JsonEncoder.compile(schema)(value), `{"a":"x","b":2}`)
      assert.strictEqual(JsonEncoder.compile(schema)(value), generic(schema)(value))
    })

    it("omits a key the generic path encodes as missing", () => {
      const schema = Schema.Struct({ a: Schema.OptionFromOptionalKey(Schema.String), b: Schema.String })
      const encode = JsonEncoder.compile(schema)
      assert.strictEqual(encode({ a: Option.none(), b: "x" }), `{"b":"x"}`)
      assert.strictEqual(encode({ a: Option.some("y"), b: "x" }), `{"a":"y","b":"x"}`)
    })
  })
})

describe("JsonEncoder without code generation", () => {
  it("writes the same JSON where Node forbids generating code from strings (the closures' path)", () => {
    const here = new URL("../src/edge/JsonEncoder.ts", import.meta.url).href
    const script = `
      const { Schema } = await import("effect")
      const JsonEncoder = await import(${JSON.stringify(here)})
      const Row = Schema.Struct({ a: Schema.String, b: Schema.NullOr(Schema.Number), c: Schema.optionalKey(Schema.Boolean), d: Schema.Date })
      const encode = JsonEncoder.compile(Schema.Struct({ rows: Schema.Array(Row) }))
      let generated = true
      try { new Function("return 1") } catch { generated = false }
      console.log(JSON.stringify({ generated, text: encode({ rows: [{ a: "x\\"y", b: null, d: new Date(0) }, { a: "", b: 1.5, c: true, d: new Date(1e12) }] }) }))
    `
    const run = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script], {
      encoding: "utf8",
      cwd: new URL("..", import.meta.url).pathname
    })
    assert.strictEqual(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout) as { generated: boolean; text: string }
    assert.isFalse(result.generated)
    assert.strictEqual(
      result.text,
      "{\"rows\":[{\"a\":\"x\\\"y\",\"b\":null,\"d\":\"1970-01-01T00:00:00.000Z\"},{\"a\":\"\",\"b\":1.5,\"c\":true,\"d\":\"2001-09-09T01:46:40.000Z\"}]}"
    )
  })
})
