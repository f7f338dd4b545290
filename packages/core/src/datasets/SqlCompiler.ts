/**
 * Compiles a planned semantic query to the SQL of a dialect. Member names
 * never reach the SQL: columns and aliases are quoted identifiers from the
 * model, and every value a client or a policy gives is a bound parameter.
 * The same text serves the dry-run endpoint and the SQL export format.
 *
 * @since 0.1.0
 */
import type { BoundValue, Column, MeasureSql, Plan, PlanFilter, Target } from "./SemanticQuery.ts"
import type { Dialect } from "./SqlDialect.ts"

/** Where the rows come from: a table (or view) of the engine, by its possibly schema-qualified name. */
export interface Source {
  readonly table: ReadonlyArray<string>
}

/** A parameter's value as engines bind it: times as `YYYY-MM-DD HH:MM:SS[.sss]` text in UTC. */
export type ParamValue = string | number | boolean

/** A compiled query. */
export interface Compiled {
  readonly sql: string
  readonly params: ReadonlyArray<ParamValue>
  /** The bound values with their types (for engines with typed binding). */
  readonly bound: ReadonlyArray<BoundValue>
  readonly columns: ReadonlyArray<Column>
  /** The plan's `hidden`: the caller's row-level security leaves them no row. */
  readonly hidden?: true
}

/** A time as engines bind it: UTC, without a zone, milliseconds only when there are some. */
export const timeText = (at: Date): string => {
  const iso = at.toISOString()
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`
  return at.getUTCMilliseconds() === 0 ? text : `${text}.${iso.slice(20, 23)}`
}

const paramValue = (bound: BoundValue): ParamValue => bound.type === "time" ? timeText(bound.value) : bound.value

/** Compiles a plan for a dialect, reading from `source`. */
export const compile = (plan: Plan, source: Source, dialect: Dialect): Compiled => {
  const bound: Array<BoundValue> = []
  const q = dialect.quote
  const bind = (value: BoundValue) => {
    bound.push(value)
    return dialect.placeholder(bound.length, value)
  }

  const measureSql = (m: MeasureSql): string => {
    switch (m._tag) {
      case "Aggregate": {
        const column = m.column === undefined ? undefined : q(m.column)
        switch (m.aggregation) {
          case "count":
            return column === undefined ? "COUNT(*)" : `COUNT(${column})`
          case "count_distinct":
            return `COUNT(DISTINCT ${column})`
          case "avg":
            return dialect.avgNeedsCast ? `AVG(CAST(${column} AS ${dialect.float}))` : `AVG(${column})`
          default:
            return `${m.aggregation.toUpperCase()}(${column})`
        }
      }
      case "Number":
        return String(m.value)
      case "Negate":
        return `-(${measureSql(m.operand)})`
      case "Binary":
        return m.operator === "/"
          ? `CAST(${measureSql(m.left)} AS ${dialect.float}) / NULLIF(${measureSql(m.right)}, 0)`
          : `(${measureSql(m.left)} ${m.operator} ${measureSql(m.right)})`
    }
  }

  const targetSql = (target: Target) => target._tag === "Column" ? q(target.column) : measureSql(target.measure)

  const filterSql = (filter: PlanFilter): string => {
    switch (filter._tag) {
      case "None":
        return "1 = 0"
      case "And":
      case "Or":
        return `(${filter.items.map(filterSql).join(filter._tag === "And" ? " AND " : " OR ")})`
      case "Condition":
        return conditionSql(targetSql(filter.target), filter.operator, filter.values)
    }
  }

  const lowered = (value: BoundValue): BoundValue => value.type === "string" ? { type: "string", value: value.value.toLowerCase() } : value
  const length = (value: BoundValue) => value.type === "string" ? [...value.value].length : 0

  const conditionSql = (target: string, operator: string, values: ReadonlyArray<BoundValue>): string => {
    const one = values[0]!
    const list = () => values.length === 1 ? ` = ${bind(one)}` : ` IN (${values.map(bind).join(", ")})`
    switch (operator) {
      case "equals":
        return `${target}${list()}`
      case "not_equals":
        return values.length === 1
          ? `(${target} <> ${bind(one)} OR ${target} IS NULL)`
          : `(${target} NOT IN (${values.map(bind).join(", ")}) OR ${target} IS NULL)`
      case "contains":
        return dialect.contains(dialect.lower(target), bind(lowered(one)))
      case "not_contains":
        return `(NOT (${dialect.contains(dialect.lower(target), bind(lowered(one)))}) OR ${target} IS NULL)`
      case "starts_with":
        return `${dialect.lower(dialect.left(target, length(one)))} = ${bind(lowered(one))}`
      case "ends_with":
        return `${dialect.lower(dialect.right(target, length(one)))} = ${bind(lowered(one))}`
      case "gt":
      case "after_date":
        return `${target} > ${bind(one)}`
      case "gte":
        return `${target} >= ${bind(one)}`
      case "lt":
      case "before_date":
        return `${target} < ${bind(one)}`
      case "lte":
        return `${target} <= ${bind(one)}`
      case "set":
        return `${target} IS NOT NULL`
      case "not_set":
        return `${target} IS NULL`
      case "in_date_range":
        return `(${target} >= ${bind(one)} AND ${target} < ${bind(values[1]!)})`
      case "not_in_date_range":
        return `(${target} < ${bind(one)} OR ${target} >= ${bind(values[1]!)})`
      default:
        throw new Error(`Unknown operator ${operator}`)
    }
  }

  // Rendered in the order the text reads, so positional placeholders (?) match the order of `bound`.
  const groupBy = plan.dimensions.map((d) => d.granularity === undefined ? q(d.column) : dialect.truncate(d.granularity, q(d.column)))
  const selected = [
    ...plan.dimensions.map((d, i) => `${groupBy[i]} AS ${q(d.alias)}`),
    ...plan.measures.map((m) => `${measureSql(m.measure)} AS ${q(m.alias)}`)
  ]
  const lines = [
    `SELECT ${dialect.top && plan.limit !== undefined ? `TOP (${plan.limit}) ` : ""}${selected.join(", ")}`,
    `FROM ${source.table.map(q).join(".")}`
  ]
  if (plan.where !== undefined) lines.push(`WHERE ${filterSql(plan.where)}`)
  if (groupBy.length > 0) lines.push(`GROUP BY ${groupBy.join(", ")}`)
  if (plan.having !== undefined) lines.push(`HAVING ${filterSql(plan.having)}`)
  if (plan.order.length > 0) lines.push(`ORDER BY ${plan.order.map((o) => `${q(o.alias)} ${o.direction.toUpperCase()}`).join(", ")}`)
  if (!dialect.top && plan.limit !== undefined) lines.push(`LIMIT ${plan.limit}`)
  return { sql: lines.join("\n"), params: bound.map(paramValue), bound, columns: plan.columns, ...(plan.hidden === true ? { hidden: true as const } : {}) }
}
