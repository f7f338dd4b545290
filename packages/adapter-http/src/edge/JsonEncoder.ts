/**
 * JSON encoders compiled from a schema, for response bodies.
 *
 * `compile(schema)` returns a function whose result is byte for byte
 * `JSON.stringify(Schema.encodeSync(Schema.toCodecJson(schema))(value))`,
 * without running the Schema parser per value: the JSON codec's AST is walked
 * once and turned into writers of the JSON text: each struct a generated
 * function reading its properties by name and writing its leaves inline (as
 * fast-json-stringify does, derived from the schema instead of a JSON
 * schema), the other nodes small closures.
 *
 * Supported nodes of the JSON codec AST: structs (`Objects` with property
 * signatures, optional keys included), records with string keys (`Objects`
 * with one `string` index signature), arrays and tuples, `String`, `Number`
 * (plain, whose JSON form writes non-finite numbers as strings, and finite or
 * integer, written as is), `Boolean`, `Null`, `Undefined` and `Void` (`null`),
 * literals, enums, `anyOf` unions of those, and `Schema.Date` (the ISO 8601 string of
 * the codec's own `SchemaTransformation.dateFromString`, i.e. `toISOString()`). Any other node, such
 * as a transformation, `Suspend`, another declaration or a `oneOf` union, is
 * encoded by the generic path at that node (`Schema.encodeSync` of that node
 * and `JSON.stringify`), so the result is never different, only slower there.
 *
 * Validation: every node checks the value's shape as the parser does (type of
 * primitives, literal value, object / array, required keys, tuple length,
 * which union member), and a value the compiled path refuses is handed to the
 * generic path, which encodes it or throws its `SchemaError`. Refinements
 * (`checks`: patterns, lengths, integers, brands' checks, ...) are NOT re-run:
 * the values come from the domain, which validated them, and this matches
 * the API's `HttpApi.SuccessParseOptions` `{ disableChecks: true }`. A value
 * that would fail a check is encoded as if the check passed (the generic path
 * without `disableChecks` throws instead).
 *
 * @since 0.1.0
 */
import { Schema, SchemaAST, SchemaTransformation } from "effect"
import * as IsoTime from "./IsoTime.ts"

/** Writes the JSON text of a value, `undefined` when the value has none (a member to omit); throws when the value does not fit. */
type Emit = (value: unknown) => string | undefined

/** Thrown (never escapes `compile`'s result) when a value does not fit the compiled path. */
const mismatch: unknown = new Error("JsonEncoder: value does not fit the compiled schema")

/** A union member that does not take the value (JSON text never holds a raw NUL). */
const skip = "\u0000skip"

const fail = (): never => {
  throw mismatch
}

// The transformations the JSON codec attaches to nodes that have no JSON form
// of their own, found through public schemas once: a node carrying one of
// these links is encoded as the codec does, without running it.
const transformationOf = (schema: Schema.Top) => Schema.toCodecJson(schema).ast.encoding?.[0]?.transformation
/** `Number` without a finite / integer check: non-finite numbers become `"NaN"`, `"Infinity"`, `"-Infinity"`. */
const numberToJson = transformationOf(Schema.Number)
/** `Undefined` and `Void` become `null`. */
const undefinedToNull = transformationOf(Schema.Undefined)
/** `Schema.Date`'s parser (valid `Date` instances only). */
const dateRun = Schema.Date.ast.run

const isArrayIndex = (key: string): boolean => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The generic path for one node: what the parser does at that node, then `JSON.stringify`. */
const genericAt = (ast: SchemaAST.AST): Emit => {
  const encode = Schema.encodeSync(Schema.make<Schema.Codec<unknown, unknown>>(ast))
  return (value) => JSON.stringify(encode(value))
}

/** What a compiled node writes for every value of one JavaScript type, to tell when union members overlap. */
type Kind =
  | "string"
  | "number"
  | "number-json"
  | "boolean"
  | "literal"
  | "null"
  | "undefined"
  | "date"
  | "object"
  | "array"
  | "any"

