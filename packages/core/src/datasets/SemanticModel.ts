/**
 * The semantic model of a dataset (decision 0013): the dimensions and measures a
 * query may name, and the row-level security policies that bind rows to
 * the principal. Queries never reach the data except through a model, so
 * no member name, column or value a client sends becomes SQL text: members
 * are looked up here, columns are quoted by the dialect, values are bound.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as MeasureExpression from "./MeasureExpression.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/**
 * A member's name: a plain identifier of at most 63 characters, so it is a
 * valid result column name in every dialect (BigQuery allows no more).
 */
export const MemberName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { message: "Expected an identifier: letters, digits and _, not starting with a digit, at most 63 characters" })
)

/** A column of the dataset's table, as the engine names it (quoted by the dialect, never spliced). */
export const ColumnName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxCodePoints(128),
  Schema.isPattern(/^[^\u0000]*$/, { message: "Expected no NUL character" })
)

/** What a dimension holds. */
export const DimensionType = Schema.Literals(["string", "number", "boolean", "time"])
/** What a dimension holds. */
export type DimensionType = typeof DimensionType.Type

/** A dimension: a column to group and filter by. */
export const Dimension = Schema.Struct({
  name: MemberName,
  type: DimensionType,
  column: Schema.optionalKey(ColumnName.annotate({ description: "The column it reads; its name when omitted" })),
  title: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(200)))
})
/** A dimension. */
export type Dimension = typeof Dimension.Type

/** How a measure aggregates its column. */
export const Aggregation = Schema.Literals(["count", "count_distinct", "sum", "avg", "min", "max"])
/** How a measure aggregates. */
export type Aggregation = typeof Aggregation.Type

/** Decimal places a format shows: 0 to 10. */
const Decimals = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(10))

/**
 * How a measure's values are displayed (decision 0013, "Exact numbers and
 * display formats"): an amount of money in an ISO 4217 currency, a
 * percentage (the value 0.125 shows as 12.5 %), or a plain number, each with
 * its decimal places. Values themselves are never rounded by it: it is shown
 * in the model and in a query answer's `columns`, for renderers to use.
 */
export const MeasureFormat = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("currency"),
    currency: Schema.String.check(Schema.isPattern(/^[A-Z]{3}$/, { message: "Expected an ISO 4217 currency code such as \"EUR\"" })),
    decimals: Schema.optionalKey(Decimals.annotate({ description: "The currency's own when omitted (2 for EUR, 0 for JPY)" }))
  }),
  Schema.Struct({ type: Schema.Literal("percent"), decimals: Schema.optionalKey(Decimals.annotate({ description: "0 when omitted" })) }),
  Schema.Struct({ type: Schema.Literal("number"), decimals: Schema.optionalKey(Decimals.annotate({ description: "As many as the value has when omitted" })) })
]).annotate({ description: "How the measure's values are displayed; the values themselves are not rounded" })
/** How a measure's values are displayed. */
export type MeasureFormat = typeof MeasureFormat.Type

/**
 * A measure: an aggregation of a column (`count` may omit it: it counts
 * rows), or an `expression` over other measures with + - * / and numbers
 * (`revenue / orders`; division by zero gives null); optionally the
 * `format` its values are displayed in.
 */
export const Measure = Schema.Struct({
  name: MemberName,
  aggregation: Schema.optionalKey(Aggregation),
  column: Schema.optionalKey(ColumnName),
  expression: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(500))),
  title: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(200))),
  format: Schema.optionalKey(MeasureFormat)
})
/** A measure. */
export type Measure = typeof Measure.Type

/** A value in a policy's filter: a literal, or an attribute of the principal read at query time. */
export const PolicyValue = Schema.Union([
  Schema.String,
  Schema.Finite,
  Schema.Boolean,
  Schema.Struct({ attribute: Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(100)) })
])
/** A value in a policy's filter. */
export type PolicyValue = typeof PolicyValue.Type

/** A value in a query's filter. */
export const FilterValue = Schema.Union([Schema.String.check(Schema.isMaxCodePoints(1000)), Schema.Finite, Schema.Boolean])
/** A value in a query's filter. */
export type FilterValue = typeof FilterValue.Type

