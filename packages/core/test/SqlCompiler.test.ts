/**
 * The semantic layer's compiler: golden SQL per dialect, validation that
 * names the member at fault, row-level security folded into WHERE, and the
 * SQLite text run by a real SQLite (Node's built-in) against rows whose
 * answer is computed here by hand. (PostgreSQL and DuckDB run their text in
 * their adapters' tests; MySQL, BigQuery, Snowflake, ClickHouse and SQL
 * Server have no engine on these machines: their goldens are read, not run.)
 */
import { DateRange, MeasureExpression, SemanticModel, SemanticQuery, SqlCompiler, SqlDialect } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { DatabaseSync } from "node:sqlite"

const model = SemanticModel.check({
  dimensions: [
    { name: "region", type: "string" },
    { name: "product", type: "string", column: "product name" },
    { name: "online", type: "boolean", column: "is_online" },
    { name: "quantity", type: "number" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" },
    { name: "avg_amount", aggregation: "avg", column: "amount" },
    { name: "customers", aggregation: "count_distinct", column: "customer" },
    { name: "revenue_per_order", expression: "revenue / orders" }
  ],
  row_level_security: [
    { roles: ["admin", "CFO"], all_rows: true },
    { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
  ]
}) as SemanticModel.CheckedModel

const now = new Date("2024-06-15T12:00:00Z")
const everything: SemanticQuery.SecurityContext = { roles: ["admin"], attributes: {} }

const planned = (query: SemanticQuery.Query, security = everything) => {
  const plan = SemanticQuery.plan(model, query, security, now)
  if (plan instanceof SemanticQuery.QueryInvalid) assert.fail(plan.detail)
  return plan as SemanticQuery.Plan
}

const refusal = (query: SemanticQuery.Query) => {
  const plan = SemanticQuery.plan(model, query, everything, now)
  assert.instanceOf(plan, SemanticQuery.QueryInvalid)
  return plan as SemanticQuery.QueryInvalid
}

const salesQuery: SemanticQuery.Query = {
  measures: ["revenue", "orders", "revenue_per_order"],
  dimensions: ["region"],
  time_dimensions: [{ dimension: "ordered_at", granularity: "month", date_range: ["2024-01-01", "2024-03-31"] }],
  filters: [
    { member: "region", operator: "equals", values: ["EU", "US"] },
    { or: [{ member: "product", operator: "contains", values: ["Pro"] }, { member: "online", operator: "equals", values: [true] }] },
    { member: "revenue", operator: "gt", values: [1000] }
  ],
  order: [{ member: "revenue", direction: "desc" }],
  limit: 100
}

const golden: Record<SqlDialect.DialectName, string> = {
  postgres: `SELECT "region" AS "region", date_trunc('month', "ordered_at") AS "ordered_at__month", SUM("amount") AS "revenue", COUNT(*) AS "orders", CAST(SUM("amount") AS double precision) / NULLIF(COUNT(*), 0) AS "revenue_per_order"
FROM "sales"
WHERE (("ordered_at" >= CAST($1 AS timestamp) AND "ordered_at" < CAST($2 AS timestamp)) AND "region" IN ($3, $4) AND (STRPOS(LOWER("product name"), $5) > 0 OR "is_online" = CAST($6 AS boolean)))
GROUP BY "region", date_trunc('month', "ordered_at")
HAVING SUM("amount") > CAST($7 AS double precision)
ORDER BY "revenue" DESC
LIMIT 100`,
  duckdb: `SELECT "region" AS "region", date_trunc('month', "ordered_at") AS "ordered_at__month", SUM("amount") AS "revenue", COUNT(*) AS "orders", CAST(SUM("amount") AS DOUBLE) / NULLIF(COUNT(*), 0) AS "revenue_per_order"
FROM "sales"
WHERE (("ordered_at" >= CAST($1 AS TIMESTAMP) AND "ordered_at" < CAST($2 AS TIMESTAMP)) AND "region" IN ($3, $4) AND (STRPOS(LOWER("product name"), $5) > 0 OR "is_online" = CAST($6 AS BOOLEAN)))
GROUP BY "region", date_trunc('month', "ordered_at")
HAVING SUM("amount") > CAST($7 AS DOUBLE)
ORDER BY "revenue" DESC
LIMIT 100`,
  mysql: `SELECT \`region\` AS \`region\`, CAST(DATE_FORMAT(\`ordered_at\`, '%Y-%m-01') AS DATETIME) AS \`ordered_at__month\`, SUM(\`amount\`) AS \`revenue\`, COUNT(*) AS \`orders\`, CAST(SUM(\`amount\`) AS DOUBLE) / NULLIF(COUNT(*), 0) AS \`revenue_per_order\`
FROM \`sales\`
WHERE ((\`ordered_at\` >= CAST(? AS DATETIME(3)) AND \`ordered_at\` < CAST(? AS DATETIME(3))) AND \`region\` IN (?, ?) AND (LOCATE(?, LOWER(\`product name\`)) > 0 OR \`is_online\` = ?))
GROUP BY \`region\`, CAST(DATE_FORMAT(\`ordered_at\`, '%Y-%m-01') AS DATETIME)
HAVING SUM(\`amount\`) > ?
ORDER BY \`revenue\` DESC
LIMIT 100`,
  sqlite: `SELECT "region" AS "region", strftime('%Y-%m-01 00:00:00', "ordered_at") AS "ordered_at__month", SUM("amount") AS "revenue", COUNT(*) AS "orders", CAST(SUM("amount") AS REAL) / NULLIF(COUNT(*), 0) AS "revenue_per_order"
FROM "sales"
WHERE (("ordered_at" >= ? AND "ordered_at" < ?) AND "region" IN (?, ?) AND (INSTR(LOWER("product name"), ?) > 0 OR "is_online" = ?))
GROUP BY "region", strftime('%Y-%m-01 00:00:00', "ordered_at")
HAVING SUM("amount") > ?
ORDER BY "revenue" DESC
LIMIT 100`,
  bigquery: `SELECT \`region\` AS \`region\`, TIMESTAMP_TRUNC(\`ordered_at\`, MONTH) AS \`ordered_at__month\`, SUM(\`amount\`) AS \`revenue\`, COUNT(*) AS \`orders\`, CAST(SUM(\`amount\`) AS FLOAT64) / NULLIF(COUNT(*), 0) AS \`revenue_per_order\`
FROM \`sales\`
WHERE ((\`ordered_at\` >= CAST(@p1 AS TIMESTAMP) AND \`ordered_at\` < CAST(@p2 AS TIMESTAMP)) AND \`region\` IN (@p3, @p4) AND (STRPOS(LOWER(\`product name\`), @p5) > 0 OR \`is_online\` = @p6))
GROUP BY \`region\`, TIMESTAMP_TRUNC(\`ordered_at\`, MONTH)
HAVING SUM(\`amount\`) > @p7
ORDER BY \`revenue\` DESC
LIMIT 100`,
  snowflake: `SELECT "region" AS "region", DATE_TRUNC('MONTH', "ordered_at") AS "ordered_at__month", SUM("amount") AS "revenue", COUNT(*) AS "orders", CAST(SUM("amount") AS FLOAT) / NULLIF(COUNT(*), 0) AS "revenue_per_order"
FROM "sales"
WHERE (("ordered_at" >= CAST(? AS TIMESTAMP_NTZ) AND "ordered_at" < CAST(? AS TIMESTAMP_NTZ)) AND "region" IN (?, ?) AND (POSITION(? IN LOWER("product name")) > 0 OR "is_online" = ?))
GROUP BY "region", DATE_TRUNC('MONTH', "ordered_at")
HAVING SUM("amount") > ?
ORDER BY "revenue" DESC
LIMIT 100`,
  clickhouse: `SELECT \`region\` AS \`region\`, toDateTime(dateTrunc('month', \`ordered_at\`)) AS \`ordered_at__month\`, SUM(\`amount\`) AS \`revenue\`, COUNT(*) AS \`orders\`, CAST(SUM(\`amount\`) AS Float64) / NULLIF(COUNT(*), 0) AS \`revenue_per_order\`
FROM \`sales\`
WHERE ((\`ordered_at\` >= {p1:DateTime64(3)} AND \`ordered_at\` < {p2:DateTime64(3)}) AND \`region\` IN ({p3:String}, {p4:String}) AND (positionUTF8(lowerUTF8(\`product name\`), {p5:String}) > 0 OR \`is_online\` = {p6:Bool}))
GROUP BY \`region\`, toDateTime(dateTrunc('month', \`ordered_at\`))
HAVING SUM(\`amount\`) > {p7:Float64}
ORDER BY \`revenue\` DESC
LIMIT 100`,
  tsql: `SELECT TOP (100) [region] AS [region], DATETRUNC(month, [ordered_at]) AS [ordered_at__month], SUM([amount]) AS [revenue], COUNT(*) AS [orders], CAST(SUM([amount]) AS FLOAT) / NULLIF(COUNT(*), 0) AS [revenue_per_order]
FROM [sales]
WHERE (([ordered_at] >= CAST(@p1 AS DATETIME2) AND [ordered_at] < CAST(@p2 AS DATETIME2)) AND [region] IN (@p3, @p4) AND (CHARINDEX(@p5, LOWER([product name])) > 0 OR [is_online] = @p6))
GROUP BY [region], DATETRUNC(month, [ordered_at])
HAVING SUM([amount]) > @p7
ORDER BY [revenue] DESC`
}

/** Each granularity's truncation of "t", per dialect (the part of the SQL that differs most). */
const truncations: Record<SqlDialect.DialectName, Record<DateRange.Granularity, string>> = {
  postgres: Object.fromEntries(DateRange.granularities.map((g) => [g, `date_trunc('${g}', "t")`])) as any,
  duckdb: Object.fromEntries(DateRange.granularities.map((g) => [g, `date_trunc('${g}', "t")`])) as any,
  mysql: {
    second: "CAST(DATE_FORMAT(`t`, '%Y-%m-%d %H:%i:%s') AS DATETIME)",
    minute: "CAST(DATE_FORMAT(`t`, '%Y-%m-%d %H:%i:00') AS DATETIME)",
    hour: "CAST(DATE_FORMAT(`t`, '%Y-%m-%d %H:00:00') AS DATETIME)",
    day: "CAST(DATE(`t`) AS DATETIME)",
    week: "CAST(DATE(`t`) - INTERVAL WEEKDAY(`t`) DAY AS DATETIME)",
    month: "CAST(DATE_FORMAT(`t`, '%Y-%m-01') AS DATETIME)",
    quarter: "CAST(MAKEDATE(YEAR(`t`), 1) + INTERVAL (QUARTER(`t`) - 1) QUARTER AS DATETIME)",
    year: "CAST(MAKEDATE(YEAR(`t`), 1) AS DATETIME)"
  },
  sqlite: {
    second: `strftime('%Y-%m-%d %H:%M:%S', "t")`,
    minute: `strftime('%Y-%m-%d %H:%M:00', "t")`,
    hour: `strftime('%Y-%m-%d %H:00:00', "t")`,
    day: `strftime('%Y-%m-%d 00:00:00', "t")`,
    week: `strftime('%Y-%m-%d 00:00:00', "t", '-6 days', 'weekday 1')`,
    month: `strftime('%Y-%m-01 00:00:00', "t")`,
    quarter: `printf('%s-%02d-01 00:00:00', strftime('%Y', "t"), ((CAST(strftime('%m', "t") AS INTEGER) - 1) / 3) * 3 + 1)`,
    year: `strftime('%Y-01-01 00:00:00', "t")`
  },
  bigquery: {
    second: "TIMESTAMP_TRUNC(`t`, SECOND)",
    minute: "TIMESTAMP_TRUNC(`t`, MINUTE)",
    hour: "TIMESTAMP_TRUNC(`t`, HOUR)",
    day: "TIMESTAMP_TRUNC(`t`, DAY)",
    week: "TIMESTAMP_TRUNC(`t`, ISOWEEK)",
    month: "TIMESTAMP_TRUNC(`t`, MONTH)",
    quarter: "TIMESTAMP_TRUNC(`t`, QUARTER)",
    year: "TIMESTAMP_TRUNC(`t`, YEAR)"
  },
  snowflake: Object.fromEntries(DateRange.granularities.map((g) => [g, `DATE_TRUNC('${g.toUpperCase()}', "t")`])) as any,
  clickhouse: {
    ...Object.fromEntries(DateRange.granularities.map((g) => [g, `toDateTime(dateTrunc('${g}', \`t\`))`])),
    week: "toDateTime(toMonday(`t`))"
  } as any,
  tsql: { ...Object.fromEntries(DateRange.granularities.map((g) => [g, `DATETRUNC(${g}, [t])`])), week: "DATETRUNC(iso_week, [t])" } as any
}

describe("SqlCompiler", () => {
  for (const name of SqlDialect.dialectNames) {
    it(`golden SQL: ${name}`, () => {
      const compiled = SqlCompiler.compile(planned(salesQuery), { table: ["sales"] }, SqlDialect.dialects[name])
      assert.strictEqual(compiled.sql, golden[name])
      // Values are bound, never spliced; the date range's inclusive end became the next midnight.
      assert.deepStrictEqual(compiled.params, ["2024-01-01 00:00:00", "2024-04-01 00:00:00", "EU", "US", "pro", true, 1000])
      assert.deepStrictEqual(compiled.columns.map((c) => [c.name, c.kind, c.type]), [
        ["region", "dimension", "string"],
        ["ordered_at__month", "time_dimension", "time"],
        ["revenue", "measure", "number"],
        ["orders", "measure", "number"],
        ["revenue_per_order", "measure", "number"]
      ])
    })

    it(`time truncation per granularity: ${name}`, () => {
      const dialect = SqlDialect.dialects[name]
      for (const granularity of DateRange.granularities) {
        assert.strictEqual(dialect.truncate(granularity, dialect.quote("t")), truncations[name][granularity], granularity)
      }
    })
  }

  it("quotes any column name as one identifier, in every dialect", () => {
    const hostile = "x\"; DROP TABLE sales; -- ` ] \\"
    const quoted = Object.fromEntries(SqlDialect.dialectNames.map((n) => [n, SqlDialect.dialects[n].quote(hostile)]))
    assert.deepStrictEqual(quoted, {
      postgres: "\"x\"\"; DROP TABLE sales; -- ` ] \\\"",
      duckdb: "\"x\"\"; DROP TABLE sales; -- ` ] \\\"",
      mysql: "`x\"; DROP TABLE sales; -- `` ] \\`",
      sqlite: "\"x\"\"; DROP TABLE sales; -- ` ] \\\"",
      bigquery: "`x\"; DROP TABLE sales; -- \\` ] \\\\`",
      snowflake: "\"x\"\"; DROP TABLE sales; -- ` ] \\\"",
      clickhouse: "`x\"; DROP TABLE sales; -- \\` ] \\\\`",
      tsql: "[x\"; DROP TABLE sales; -- ` ]] \\]"
    })
  })

  it("every operator, and measures filtered in HAVING", () => {
    const where = (filter: SemanticModel.Filter<SemanticModel.FilterValue>) => {
      const compiled = SqlCompiler.compile(planned({ measures: ["orders"], filters: [filter] }), { table: ["s"] }, SqlDialect.postgres)
      return { sql: compiled.sql.split("\n").filter((l) => l.startsWith("WHERE") || l.startsWith("HAVING")).join(" "), params: compiled.params }
    }
    const cases: Array<[SemanticModel.Filter<SemanticModel.FilterValue>, string, ReadonlyArray<unknown>]> = [
      [{ member: "region", operator: "equals", values: ["EU"] }, `WHERE "region" = $1`, ["EU"]],
      [{ member: "region", operator: "not_equals", values: ["EU"] }, `WHERE ("region" <> $1 OR "region" IS NULL)`, ["EU"]],
      [{ member: "region", operator: "not_equals", values: ["EU", "US"] }, `WHERE ("region" NOT IN ($1, $2) OR "region" IS NULL)`, ["EU", "US"]],
      [{ member: "product", operator: "not_contains", values: ["X"] }, `WHERE (NOT (STRPOS(LOWER("product name"), $1) > 0) OR "product name" IS NULL)`, ["x"]],
      [{ member: "product", operator: "starts_with", values: ["Pró"] }, `WHERE LOWER(LEFT("product name", 3)) = $1`, ["pró"]],
      [{ member: "product", operator: "ends_with", values: ["Max"] }, `WHERE LOWER(RIGHT("product name", 3)) = $1`, ["max"]],
      [{ member: "quantity", operator: "gte", values: [2] }, `WHERE "quantity" >= CAST($1 AS double precision)`, [2]],
      [{ member: "quantity", operator: "lt", values: [2.5] }, `WHERE "quantity" < CAST($1 AS double precision)`, [2.5]],
      [{ member: "region", operator: "set" }, `WHERE "region" IS NOT NULL`, []],
      [{ member: "region", operator: "not_set" }, `WHERE "region" IS NULL`, []],
      [{ member: "ordered_at", operator: "before_date", values: ["2024-02-01T10:00:00.250Z"] }, `WHERE "ordered_at" < CAST($1 AS timestamp)`, ["2024-02-01 10:00:00.250"]],
      [{ member: "ordered_at", operator: "after_date", values: ["2024-02-01T10:00:00+02:00"] }, `WHERE "ordered_at" > CAST($1 AS timestamp)`, ["2024-02-01 08:00:00"]],
      [{ member: "ordered_at", operator: "not_in_date_range", values: ["2024-01-01", "2024-01-31"] }, `WHERE ("ordered_at" < CAST($1 AS timestamp) OR "ordered_at" >= CAST($2 AS timestamp))`, ["2024-01-01 00:00:00", "2024-02-01 00:00:00"]],
      [{ member: "avg_amount", operator: "lte", values: [10] }, `HAVING AVG(CAST("amount" AS double precision)) <= CAST($1 AS double precision)`, [10]],
      [{ and: [{ member: "orders", operator: "gt", values: [1] }, { member: "customers", operator: "equals", values: [3, 4] }] }, `HAVING (COUNT(*) > CAST($1 AS double precision) AND COUNT(DISTINCT "customer") IN (CAST($2 AS double precision), CAST($3 AS double precision)))`, [1, 3, 4]]
    ]
    for (const [filter, sql, params] of cases) {
      const compiled = where(filter)
      assert.strictEqual(compiled.sql, sql, JSON.stringify(filter))
      assert.deepStrictEqual(compiled.params, params, JSON.stringify(filter))
    }
  })

  it("derived measures expand into their aggregations; division never by zero and never integer", () => {
    const derived = SemanticModel.check({
      dimensions: [],
      measures: [
        { name: "revenue", aggregation: "sum", column: "amount" },
        { name: "orders", aggregation: "count" },
        { name: "per_order", expression: "revenue / orders" },
        { name: "margin_pct", expression: "-(per_order - 2.5) * 100 / (orders + 1)" }
      ]
    }) as SemanticModel.CheckedModel
    const plan = SemanticQuery.plan(derived, { measures: ["margin_pct"] }, everything, now) as SemanticQuery.Plan
    assert.strictEqual(
      SqlCompiler.compile(plan, { table: ["s"] }, SqlDialect.tsql).sql.split("\n")[0],
      "SELECT TOP (10000) CAST((-((CAST(SUM([amount]) AS FLOAT) / NULLIF(COUNT(*), 0) - 2.5)) * 100) AS FLOAT) / NULLIF((COUNT(*) + 1), 0) AS [margin_pct]"
    )
  })
})

describe("SemanticQuery.plan: refusals name the member", () => {
  it("unknown or misplaced members, wrong values, mixed filters, unselected order", () => {
    const cases: Array<[SemanticQuery.Query, string, string | undefined]> = [
      [{ measures: ["profit"] }, "The model has no measure \"profit\"", "profit"],
      [{ measures: ["region"] }, "\"region\" is a dimension, not a measure", "region"],
      [{ dimensions: ["revenue"] }, "\"revenue\" is a measure, not a dimension", "revenue"],
      [{ time_dimensions: [{ dimension: "region", granularity: "day" }] }, "\"region\" is a string dimension, not a time dimension", "region"],
      [{ time_dimensions: [{ dimension: "ordered_at" }] }, "A query selects at least one measure, dimension or time dimension with a granularity", undefined],
      [{}, "A query selects at least one measure, dimension or time dimension with a granularity", undefined],
      [{ measures: ["orders", "orders"] }, "\"orders\" is selected twice", "orders"],
      [{ measures: ["orders"], filters: [{ member: "colour", operator: "equals", values: ["red"] }] }, "The model has no member \"colour\"", "colour"],
      [{ measures: ["orders"], filters: [{ member: "quantity", operator: "equals", values: ["2"] }] }, "Filter on \"quantity\": expected a number, got \"2\"", "quantity"],
      [{ measures: ["orders"], filters: [{ member: "online", operator: "equals", values: [1] }] }, "Filter on \"online\": expected true or false, got 1", "online"],
      [{ measures: ["orders"], filters: [{ member: "ordered_at", operator: "before_date", values: ["2024-02-30"] }] }, "Filter on \"ordered_at\": expected a date (2024-01-31) or an ISO 8601 timestamp, got \"2024-02-30\"", "ordered_at"],
      [{ measures: ["orders"], filters: [{ member: "quantity", operator: "contains", values: [2] }] }, "Filter on \"quantity\": contains applies to string dimensions", "quantity"],
      [{ measures: ["orders"], filters: [{ member: "region", operator: "gt", values: ["A"] }] }, "Filter on \"region\": gt applies to numbers and times", "region"],
      [{ measures: ["orders"], filters: [{ member: "region", operator: "set", values: ["A"] }] }, "Filter on \"region\": set takes no values", "region"],
      [{ measures: ["orders"], filters: [{ member: "region", operator: "equals", values: [] }] }, "Filter on \"region\": equals takes at least one value", "region"],
      [{ measures: ["orders"], filters: [{ member: "ordered_at", operator: "in_date_range", values: ["2024-01-01"] }] }, "Filter on \"ordered_at\": in_date_range takes 2 values", "ordered_at"],
      [{ measures: ["orders"], filters: [{ or: [{ member: "region", operator: "set" }, { member: "orders", operator: "gt", values: [1] }] }] }, "A filter may not join measures and dimensions under one and/or: give them as separate filters", undefined],
      [{ measures: ["orders"], filters: [{ or: [] }] }, "An and/or filter lists at least one filter", undefined],
      [{ measures: ["orders"], order: [{ member: "revenue" }] }, "Order by \"revenue\": only selected members can order the result", "revenue"],
      [{ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", date_range: "next week" }] }, "date_range of \"ordered_at\": Expected [from, to], a year (2025), quarter (2025-Q1), month (2025-03) or day, today, yesterday, this|last week|month|quarter|year, or last N days|weeks|months|quarters|years", "ordered_at"],
      [{ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", date_range: ["2024-02-01", "2024-01-01"] }] }, "date_range of \"ordered_at\": The range ends before it starts", "ordered_at"]
    ]
    for (const [query, detail, member] of cases) {
      const error = refusal(query)
      assert.strictEqual(error.detail, detail, JSON.stringify(query))
      assert.strictEqual(error.member, member, JSON.stringify(query))
    }
  })
})

describe("row-level security", () => {
  const whereOf = (security: SemanticQuery.SecurityContext) => {
    const compiled = SqlCompiler.compile(planned({ measures: ["orders"], dimensions: ["region"] }, security), { table: ["s"] }, SqlDialect.postgres)
    return { where: compiled.sql.split("\n").find((l) => l.startsWith("WHERE")), params: compiled.params }
  }

  it("a policy for the principal's role gives all rows; another binds rows to an attribute; none applying gives none", () => {
    assert.deepStrictEqual(whereOf({ roles: ["CFO"], attributes: {} }), { where: undefined, params: [] })
    assert.deepStrictEqual(whereOf({ roles: ["member"], attributes: { region: "EU" } }), { where: `WHERE "region" = $1`, params: ["EU"] })
    assert.deepStrictEqual(whereOf({ roles: ["member"], attributes: { region: ["EU", "US"] } }), { where: `WHERE "region" IN ($1, $2)`, params: ["EU", "US"] })
    // Without the attribute the policy matches no row (never every row).
    assert.deepStrictEqual(whereOf({ roles: ["member"], attributes: {} }), { where: "WHERE 1 = 0", params: [] })
    const rolesOnly = SemanticModel.check({
      dimensions: [{ name: "region", type: "string" }],
      measures: [{ name: "orders", aggregation: "count" }],
      row_level_security: [{ roles: ["VP Sales"], filter: { member: "region", operator: "equals", values: ["EU"] } }]
    }) as SemanticModel.CheckedModel
    const plan = SemanticQuery.plan(rolesOnly, { measures: ["orders"] }, { roles: ["member"], attributes: {} }, now) as SemanticQuery.Plan
    assert.deepStrictEqual(plan.where, { _tag: "None" })
    const vp = SemanticQuery.plan(rolesOnly, { measures: ["orders"] }, { roles: ["VP Sales"], attributes: {} }, now) as SemanticQuery.Plan
    assert.strictEqual(SqlCompiler.compile(vp, { table: ["s"] }, SqlDialect.postgres).sql.split("\n")[2], `WHERE "region" = $1`)
  })

  it("a plan says when the caller's policies leave them no row at all (hidden), and only then", () => {
    const hiddenFor = (security: SemanticQuery.SecurityContext) =>
      SqlCompiler.compile(planned({ measures: ["orders"], dimensions: ["region"] }, security), { table: ["s"] }, SqlDialect.postgres).hidden === true
    assert.isTrue(hiddenFor({ roles: ["member"], attributes: {} }), "no region attribute: nothing visible")
    assert.isFalse(hiddenFor({ roles: ["member"], attributes: { region: "EU" } }))
    assert.isFalse(hiddenFor({ roles: ["CFO"], attributes: {} }))
    // A filter of the caller's own that matches nothing hides nothing: its rows are merely none.
    assert.isUndefined(planned({ measures: ["orders"], filters: [{ member: "region", operator: "equals", values: ["Atlantis"] }] }, { roles: ["member"], attributes: { region: "EU" } }).hidden)
  })

  it("policies come first in WHERE and a client's filter cannot widen them", () => {
    const plan = planned({ measures: ["orders"], filters: [{ or: [{ member: "region", operator: "set" }, { member: "region", operator: "not_set" }] }] }, { roles: [], attributes: { region: "EU" } })
    assert.strictEqual(
      SqlCompiler.compile(plan, { table: ["s"] }, SqlDialect.postgres).sql.split("\n")[2],
      `WHERE ("region" = $1 AND ("region" IS NOT NULL OR "region" IS NULL))`
    )
  })
})

describe("SemanticModel.check", () => {
  const base = { dimensions: [{ name: "region", type: "string" as const }], measures: [{ name: "orders", aggregation: "count" as const }] }
  const detail = (model: SemanticModel.Model) => {
    const checked = SemanticModel.check(model)
    assert.instanceOf(checked, SemanticModel.ModelInvalid)
    return (checked as SemanticModel.ModelInvalid).detail
  }
  it("refuses what the schema cannot see", () => {
    assert.strictEqual(detail({ ...base, measures: [...base.measures, { name: "region", aggregation: "count" }] }), "The member name \"region\" is used twice")
    assert.strictEqual(detail({ ...base, measures: [{ name: "x" }] }), "Measure \"x\" needs either an aggregation or an expression")
    assert.strictEqual(detail({ ...base, measures: [{ name: "x", aggregation: "sum" }] }), "Measure \"x\" needs the column it aggregates")
    assert.strictEqual(detail({ ...base, measures: [...base.measures, { name: "x", expression: "orders / nothing" }] }), "Measure \"x\" refers to \"nothing\", which is no measure of the model")
    assert.strictEqual(detail({ ...base, measures: [...base.measures, { name: "x", expression: "orders; DROP TABLE s" }] }), "Measure \"x\": unexpected \";\" at position 7")
    assert.strictEqual(
      detail({ ...base, measures: [{ name: "a", expression: "b + 1" }, { name: "b", expression: "a * 2" }] }),
      "Measures refer to each other in a cycle: a -> b -> a"
    )
    assert.strictEqual(detail({ ...base, row_level_security: [{ roles: ["x"] }] }), "Row-level security policy 1 needs either all_rows: true or a filter")
    assert.strictEqual(
      detail({ ...base, row_level_security: [{ filter: { member: "orders", operator: "set" } }] }),
      "Row-level security policy 1 filters on \"orders\", which is no dimension of the model"
    )
  })

  it("parses expressions with precedence, unary minus and parentheses", () => {
    assert.deepStrictEqual(MeasureExpression.parse("a + b * 2"), {
      _tag: "Binary",
      operator: "+",
      left: { _tag: "Measure", name: "a" },
      right: { _tag: "Binary", operator: "*", left: { _tag: "Measure", name: "b" }, right: { _tag: "Number", value: 2 } }
    })
    assert.deepStrictEqual(MeasureExpression.references(MeasureExpression.parse("-(a - b) / (c)") as MeasureExpression.Expression), ["a", "b", "c"])
    for (const bad of ["", "a +", "(a", "a b", "a)", "1..2", "'a'", "a % b"]) {
      assert.instanceOf(MeasureExpression.parse(bad), MeasureExpression.ExpressionInvalid, bad)
    }
    assert.instanceOf(MeasureExpression.parse("(".repeat(100) + "a" + ")".repeat(100)), MeasureExpression.ExpressionInvalid)
  })
})

describe("DateRange.resolve", () => {
  const at = new Date("2024-05-15T10:30:00Z") // a Wednesday
  const resolved = (range: string | readonly [string, string]) => {
    const r = DateRange.resolve(range, at)
    return typeof r === "string" ? r : [r.start.toISOString(), r.end.toISOString()]
  }
  it("relative ranges, weeks from Monday, and absolute ones with an inclusive end", () => {
    assert.deepStrictEqual(resolved("today"), ["2024-05-15T00:00:00.000Z", "2024-05-16T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("yesterday"), ["2024-05-14T00:00:00.000Z", "2024-05-15T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("this week"), ["2024-05-13T00:00:00.000Z", "2024-05-20T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("last week"), ["2024-05-06T00:00:00.000Z", "2024-05-13T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("last month"), ["2024-04-01T00:00:00.000Z", "2024-05-01T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("this quarter"), ["2024-04-01T00:00:00.000Z", "2024-07-01T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("last year"), ["2023-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("Last 7 days"), ["2024-05-09T00:00:00.000Z", "2024-05-16T00:00:00.000Z"])
    assert.deepStrictEqual(resolved("last 3 months"), ["2024-03-01T00:00:00.000Z", "2024-06-01T00:00:00.000Z"])
    assert.deepStrictEqual(resolved(["2024-01-01", "2024-01-31"]), ["2024-01-01T00:00:00.000Z", "2024-02-01T00:00:00.000Z"])
    assert.deepStrictEqual(resolved(["2024-01-01T08:00:00Z", "2024-01-01T09:00:00Z"]), ["2024-01-01T08:00:00.000Z", "2024-01-01T09:00:00.001Z"])
    assert.strictEqual(typeof resolved("last 0 days"), "string")
    assert.strictEqual(typeof resolved(["2024-13-01", "2024-12-31"]), "string")
  })
})

describe("the SQLite text, run by SQLite", () => {
  it("returns what the rows hold, row-level security and filters applied", () => {
    const db = new DatabaseSync(":memory:")
    db.exec(`CREATE TABLE sales (region TEXT, "product name" TEXT, is_online INTEGER, quantity REAL, ordered_at TEXT, amount REAL, customer TEXT)`)
    const insert = db.prepare("INSERT INTO sales VALUES (?, ?, ?, ?, ?, ?, ?)")
    const rows: Array<[string | null, string, number, number, string, number, string]> = []
    const regions = ["EU", "US", "APAC", null]
    for (let i = 0; i < 400; i++) {
      const day = new Date(Date.UTC(2024, 0, 1) + (i % 120) * 86_400_000 + (i % 24) * 3_600_000)
      rows.push([regions[i % 4]!, i % 3 === 0 ? "Pro Max" : "Basic", i % 5 === 0 ? 1 : 0, (i % 7) + 1, SqlCompiler.timeText(day), (i % 50) * 10.5, `c${i % 37}`])
    }
    for (const row of rows) insert.run(...row)
    const run = (query: SemanticQuery.Query, security: SemanticQuery.SecurityContext) => {
      const compiled = SqlCompiler.compile(planned(query, security), { table: ["sales"] }, SqlDialect.sqlite)
      const params = compiled.params.map((p) => typeof p === "boolean" ? (p ? 1 : 0) : p)
      return db.prepare(compiled.sql).all(...params) as Array<Record<string, unknown>>
    }
    const result = run({ ...salesQuery, filters: salesQuery.filters!.slice(0, 2) }, { roles: [], attributes: { region: ["EU", "US"] } })
    // The same answer by hand.
    const expected = new Map<string, { revenue: number; orders: number }>()
    for (const [region, product, online, , ordered, amount] of rows) {
      if (region !== "EU" && region !== "US") continue
      if (ordered < "2024-01-01" || ordered >= "2024-04-01") continue
      if (!product.toLowerCase().includes("pro") && online !== 1) continue
      const key = `${region}|${ordered.slice(0, 7)}-01 00:00:00`
      const e = expected.get(key) ?? { revenue: 0, orders: 0 }
      expected.set(key, { revenue: e.revenue + amount, orders: e.orders + 1 })
    }
    const byKey = new Map(result.map((r) => [`${r.region}|${r.ordered_at__month}`, r]))
    assert.strictEqual(byKey.size, expected.size)
    for (const [key, e] of expected) {
      const got = byKey.get(key)!
      assert.isDefined(got, key)
      assert.closeTo(got.revenue as number, e.revenue, 1e-6)
      assert.strictEqual(got.orders, e.orders)
      assert.closeTo(got.revenue_per_order as number, e.revenue / e.orders, 1e-9)
    }
    const revenues = result.map((r) => r.revenue as number)
    assert.deepStrictEqual(revenues, [...revenues].sort((a, b) => b - a))
    // A principal bound to APAC sees APAC rows only; one without the attribute sees none.
    const apac = run({ measures: ["orders"], dimensions: ["region"] }, { roles: [], attributes: { region: "APAC" } })
    assert.deepStrictEqual(apac, [{ region: "APAC", orders: 100 }])
    assert.deepStrictEqual(run({ measures: ["orders"] }, { roles: [], attributes: {} }), [{ orders: 0 }])
    // Weeks start on Monday, quarters on their first month.
    const weeks = run({ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "week" }], limit: 1 }, everything)
    // 2024-01-01 was a Monday: its week holds the rows of January 1 to 7.
    const firstWeek = rows.filter((r) => r[4] < "2024-01-08").length
    assert.deepStrictEqual(weeks, [{ ordered_at__week: "2024-01-01 00:00:00", orders: firstWeek }])
    const quarters = run({ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] }, everything)
    assert.deepStrictEqual(quarters.map((q) => q.ordered_at__quarter), ["2024-01-01 00:00:00", "2024-04-01 00:00:00"])
  })
})