interface Compiled {
  readonly emit: Emit
  /** Whether this node can answer `undefined` (only the generic path can). */
  readonly mayOmit: boolean
  /** The JavaScript type of the values it accepts, and how it writes numbers. */
  readonly kind: Kind
  /** The node fell back to the generic path. */
  readonly generic: boolean
  /** No node below (or this one) uses the generic path. */
  readonly complete: boolean
  /** For leaves: whether `emit` takes the value (it then does not throw), so unions choose without exceptions. */
  readonly test?: (value: unknown) => boolean
  /** For leaves and their unions: `test` and `emit` as JavaScript expressions of a variable, for a struct's generated code. */
  readonly inline?: Inline
}

/** A leaf as generated code writes it: its test and its text, as expressions of the variable named `x`. */
interface Inline {
  readonly test: (x: string) => string
  readonly write: (x: string) => string
}

const fallback = (ast: SchemaAST.AST): Compiled => ({
  emit: genericAt(ast),
  mayOmit: true,
  kind: "any",
  generic: true,
  complete: false
})

const allComplete = (nodes: ReadonlyArray<Compiled>): boolean => nodes.every((node) => node.complete)

const leaf = (kind: Kind, test: (value: unknown) => boolean, emit: Emit, inline?: Inline): Compiled => ({
  emit: (v) => test(v) ? emit(v) : fail(),
  mayOmit: false,
  kind,
  generic: false,
  complete: true,
  test,
  ...(inline === undefined ? {} : { inline })
})

// The same leaves as generated code writes them (`iso` is `IsoTime.format`).
const inlineString: Inline = { test: (x) => `typeof ${x} === "string"`, write: (x) => `JSON.stringify(${x})` }
const inlineFiniteNumber: Inline = { test: (x) => `typeof ${x} === "number"`, write: (x) => `(Number.isFinite(${x}) ? "" + ${x} : "null")` }
const inlineBoolean: Inline = { test: (x) => `typeof ${x} === "boolean"`, write: (x) => `(${x} ? "true" : "false")` }
const inlineNull: Inline = { test: (x) => `${x} === null`, write: () => `"null"` }
const inlineDate: Inline = {
  test: (x) => `(${x} instanceof Date && !Number.isNaN(${x}.getTime()))`,
  write: (x) => `('"' + iso(${x}.getTime()) + '"')`
}

const isString = (v: unknown) => typeof v === "string"
const isNumber = (v: unknown) => typeof v === "number"
const isBoolean = (v: unknown) => typeof v === "boolean"
const isNull = (v: unknown) => v === null
const isUndefined = (v: unknown) => v === undefined
const isAny = () => true
const isValidDate = (v: unknown) => v instanceof Date && !Number.isNaN(v.getTime())

// The writers of the leaves, called once their test passed.
const emitString: Emit = (v) => JSON.stringify(v)
const emitBoolean: Emit = (v) => v ? "true" : "false"
const emitNull: Emit = () => "null"
const emitFiniteNumber: Emit = (v) => Number.isFinite(v) ? "" + v : "null"
const emitJsonNumber: Emit = (v) => Number.isFinite(v) ? "" + v : "\"" + String(v) + "\""
const emitDate: Emit = (v) => "\"" + IsoTime.format((v as Date).getTime()) + "\""

const compileNode = (ast: SchemaAST.AST): Compiled => {
  if (ast.encoding !== undefined) return compileEncoded(ast, ast.encoding)
  switch (ast._tag) {
    case "String":
      return leaf("string", isString, emitString, inlineString)
    case "Number":
      // No link: the codec keeps finite / integer numbers as they are.
      return leaf("number", isNumber, emitFiniteNumber, inlineFiniteNumber)
    case "Boolean":
      return leaf("boolean", isBoolean, emitBoolean, inlineBoolean)
    case "Null":
      return leaf("null", isNull, emitNull, inlineNull)
    case "Literal": {
      const literal = ast.literal
      if (typeof literal === "bigint") return fallback(ast)
      const text = JSON.stringify(literal)
      // A literal writes one value, which every other member that takes it writes the same way.
      return leaf("literal", (v) => v === literal, () => text)
    }
    case "Enum": {
      const values = new Set<unknown>(ast.enums.map(([, value]) => value))
      return leaf("literal", (v) => values.has(v), (v) => JSON.stringify(v))
    }
    case "Arrays":
      return compileArrays(ast)
    case "Objects":
      return compileObjects(ast)
    case "Union":
      return compileUnion(ast)
    default:
      return fallback(ast)
  }
}