/** The operators of a filter condition. */
export const FilterOperator = Schema.Literals([
  "equals",
  "not_equals",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "set",
  "not_set",
  "in_date_range",
  "not_in_date_range",
  "before_date",
  "after_date"
])
/** A filter operator. */
export type FilterOperator = typeof FilterOperator.Type

/** A condition on one member. */
export interface Condition<V> {
  readonly member: string
  readonly operator: FilterOperator
  readonly values?: ReadonlyArray<V>
}

/** A filter: a condition, or conditions joined by `and` / `or`, nested. */
export type Filter<V> = Condition<V> | { readonly and: ReadonlyArray<Filter<V>> } | { readonly or: ReadonlyArray<Filter<V>> }

/**
 * The most `and` / `or` groups a filter nests, one in another (decision
 * 0013): deeper filters are refused. Decoding a filter recurses once per
 * group, so a bound keeps every reader of filters (the decoder, the model's
 * checks, the SQL compiler) within a small stack; the edge refuses JSON
 * nested past its own bound before any decoding starts.
 */
export const maxFilterNesting = 16

/**
 * How many `and` / `or` groups deep `filter` nests (0 for a condition),
 * counted without recursion, on a decoded filter or on any JSON value
 * (an object with an array `and` or `or` is a group); counting stops one
 * past `maxFilterNesting`.
 */
export const nestingOf = (filter: unknown): number => {
  let deepest = 0
  const pending: Array<readonly [unknown, number]> = [[filter, 0]]
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!
    if (typeof value !== "object" || value === null) continue
    const group = "and" in value ? value.and : "or" in value ? value.or : undefined
    if (!Array.isArray(group)) continue
    if (depth + 1 > deepest) deepest = depth + 1
    if (deepest > maxFilterNesting) return deepest
    for (const item of group) pending.push([item, depth + 1])
  }
  return deepest
}

/** What a filter nested too deep is told. */
export const tooDeepMessage = `Expected a filter nesting at most ${maxFilterNesting} and/or groups, one in another`

/**
 * The filter schema over a value schema: recursive, at most 100 items per
 * group and `maxFilterNesting` groups deep.
 */
export const makeFilter = <V extends Schema.Top>(value: V): Schema.Codec<Filter<V["Type"]>, Filter<V["Encoded"]>> => {
  const filter: Schema.Codec<Filter<V["Type"]>, Filter<V["Encoded"]>> = Schema.Union([
    Schema.Struct({
      member: Schema.String.check(Schema.isMaxCodePoints(100)),
      operator: FilterOperator,
      values: Schema.optionalKey(Schema.Array(value).check(Schema.isMaxLength(1000)))
    }),
    Schema.Struct({ and: Schema.Array(Schema.suspend(() => filter)).check(Schema.isMaxLength(100)) }),
    Schema.Struct({ or: Schema.Array(Schema.suspend(() => filter)).check(Schema.isMaxLength(100)) })
  ]).annotate({
    description: `A condition on a member, or conditions joined by \`and\` / \`or\`, nested at most ${maxFilterNesting} groups deep`
  }).check(
    // One schema, the recursion's own (one definition in JSON Schema); each group is counted again, at most 16 deep.
    Schema.makeFilter((f) => nestingOf(f) <= maxFilterNesting || tooDeepMessage)
  ) as any
  return filter
}

/**
 * A row-level security policy: for the principals it applies to (holding one
 * of `roles`, a service role or an executive role's name; everyone when
 * omitted), the rows it lets them see: all of them, or those its `filter`
 * holds for, with `{ "attribute": "region" }` values read from the principal.
 */
export const RowPolicy = Schema.Struct({
  roles: Schema.optionalKey(Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(200))).check(Schema.isMaxLength(100))),
  filter: Schema.optionalKey(makeFilter(PolicyValue)),
  all_rows: Schema.optionalKey(Schema.Boolean)
})
/** A row-level security policy. */
export type RowPolicy = typeof RowPolicy.Type

