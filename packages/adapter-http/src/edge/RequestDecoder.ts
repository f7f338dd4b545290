/**
 * A request slot's decoder (params, headers, query, JSON payload) that takes
 * Schema's own fast path for valid input (docs/journal/0008-http-throughput.md, sixth step).
 *
 * The API decodes under `errors: "all"` and `onExcessProperty: "error"`, and
 * Schema's struct parser runs its per-property fast path only under the
 * default options: the declared ones send every request through the general
 * parser, one generator and one concurrent iteration per struct. Those
 * options only shape a failure: `errors: "all"` collects every issue instead
 * of the first, and an excess property is refused instead of dropped. So for
 * a flat struct (no struct, declaration or recursion inside it) whose input
 * has no key the struct does not declare, a success under the default
 * options is the value the declared ones decode. Anything else (a failure,
 * an excess key, a schema that is not flat) is decoded under the declared
 * options, so every problem is the one it was.
 *
 * @since 0.1.0
 */
import { Effect, Exit, Schema, SchemaAST } from "effect"

/** Decodes one slot's input. */
export type Decode<A = unknown> = (input: unknown) => Effect.Effect<A, Schema.SchemaError>

/** Whether `ast` holds, below itself, a struct, a declaration or a recursion (so its decoding under other options could differ). */
const hasDepth = (ast: SchemaAST.AST): boolean => {
  if (SchemaAST.isObjects(ast) || SchemaAST.isDeclaration(ast) || SchemaAST.isSuspend(ast)) return true
  if (ast.encoding !== undefined && ast.encoding.some((link) => hasDepth(link.to))) return true
  if (SchemaAST.isUnion(ast)) return ast.types.some(hasDepth)
  if (SchemaAST.isArrays(ast)) return ast.elements.some(hasDepth) || ast.rest.some(hasDepth)
  return false
}

/** The names of a flat struct's properties, or `undefined` when `ast` is not one (see `hasDepth`). */
const flatStructKeys = (ast: SchemaAST.AST): ReadonlySet<string> | undefined => {
  if (!SchemaAST.isObjects(ast) || ast.indexSignatures.length > 0 || ast.encoding !== undefined) return undefined
  const names = new Set<string>()
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string" || hasDepth(property.type)) return undefined
    names.add(property.name)
  }
  return names
}

/**
 * What the fast path decodes: a union's single member (HttpApiBuilder decodes
 * a payload as the union of its schemas; one member decodes valid input to
 * the same value), else `ast` itself.
 */
const quickOf = (ast: SchemaAST.AST): SchemaAST.AST =>
  SchemaAST.isUnion(ast) && ast.types.length === 1 && ast.checks === undefined && ast.encoding === undefined ? ast.types[0] : ast

/** The property names of the flat struct `schema` is decoded as on the fast path, or `undefined` when it takes none. */
export const fastPathKeys = (schema: Schema.Top): ReadonlySet<string> | undefined => flatStructKeys(quickOf(schema.ast))

/** Whether `input` is a non-array object whose every enumerable key is in `names`. */
const declaresEvery = (input: unknown, names: ReadonlySet<string>): boolean => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false
  for (const key in input) {
    if (!names.has(key)) return false
  }
  return true
}

/**
 * The decoder of `schema` under `options`, as `Schema.decodeUnknownEffect`
 * decodes, with the default options' fast path for the valid input of a
 * flat struct.
 */
export const make = <A>(schema: Schema.Codec<A, unknown>, options: SchemaAST.ParseOptions | undefined): Decode<A> => {
  const declared = Schema.decodeUnknownEffect(schema, options)
  const quick = quickOf(schema.ast)
  const names = flatStructKeys(quick)
  // Without options the declared decoding is the fast one; with checks disabled the fast path would check more.
  if (names === undefined || options === undefined || options.disableChecks === true) return declared
  const fast = Schema.decodeUnknownEffect(quick === schema.ast ? schema : Schema.make<Schema.Codec<A, unknown>>(quick))
  const keysMatter = options.onExcessProperty === "error"
  return (input) => {
    if (keysMatter ? declaresEvery(input, names) : typeof input === "object" && input !== null) {
      const decoded = fast(input)
      if (Exit.isExit(decoded) && Exit.isSuccess(decoded)) return decoded
    }
    return declared(input)
  }
}