/** A node with a link to its JSON form: only the links the codec itself adds for numbers, `undefined` and dates. */
const compileEncoded = (ast: SchemaAST.AST, encoding: SchemaAST.Encoding): Compiled => {
  if (encoding.length !== 1) return fallback(ast)
  const { to, transformation } = encoding[0]
  if (to.encoding !== undefined) return fallback(ast)
  if (ast._tag === "Number" && transformation === numberToJson) return leaf("number-json", isNumber, emitJsonNumber)
  if (ast._tag === "Undefined" && transformation === undefinedToNull) return leaf("undefined", isUndefined, emitNull)
  if (ast._tag === "Void" && transformation === undefinedToNull) return leaf("any", isAny, emitNull)
  if (
    ast._tag === "Declaration" && ast.run === dateRun && transformation === SchemaTransformation.dateFromString &&
    to._tag === "String"
  ) return leaf("date", isValidDate, emitDate, inlineDate)
  return fallback(ast)
}

const compileArrays = (ast: SchemaAST.Arrays): Compiled => {
  if (ast.rest.length > 1) return fallback(ast)
  const elements = ast.elements.map(compileNode)
  const required = ast.elements.filter((e) => !SchemaAST.isOptional(e)).length
  const max = ast.rest.length === 0 ? elements.length : Infinity
  const rest = ast.rest.length === 1 ? compileNode(ast.rest[0]) : undefined
  // JSON.stringify writes `null` for an element without JSON text.
  const at = (c: Compiled, v: unknown): string => {
    const s = c.emit(v)
    return s === undefined ? "null" : s
  }
  if (elements.length === 0 && rest !== undefined) {
    const emit = rest.emit
    const mayOmit = rest.mayOmit
    return {
      emit: (v) => {
        if (!Array.isArray(v)) return fail()
        const len = v.length
        if (len === 0) return "[]"
        let out = "[" + (mayOmit ? at(rest, v[0]) : emit(v[0]))
        for (let i = 1; i < len; i++) out += "," + (mayOmit ? at(rest, v[i]) : emit(v[i]))
        return out + "]"
      },
      mayOmit: false,
      kind: "array",
      generic: false,
      complete: rest.complete
    }
  }
  return {
    emit: (v) => {
      if (!Array.isArray(v)) return fail()
      const len = v.length
      if (len < required || len > max) return fail()
      let out = "["
      for (let i = 0; i < len; i++) {
        if (i > 0) out += ","
        out += at(i < elements.length ? elements[i] : rest!, v[i])
      }
      return out + "]"
    },
    mayOmit: false,
    kind: "array",
    generic: false,
    complete: allComplete(rest === undefined ? elements : [...elements, rest])
  }
}

interface Field {
  readonly name: string
  /** `"name":` */
  readonly prefix: string
  readonly optional: boolean
  readonly compiled: Compiled
}

const compileObjects = (ast: SchemaAST.Objects): Compiled => {
  const { propertySignatures: properties, indexSignatures: indexes } = ast
  if (properties.length > 0 && indexes.length === 0) return compileStruct(ast, properties)
  if (
    properties.length === 0 && indexes.length === 1 && indexes[0].parameter === SchemaAST.string
  ) return compileRecord(compileNode(indexes[0].type))
  // Empty structs, struct-and-record mixes and non-string keys.
  return fallback(ast)
}

/**
 * A struct's writer as generated code (as fast-json-stringify does): each
 * property read by its own name and each leaf written inline, so the reads
 * stay monomorphic however many schemas share this module; the closure loop
 * above reads `v[name]` with a changing name, megamorphic in a request full
 * of other code (docs/decisions/0008). Writes exactly what the loop writes.
 * `simple`: every property is required and none may be omitted. `undefined`
 * where code cannot be generated (`--disallow-code-generation-from-strings`).
 */