/**
 * A dataset's semantic model. With row-level security policies, a principal
 * sees the rows of the policies that apply to them (their union), and none
 * when none applies; without any, every row.
 */
export const Model = Schema.Struct({
  dimensions: Schema.Array(Dimension).check(Schema.isMaxLength(500)),
  measures: Schema.Array(Measure).check(Schema.isMaxLength(500)),
  row_level_security: Schema.optionalKey(Schema.Array(RowPolicy).check(Schema.isMaxLength(100)))
})
/** A dataset's semantic model. */
export type Model = typeof Model.Type

/**
 * A member of the model that reads a column the rows lack, or a sum or
 * average of a column that is not numeric (decision 0013, "Recovering from
 * a file that does not fit"). `message` says it in words.
 */
export interface ColumnMismatch {
  readonly member: string
  readonly kind: "dimension" | "measure"
  readonly column: string
  readonly problem: "missing" | "not-numeric"
  readonly message: string
}

/**
 * The model is not consistent; `detail` says where. Checked against a
 * file's columns, every mismatch is listed, with the columns the file has.
 */
export class ModelInvalid extends TaggedFailure("ModelInvalid")<{
  readonly detail: string
  readonly mismatches?: ReadonlyArray<ColumnMismatch>
  readonly fileColumns?: ReadonlyArray<string>
}> {
  readonly code = "dataset/model-invalid" as const
}

/** A checked model, indexed for compiling queries. */
export interface CheckedModel {
  readonly model: Model
  readonly dimensions: ReadonlyMap<string, Dimension>
  readonly measures: ReadonlyMap<string, Measure>
  /** Each derived measure's parsed expression. */
  readonly expressions: ReadonlyMap<string, MeasureExpression.Expression>
}

/**
 * Checks what the schema cannot: names unique across members, each measure
 * either an aggregation (with a column unless it counts rows) or an
 * expression over other measures without cycles, and policies naming
 * dimensions of the model.
 */
export const check = (model: Model): CheckedModel | ModelInvalid => {
  const dimensions = new Map<string, Dimension>()
  const measures = new Map<string, Measure>()
  for (const member of [...model.dimensions, ...model.measures]) {
    if (dimensions.has(member.name) || measures.has(member.name)) {
      return new ModelInvalid({ detail: `The member name "${member.name}" is used twice` })
    }
    if ("type" in member) dimensions.set(member.name, member)
    else measures.set(member.name, member)
  }
  const expressions = new Map<string, MeasureExpression.Expression>()
  for (const measure of model.measures) {
    const where = `Measure "${measure.name}"`
    if ((measure.aggregation === undefined) === (measure.expression === undefined)) {
      return new ModelInvalid({ detail: `${where} needs either an aggregation or an expression` })
    }
    if (measure.expression !== undefined) {
      if (measure.column !== undefined) return new ModelInvalid({ detail: `${where}: an expression has no column` })
      const parsed = MeasureExpression.parse(measure.expression)
      if (parsed instanceof MeasureExpression.ExpressionInvalid) return new ModelInvalid({ detail: `${where}: ${parsed.detail}` })
      for (const name of MeasureExpression.references(parsed)) {
        if (!measures.has(name)) return new ModelInvalid({ detail: `${where} refers to "${name}", which is no measure of the model` })
      }
      expressions.set(measure.name, parsed)
    } else if (measure.column === undefined && measure.aggregation !== "count") {
      return new ModelInvalid({ detail: `${where} needs the column it aggregates` })
    }
    if (measure.format?.type === "currency" && !currencies.has(measure.format.currency)) {
      return new ModelInvalid({ detail: `${where}: "${measure.format.currency}" is no ISO 4217 currency` })
    }
  }
  const cycle = findCycle(expressions)
  if (cycle !== undefined) return new ModelInvalid({ detail: `Measures refer to each other in a cycle: ${cycle.join(" -> ")}` })
  for (const [index, policy] of (model.row_level_security ?? []).entries()) {
    if ((policy.all_rows === true) === (policy.filter !== undefined)) {
      return new ModelInvalid({ detail: `Row-level security policy ${index + 1} needs either all_rows: true or a filter` })
    }
    const unknown = policy.filter === undefined ? undefined : conditionsOf(policy.filter).find((c) => !dimensions.has(c.member))
    if (unknown !== undefined) {
      return new ModelInvalid({ detail: `Row-level security policy ${index + 1} filters on "${unknown.member}", which is no dimension of the model` })
    }
  }
  return { model, dimensions, measures, expressions }
}

