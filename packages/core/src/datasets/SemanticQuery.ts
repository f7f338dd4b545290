/**
 * Semantic queries (decision 0013): what a client asks of a dataset, in the
 * model's terms, and the plan it becomes once checked against the model and
 * the principal's row-level security. The plan names no SQL: the compiler
 * renders it for a dialect.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as DateRange from "./DateRange.ts"
import type * as MeasureExpression from "./MeasureExpression.ts"
import {
  type Aggregation,
  type CheckedModel,
  type Condition,
  type DimensionType,
  type Filter,
  FilterValue,
  makeFilter,
  type MeasureFormat,
  MemberName,
  type PolicyValue
} from "./SemanticModel.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/** Rows a query returns when it names no limit. */
export const defaultLimit = 10_000
/** The most rows a query may ask for. */
export const maxLimit = 50_000

/** A time dimension of a query: grouped by a granularity, filtered by a date range, or both. */
export const TimeDimension = Schema.Struct({
  dimension: MemberName,
  granularity: Schema.optionalKey(Schema.Literals(DateRange.granularities)),
  date_range: Schema.optionalKey(
    Schema.Union([Schema.String.check(Schema.isMaxCodePoints(100)), Schema.Tuple([Schema.String, Schema.String])])
  )
})

/** An ordering: a selected member (or a time dimension's column, `created_at__month`) and a direction. */
export const Order = Schema.Struct({
  member: Schema.String.check(Schema.isMaxCodePoints(100)),
  direction: Schema.optionalKey(Schema.Literals(["asc", "desc"]))
})

/** A semantic query. */
export const Query = Schema.Struct({
  measures: Schema.optionalKey(Schema.Array(MemberName).check(Schema.isMaxLength(50))),
  dimensions: Schema.optionalKey(Schema.Array(MemberName).check(Schema.isMaxLength(50))),
  time_dimensions: Schema.optionalKey(Schema.Array(TimeDimension).check(Schema.isMaxLength(10))),
  filters: Schema.optionalKey(Schema.Array(makeFilter(FilterValue)).check(Schema.isMaxLength(100))),
  order: Schema.optionalKey(Schema.Array(Order).check(Schema.isMaxLength(50))),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxLimit })))
})
/** A semantic query. */
export type Query = typeof Query.Type

/** The query does not fit the model; `member` names the member at fault, when one is. */
export class QueryInvalid extends TaggedFailure("QueryInvalid")<{
  readonly detail: string
  readonly member?: string | undefined
}> {
  readonly code = "query/invalid" as const
}

/** Who is asking, as row-level security sees them. */
export interface SecurityContext {
  /** Service roles and the names of the executive roles the principal holds now. */
  readonly roles: ReadonlyArray<string>
  /** Attributes policies read (`region`…); `user_id` and `email` among them. */
  readonly attributes: Readonly<Record<string, string | number | boolean | ReadonlyArray<string | number | boolean>>>
  /** The service itself (alerts, set by tenant admins, watch every row): no policy applies. Never set for a person. */
  readonly service?: true | undefined
  /**
   * At most the rows this other principal sees: a link or an embed made by
   * a delegate shows its viewer no more than its maker sees now (decision 0014).
   */
  readonly within?: SecurityContext | undefined
}

/** What a measure computes: an aggregation, or arithmetic over aggregations. */
export type MeasureSql =
  | { readonly _tag: "Aggregate"; readonly aggregation: Aggregation; readonly column: string | undefined }
  | { readonly _tag: "Number"; readonly value: number }
  | { readonly _tag: "Negate"; readonly operand: MeasureSql }
  | { readonly _tag: "Binary"; readonly operator: "+" | "-" | "*" | "/"; readonly left: MeasureSql; readonly right: MeasureSql }

/** A value bound into the SQL, with the type it is compared as. */
export type BoundValue =
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "number"; readonly value: number }
  | { readonly type: "boolean"; readonly value: boolean }
  | { readonly type: "time"; readonly value: Date }

/** What a condition compares: a column (in WHERE) or a measure (in HAVING). */
export type Target =
  | { readonly _tag: "Column"; readonly column: string; readonly type: DimensionType }
  | { readonly _tag: "Measure"; readonly measure: MeasureSql }

/** A checked filter, values typed, date ranges resolved. */
export type PlanFilter =
  | { readonly _tag: "And"; readonly items: ReadonlyArray<PlanFilter> }
  | { readonly _tag: "Or"; readonly items: ReadonlyArray<PlanFilter> }
  | { readonly _tag: "Condition"; readonly target: Target; readonly operator: Condition<unknown>["operator"]; readonly values: ReadonlyArray<BoundValue> }
  /** No row: a policy read an attribute the principal lacks, or no policy applies. */
  | { readonly _tag: "None" }