const generated = (order: ReadonlyArray<Field>, simple: boolean): Emit | undefined => {
  const lines = ["if (typeof v !== \"object\" || v === null || Array.isArray(v)) return fail()"]
  const literal = (text: string) => JSON.stringify(text)
  const value = (field: Field, i: number): string => {
    const inline = field.compiled.inline
    return inline === undefined ? `E[${i}](x${i})` : `(${inline.test(`x${i}`)} ? ${inline.write(`x${i}`)} : fail())`
  }
  if (simple) {
    lines.push(`if (${order.map((f) => `!(${literal(f.name)} in v)`).join(" || ")}) return fail()`)
    order.forEach((f, i) => lines.push(`const x${i} = v[${literal(f.name)}]`))
    lines.push("return " + order.map((f, i) => `${literal((i === 0 ? "{" : ",") + f.prefix)} + ${value(f, i)}`).join(" + ") + " + \"}\"")
  } else {
    lines.push("let out = \"{\"", "let first = true", "let s")
    order.forEach((f, i) => {
      const absent = !f.optional || f.compiled.generic ? "return fail()" : ""
      lines.push(
        `if (${literal(f.name)} in v) {`,
        `  const x${i} = v[${literal(f.name)}]`,
        `  s = ${value(f, i)}`,
        `  if (s !== undefined) { out += (first ? "" : ",") + ${literal(f.prefix)} + s; first = false }`,
        `}${absent === "" ? "" : ` else ${absent}`}`
      )
    })
    lines.push("return out + \"}\"")
  }
  try {
    const make = new Function("fail", "E", "iso", `return function(v) {\n${lines.join("\n")}\n}`) as (
      fail: () => never,
      emits: ReadonlyArray<Emit>,
      iso: (time: number) => string
    ) => Emit
    return make(fail, order.map((f) => f.compiled.emit), IsoTime.format)
  } catch {
    return undefined
  }
}

const compileStruct = (ast: SchemaAST.Objects, properties: ReadonlyArray<SchemaAST.PropertySignature>): Compiled => {
  if (properties.some((ps) => typeof ps.name !== "string" || ps.name === "__proto__")) return fallback(ast)
  const fields: Array<Field> = properties.map((ps) => {
    const name = ps.name as string
    return {
      name,
      prefix: JSON.stringify(name) + ":",
      optional: SchemaAST.isOptional(ps.type),
      compiled: compileNode(ps.type)
    }
  })
  // The parser assigns the properties in declaration order to a new object,
  // whose array-index keys JavaScript then enumerates first, ascending.
  const order = [
    ...fields.filter((f) => isArrayIndex(f.name)).sort((a, b) => Number(a.name) - Number(b.name)),
    ...fields.filter((f) => !isArrayIndex(f.name))
  ]
  const n = order.length
  const names = order.map((f) => f.name)
  const prefixes = order.map((f) => f.prefix)
  const emits = order.map((f) => f.compiled.emit)
  const optional = order.map((f) => f.optional)
  // A property the generic path encodes may come out missing or `undefined`.
  const simple = order.every((f) => !f.compiled.mayOmit)
  const generic = order.map((f) => f.compiled.generic)
  if (simple && !optional.includes(true)) {
    // Every key is written: the separators are known in advance.
    const heads = prefixes.map((p, i) => (i === 0 ? "{" : ",") + p)
    return {
      emit: generated(order, true) ?? ((v) => {
        if (!isRecord(v)) return fail()
        let out = ""
        for (let i = 0; i < n; i++) {
          const name = names[i]
          if (!(name in v)) return fail()
          out += heads[i] + emits[i](v[name])
        }
        return out + "}"
      }),
      mayOmit: false,
      kind: "object",
      generic: false,
      complete: allComplete(order.map((f) => f.compiled))
    }
  }
  return {
    emit: generated(order, false) ?? ((v) => {
      if (!isRecord(v)) return fail()
      let out = "{"
      let first = true
      for (let i = 0; i < n; i++) {
        const name = names[i]
        if (!(name in v)) {
          // An absent key the generic path would encode (it may give it a value): let it do the whole value.
          if (!optional[i] || generic[i]) return fail()
          continue
        }
        const s = emits[i](v[name])
        if (s === undefined) continue
        out += (first ? "" : ",") + prefixes[i] + s
        first = false
      }
      return out + "}"
    }),
    mayOmit: false,
    kind: "object",
    generic: false,
    complete: allComplete(order.map((f) => f.compiled))
  }
}