/** The ISO 4217 currencies the runtime knows (the renderers format with `Intl`). */
const currencies: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"))

/** Every condition of a filter, depth first. */
export const conditionsOf = <V>(filter: Filter<V>): ReadonlyArray<Condition<V>> =>
  "and" in filter ? filter.and.flatMap(conditionsOf) : "or" in filter ? filter.or.flatMap(conditionsOf) : [filter]

/**
 * How a measure's total over a table's rows is had (decision 0015,
 * "Totals"): `sum` when the rows' values add up to the measure over them
 * all (sums and counts, and sums, differences and multiples of those:
 * `revenue - cost`, `revenue / 1000`); `min` and `max` as the least and
 * greatest of the rows'; `whole` when only the measure over the whole
 * answers (averages, distinct counts, ratios such as `revenue / orders`):
 * adding its rows' values would be wrong.
 */
export type Totalling = "sum" | "min" | "max" | "whole"

/** How the total of the measure `name` of `model` is had; `whole` for a name the model lacks. */
export const totallingOf = (model: Model, name: string): Totalling => {
  // the measures being looked into (a checked model has no cycle; this keeps an unchecked one finite)
  const open = new Set<string>()
  const of = (name: string): Totalling => {
    const measure = model.measures.find((m) => m.name === name)
    if (measure === undefined || open.has(name)) return "whole"
    if (measure.expression === undefined) {
      return measure.aggregation === "sum" || measure.aggregation === "count" ? "sum" : measure.aggregation === "min" ? "min" : measure.aggregation === "max" ? "max" : "whole"
    }
    const parsed = MeasureExpression.parse(measure.expression)
    open.add(name)
    const summable = !(parsed instanceof MeasureExpression.ExpressionInvalid) && additive(parsed)
    open.delete(name)
    return summable ? "sum" : "whole"
  }
  // Whether the expression's total is the sum of its values: linear in summable measures, without a constant term.
  const additive = (e: MeasureExpression.Expression): boolean => {
    switch (e._tag) {
      case "Number":
        return false
      case "Measure":
        return of(e.name) === "sum"
      case "Negate":
        return additive(e.operand)
      case "Binary":
        switch (e.operator) {
          case "+":
          case "-":
            return additive(e.left) && additive(e.right)
          case "*":
            return (e.left._tag === "Number" && additive(e.right)) || (e.right._tag === "Number" && additive(e.left))
          case "/":
            return e.right._tag === "Number" && e.right.value !== 0 && additive(e.left)
        }
    }
  }
  return of(name)
}

/** A cycle among derived measures, as the names along it, if any. */
const findCycle = (expressions: ReadonlyMap<string, MeasureExpression.Expression>): ReadonlyArray<string> | undefined => {
  const done = new Set<string>()
  const visit = (name: string, path: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name]
    if (done.has(name)) return undefined
    const expression = expressions.get(name)
    if (expression !== undefined) {
      for (const next of MeasureExpression.references(expression)) {
        const found = visit(next, [...path, name])
        if (found !== undefined) return found
      }
    }
    done.add(name)
    return undefined
  }
  for (const name of expressions.keys()) {
    const found = visit(name, [])
    if (found !== undefined) return found
  }
  return undefined
}

/** A member name made from a column's: lower-case, `_` for anything else, unique among `taken`. */
const memberNameOf = (column: string, taken: Set<string>): string => {
  let base = column.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 50) || "column"
  if (/^[0-9]/.test(base)) base = `_${base}`
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
  taken.add(name)
  return name
}

/**
 * A first model for a table's columns, to describe further: every column a
 * dimension of the type it suggests, a row count, and a sum of each numeric
 * column.
 */