/** A result column. */
export interface Column {
  readonly name: string
  readonly member: string
  readonly kind: "dimension" | "time_dimension" | "measure"
  readonly type: DimensionType
  readonly granularity?: DateRange.Granularity
  /** A measure's display format, as its model declares it. */
  readonly format?: MeasureFormat
  /** What a person reads for it: the member's title in the model, else its name in words (`titleOf`); a time column adds its granularity ("Order date: Month"). */
  readonly title?: string
}

/** A member's title: the model's, else its name in words (`ordered_at` → "Ordered at"). */
export const titleOf = (member: { readonly name: string; readonly title?: string | undefined }): string => {
  if (member.title !== undefined) return member.title
  const words = member.name.replace(/_+/g, " ").trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A checked query, ready to compile. */
export interface Plan {
  readonly dimensions: ReadonlyArray<{ readonly alias: string; readonly column: string; readonly granularity?: DateRange.Granularity | undefined }>
  readonly measures: ReadonlyArray<{ readonly alias: string; readonly measure: MeasureSql }>
  readonly where: PlanFilter | undefined
  readonly having: PlanFilter | undefined
  readonly order: ReadonlyArray<{ readonly alias: string; readonly direction: "asc" | "desc" }>
  /** At most this many rows; `undefined`: every row (a streamed export). */
  readonly limit: number | undefined
  readonly columns: ReadonlyArray<Column>
  /** Set when the caller's row-level security leaves them no row at all, whatever the data: nothing is visible to them. */
  readonly hidden?: true
}

/** How a query is planned: by default, a query naming no limit gets `defaultLimit` (a display's bound); `everyRow` leaves it unbounded (files streamed from the engine). */
export interface PlanOptions {
  readonly everyRow?: boolean | undefined
}

const invalid = (detail: string, member?: string) => new QueryInvalid({ detail, member })

/** Fails out of `plan` with a QueryInvalid (caught there). */
class Refusal {
  readonly error: QueryInvalid
  constructor(error: QueryInvalid) {
    this.error = error
  }
}
const refuse = (detail: string, member?: string): never => {
  throw new Refusal(invalid(detail, member))
}

const stringOperators = new Set(["contains", "not_contains", "starts_with", "ends_with"])
const orderedOperators = new Set(["gt", "gte", "lt", "lte"])
const dateOperators = new Set(["in_date_range", "not_in_date_range", "before_date", "after_date"])

/**
 * Checks a query against a model and plans it for a principal: members
 * exist, values fit their types and operators, measures are filtered only
 * apart from dimensions (they go to HAVING), ordered members are selected,
 * and the row-level security policies that apply are folded into WHERE.
 */
export const plan = (model: CheckedModel, query: Query, security: SecurityContext, now: Date, options: PlanOptions = {}): Plan | QueryInvalid => {
  try {
    return planOrThrow(model, query, security, now, options)
  } catch (error) {
    if (error instanceof Refusal) return error.error
    throw error
  }
}

const planOrThrow = (model: CheckedModel, query: Query, security: SecurityContext, now: Date, options: PlanOptions): Plan => {
  const columns: Array<Column> = []
  const dimensions: Array<Plan["dimensions"][number]> = []
  const where: Array<PlanFilter> = []
  const taken = new Set<string>()
  const select = (column: Column) => {
    if (taken.has(column.name)) refuse(`"${column.name}" is selected twice`, column.member)
    taken.add(column.name)
    columns.push(column)
  }
  const dimension = (name: string) =>
    model.dimensions.get(name) ??
      refuse(model.measures.has(name) ? `"${name}" is a measure, not a dimension` : `The model has no dimension "${name}"`, name)
  for (const name of query.dimensions ?? []) {
    const d = dimension(name)
    select({ name, member: name, kind: "dimension", type: d.type, title: titleOf(d) })
    dimensions.push({ alias: name, column: d.column ?? d.name })
  }
  for (const time of query.time_dimensions ?? []) {
    const d = dimension(time.dimension)
    if (d.type !== "time") refuse(`"${d.name}" is a ${d.type} dimension, not a time dimension`, d.name)
    const column = d.column ?? d.name
    if (time.granularity !== undefined) {
      const alias = `${d.name}__${time.granularity}`
      const title = `${titleOf(d)}: ${time.granularity.charAt(0).toUpperCase()}${time.granularity.slice(1)}`
      select({ name: alias, member: d.name, kind: "time_dimension", type: "time", granularity: time.granularity, title })
      dimensions.push({ alias, column, granularity: time.granularity })
    }
    if (time.date_range !== undefined) {
      const range = DateRange.resolve(time.date_range, now)
      if (typeof range === "string") refuse(`date_range of "${d.name}": ${range}`, d.name)
      else {
        where.push({
          _tag: "Condition",
          target: { _tag: "Column", column, type: "time" },
          operator: "in_date_range",
          values: [{ type: "time", value: range.start }, { type: "time", value: range.end }]
        })
      }
    }
  }
  const measures = (query.measures ?? []).map((name) => {
    if (!model.measures.has(name)) {
      refuse(model.dimensions.has(name) ? `"${name}" is a dimension, not a measure` : `The model has no measure "${name}"`, name)
    }
    const measure = model.measures.get(name)!
    const title = titleOf(measure)
    select(measure.format === undefined ? { name, member: name, kind: "measure", type: "number", title } : { name, member: name, kind: "measure", type: "number", format: measure.format, title })
    return { alias: name, measure: measureSql(model, name) }
  })
  if (columns.length === 0) refuse("A query selects at least one measure, dimension or time dimension with a granularity")

  const having: Array<PlanFilter> = []
  for (const filter of query.filters ?? []) {
    const planned = planFilter(model, filter, (value, type, member) => [queryValue(value, type, member)])
    if (planned.onMeasures) having.push(planned.filter)
    else where.push(planned.filter)
  }
  const security_ = rowLevelSecurity(model, security)
  if (security_ !== undefined) where.unshift(security_)
  const hidden = security_ !== undefined && matchesNothing(security_)

  const order = (query.order ?? defaultOrder(columns)).map((o) => {
    if (!taken.has(o.member)) refuse(`Order by "${o.member}": only selected members can order the result`, o.member)
    return { alias: o.member, direction: o.direction ?? "asc" }
  })
  return {
    dimensions,
    measures,
    where: joined("And", where),
    having: joined("And", having),
    order,
    limit: query.limit ?? (options.everyRow === true ? undefined : defaultLimit),
    ...(hidden ? { hidden: true as const } : {}),
    columns
  }
}

/** Cube's default: by the first time dimension, else the first measure descending, else the first dimension. */
const defaultOrder = (columns: ReadonlyArray<Column>): ReadonlyArray<typeof Order.Type> => {
  const time = columns.find((c) => c.kind === "time_dimension")
  if (time !== undefined) return [{ member: time.name, direction: "asc" }]
  const measure = columns.find((c) => c.kind === "measure")
  if (measure !== undefined) return [{ member: measure.name, direction: "desc" }]
  return [{ member: columns[0]!.name, direction: "asc" }]
}

const joined = (tag: "And" | "Or", items: ReadonlyArray<PlanFilter>): PlanFilter | undefined =>
  items.length === 0 ? undefined : items.length === 1 ? items[0] : { _tag: tag, items }

/** A measure's computation, derived measures expanded into their aggregations. */
const measureSql = (model: CheckedModel, name: string): MeasureSql => {
  const expression = model.expressions.get(name)
  if (expression === undefined) {
    const measure = model.measures.get(name)!
    return { _tag: "Aggregate", aggregation: measure.aggregation!, column: measure.column }
  }
  const expand = (e: MeasureExpression.Expression): MeasureSql => {
    switch (e._tag) {
      case "Number":
        return e
      case "Measure":
        return measureSql(model, e.name)
      case "Negate":
        return { _tag: "Negate", operand: expand(e.operand) }
      case "Binary":
        return { _tag: "Binary", operator: e.operator, left: expand(e.left), right: expand(e.right) }
    }
  }
  return expand(expression)
}

/** A query's value as the member's type needs it. */
const queryValue = (value: PolicyValue, type: DimensionType, member: string): BoundValue => {
  const expected = (what: string) => refuse(`Filter on "${member}": expected ${what}, got ${JSON.stringify(value)}`, member)
  switch (type) {
    case "string":
      return typeof value === "string" ? { type, value } : expected("a string")
    case "number":
      return typeof value === "number" ? { type, value } : expected("a number")
    case "boolean":
      return typeof value === "boolean" ? { type, value } : expected("true or false")
    case "time": {
      const parsed = typeof value === "string" ? DateRange.parseInstant(value) : undefined
      return parsed === undefined ? expected("a date (2024-01-31) or an ISO 8601 timestamp") : { type, value: parsed.at }
    }
  }
}

/** How many values each operator takes: exactly, or at least. */
const arity = (operator: string): { readonly exactly?: number; readonly atLeast?: number } =>
  operator === "set" || operator === "not_set"
    ? { exactly: 0 }
    : operator === "in_date_range" || operator === "not_in_date_range"
    ? { exactly: 2 }
    : operator === "equals" || operator === "not_equals"
    ? { atLeast: 1 }
    : { exactly: 1 }

/**
 * Plans a filter; `bind` turns each of its values into bound values (a
 * policy's attribute may give several, or none). Whether it filters
 * measures (HAVING) or dimensions (WHERE) is the same throughout.
 */
const planFilter = <V>(
  model: CheckedModel,
  filter: Filter<V>,
  bind: (value: V, type: DimensionType, member: string) => ReadonlyArray<BoundValue>
): { readonly filter: PlanFilter; readonly onMeasures: boolean } => {
  if ("and" in filter || "or" in filter) {
    const items = "and" in filter ? filter.and : filter.or
    if (items.length === 0) refuse("An and/or filter lists at least one filter")
    const planned = items.map((item) => planFilter(model, item, bind))
    const onMeasures = planned[0]!.onMeasures
    if (planned.some((p) => p.onMeasures !== onMeasures)) {
      refuse("A filter may not join measures and dimensions under one and/or: give them as separate filters")
    }
    return { filter: { _tag: "and" in filter ? "And" : "Or", items: planned.map((p) => p.filter) }, onMeasures }
  }
  const { member, operator } = filter
  const values = filter.values ?? []
  const dimension = model.dimensions.get(member)
  const measure = dimension === undefined && model.measures.has(member)
  if (dimension === undefined && !measure) refuse(`The model has no member "${member}"`, member)
  const type: DimensionType = dimension?.type ?? "number"
  const { exactly, atLeast } = arity(operator)
  if (exactly !== undefined && values.length !== exactly) {
    refuse(`Filter on "${member}": ${operator} takes ${exactly === 0 ? "no values" : exactly === 1 ? "one value" : `${exactly} values`}`, member)
  }
  if (atLeast !== undefined && values.length < atLeast) refuse(`Filter on "${member}": ${operator} takes at least one value`, member)
  if (stringOperators.has(operator) && type !== "string") refuse(`Filter on "${member}": ${operator} applies to string dimensions`, member)
  if (dateOperators.has(operator) && type !== "time") refuse(`Filter on "${member}": ${operator} applies to time dimensions`, member)
  if (orderedOperators.has(operator) && type !== "number" && type !== "time") {
    refuse(`Filter on "${member}": ${operator} applies to numbers and times`, member)
  }
  const bound = values.flatMap((value) => bind(value, type, member))
  let planned: PlanFilter = {
    _tag: "Condition",
    target: dimension !== undefined
      ? { _tag: "Column", column: dimension.column ?? dimension.name, type }
      : { _tag: "Measure", measure: measureSql(model, member) },
    operator,
    values: bound
  }
  // A range's end date is included whole: compare with the start of the next day.
  if ((operator === "in_date_range" || operator === "not_in_date_range") && values.length === 2) {
    const to = DateRange.parseInstant(values[1] as string)
    if (to?.wholeDay === true) {
      planned = { ...planned, values: [bound[0]!, { type: "time", value: new Date(to.at.getTime() + 86_400_000) }] }
    }
  }
  // A policy value that named a missing attribute leaves nothing to compare with: no row.
  if (bound.length === 0 && values.length > 0) planned = { _tag: "None" }
  return { filter: planned, onMeasures: measure }
}

/** Whether a filter can match no row whatever the data (None, an Or of such, an And holding one). */
const matchesNothing = (filter: PlanFilter): boolean =>
  filter._tag === "None" ||
  (filter._tag === "Or" && filter.items.every(matchesNothing)) ||
  (filter._tag === "And" && filter.items.some(matchesNothing))

/**
 * The rows a principal may see under the model's policies, as a filter:
 * `undefined` for all rows (no policies, or one granting all rows), the
 * union of the filters of the policies that apply, or None when none does;
 * and never more than the rows of the context it is `within`.
 */
const rowLevelSecurity = (model: CheckedModel, security: SecurityContext): PlanFilter | undefined => {
  const own = rowsOf(model, security)
  const cap = security.within === undefined ? undefined : rowLevelSecurity(model, security.within)
  return own === undefined ? cap : cap === undefined ? own : { _tag: "And", items: [own, cap] }
}

/** The rows one principal's own policies let them see (`rowLevelSecurity` without the cap). */
const rowsOf = (model: CheckedModel, security: SecurityContext): PlanFilter | undefined => {
  const policies = model.model.row_level_security ?? []
  if (policies.length === 0 || security.service === true) return undefined
  const held = new Set(security.roles)
  const applying = policies.filter((p) => p.roles === undefined || p.roles.some((role) => held.has(role)))
  if (applying.some((p) => p.all_rows === true)) return undefined
  const filters = applying.map((p) =>
    planFilter(model, p.filter!, (value, type, member) => {
      if (typeof value !== "object") return [queryValue(value, type, member)]
      const attribute = security.attributes[value.attribute]
      if (attribute === undefined) return []
      return (Array.isArray(attribute) ? attribute : [attribute]).map((v) => queryValue(v, type, member))
    }).filter
  )
  return joined("Or", filters) ?? { _tag: "None" }
}