/** `Record(String, X)`: every own enumerable string key, in `Object.keys` order (as the parser writes them). */
const compileRecord = (value: Compiled): Compiled => {
  const emit = value.emit
  return {
    emit: (v) => {
      if (!isRecord(v)) return fail()
      const keys = Object.keys(v)
      let out = "{"
      let first = true
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]
        const s = emit(v[key])
        if (s === undefined) continue
        out += (first ? "" : ",") + JSON.stringify(key) + ":" + s
        first = false
      }
      return out + "}"
    },
    mayOmit: false,
    kind: "object",
    generic: false,
    complete: value.complete
  }
}

/**
 * `anyOf` unions: the first member that takes the value writes it, as the
 * parser tries the members in order. Members that accept the same JavaScript
 * type but write it differently (plain and finite numbers) would depend on
 * the checks that tell them apart, so such unions take the generic path.
 */
const compileUnion = (ast: SchemaAST.Union): Compiled => {
  if (ast.options?.mode === "oneOf" || ast.types.length === 0) return fallback(ast)
  const members = ast.types.map(compileNode)
  const kinds = new Set(members.map((m) => m.kind))
  if (kinds.has("number") && kinds.has("number-json")) return fallback(ast)
  const mayOmit = members.some((m) => m.mayOmit)
  const kind: Kind = kinds.size === 1 ? members[0].kind : "any"
  // Leaves say whether they take a value; other members are tried.
  const steps = members.map((m): Emit => {
    const { emit, test } = m
    return test !== undefined ?
      (v) => test(v) ? emit(v) : skip :
      (v) => {
        try {
          return emit(v)
        } catch {
          return skip
        }
      }
  })
  if (members.every((m) => m.test !== undefined)) {
    const tests = members.map((m) => m.test!)
    const emits = members.map((m) => m.emit)
    const inlines = members.every((m) => m.inline !== undefined) ? members.map((m) => m.inline!) : undefined
    return {
      ...(inlines === undefined ? {} : {
        inline: {
          test: (x: string) => "(" + inlines.map((m) => m.test(x)).join(" || ") + ")",
          write: (x: string) => "(" + inlines.map((m) => `${m.test(x)} ? ${m.write(x)} : `).join("") + "fail())"
        }
      }),
      emit: (v) => {
        for (let i = 0; i < tests.length; i++) {
          if (tests[i](v)) return emits[i](v)
        }
        return fail()
      },
      mayOmit,
      kind,
      generic: false,
      complete: allComplete(members),
      test: (v) => tests.some((test) => test(v))
    }
  }
  return {
    emit: (v) => {
      for (let i = 0; i < steps.length; i++) {
        const s = steps[i](v)
        if (s !== skip) return s
      }
      return fail()
    },
    mayOmit,
    kind,
    generic: false,
    complete: allComplete(members)
  }
}

/**
 * Compiles the JSON encoder of a schema: `(value) => string`, equal to
 * `JSON.stringify(Schema.encodeSync(Schema.toCodecJson(schema))(value))`
 * (see the module documentation for what is compiled and what is not checked).
 * A value the compiled path refuses goes through that generic path, which
 * throws its `SchemaError` when the value is not a valid `Type`.
 *
 * @since 0.1.0
 */
export const compile = <S extends Schema.ConstraintEncoder<unknown>>(schema: S): (value: S["Type"]) => string => {
  const codec = Schema.toCodecJson(schema)
  const encode = Schema.encodeSync(codec)
  const generic = (value: S["Type"]): string => JSON.stringify(encode(value))
  const root = compileNode(codec.ast)
  if (root.generic) return generic
  const emit = root.emit
  return (value) => {
    let out: string | undefined
    try {
      out = emit(value)
    } catch {
      return generic(value)
    }
    return out as string
  }
}

/**
 * Whether `compile` writes every node of the schema itself, without the
 * generic path anywhere (for valid values). For tests and diagnostics.
 *
 * @since 0.1.0
 */
export const isCompiled = (schema: Schema.Top): boolean => compileNode(Schema.toCodecJson(schema).ast).complete