export const suggest = (columns: ReadonlyArray<{ readonly name: string; readonly type: DimensionType }>): Model => {
  const taken = new Set<string>(["count"])
  const dimensions = columns.map((c) => {
    const name = memberNameOf(c.name, taken)
    return name === c.name ? { name, type: c.type } : { name, type: c.type, column: c.name }
  })
  const sums = columns.filter((c) => c.type === "number").map((c) => ({
    name: memberNameOf(`total_${c.name}`, taken),
    aggregation: "sum" as const,
    column: c.name
  }))
  return { dimensions, measures: [{ name: "count", aggregation: "count" }, ...sums] }
}

/**
 * Every mismatch between a model and the columns its rows have: a column a
 * member reads that does not exist, a sum or average of a column that is
 * not numeric. (Before any rows are loaded there are no columns to check
 * against.)
 */
export const columnMismatches = (
  model: Model,
  columns: ReadonlyArray<{ readonly name: string; readonly type: DimensionType }>
): ReadonlyArray<ColumnMismatch> => {
  if (columns.length === 0) return []
  const types = new Map(columns.map((c) => [c.name, c.type]))
  const found: Array<ColumnMismatch> = []
  for (const d of model.dimensions) {
    const column = d.column ?? d.name
    if (!types.has(column)) {
      found.push({ member: d.name, kind: "dimension", column, problem: "missing", message: `Dimension "${d.name}" reads column "${column}", which the rows do not have` })
    }
  }
  for (const m of model.measures) {
    if (m.column === undefined) continue
    const type = types.get(m.column)
    if (type === undefined) {
      found.push({ member: m.name, kind: "measure", column: m.column, problem: "missing", message: `Measure "${m.name}" reads column "${m.column}", which the rows do not have` })
    } else if ((m.aggregation === "sum" || m.aggregation === "avg") && type !== "number") {
      found.push({ member: m.name, kind: "measure", column: m.column, problem: "not-numeric", message: `Measure "${m.name}" takes the ${m.aggregation} of "${m.column}", a ${type} column` })
    }
  }
  return found
}

/**
 * Checks a model against the columns its rows have: every column it reads
 * exists, and sums and averages read numbers. The refusal lists every
 * mismatch and the columns there are; its detail says them all in words.
 */
export const checkColumns = (
  model: Model,
  columns: ReadonlyArray<{ readonly name: string; readonly type: DimensionType }>
): ModelInvalid | undefined => {
  const mismatches = columnMismatches(model, columns)
  if (mismatches.length === 0) return undefined
  const names = columns.map((c) => c.name)
  const detail = mismatches.length === 1
    ? mismatches[0]!.message
    : `${mismatches.length} members do not fit the columns: ${mismatches.map((m) => m.message).join("; ")}`
  return new ModelInvalid({ detail: `${detail}. The columns are ${names.map((n) => `"${n}"`).join(", ")}`, mismatches, fileColumns: names })
}

/**
 * The model suggested from a file's columns (`suggest`), keeping the
 * current model's row-level security policies: replacing the model must
 * not widen who sees which rows. A policy that filters on a dimension the
 * suggested model lacks cannot be kept, and is refused by name.
 */
export const suggestKeepingPolicies = (
  current: Model,
  columns: ReadonlyArray<{ readonly name: string; readonly type: DimensionType }>
): Model | ModelInvalid => {
  const suggested = suggest(columns)
  const policies = current.row_level_security ?? []
  const dimensions = new Set(suggested.dimensions.map((d) => d.name))
  for (const [index, policy] of policies.entries()) {
    const lost = policy.filter === undefined ? undefined : conditionsOf(policy.filter).find((c) => !dimensions.has(c.member))
    if (lost !== undefined) {
      return new ModelInvalid({
        detail: `Row-level security policy ${index + 1} filters on "${lost.member}", which the file's columns do not give; the model was not replaced and no row was changed. Change or remove the policy first`,
        fileColumns: columns.map((c) => c.name)
      })
    }
  }
  return policies.length === 0 ? suggested : { ...suggested, row_level_security: policies }
}
