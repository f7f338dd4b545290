/**
 * The demo's visuals planned, compiled by vega-lite and drawn by vega
 * (through vega-interpreter, no eval): titles from the model, formats from
 * the measures, times by granularity in UTC whatever the process's zone,
 * bars by value, and mark counts the other renderers can compare with.
 */
import { Chart, Format } from "@analytics/charts"
import { compile, toSvg } from "@analytics/charts/svg"
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { LoggerInterface } from "vega"
import * as vl from "vega-lite"
import { type Case, cases, draw, labels, planOf, size } from "./demo.ts"

const drawnPlan = (c: Case): Chart.DrawnPlan => {
  const p = planOf(c)
  if (!Chart.isDrawn(p)) throw new Error(`${c.visual.id} is not drawn`)
  return p
}

/** vega-lite's warnings while compiling `spec`. */
const warningsOf = (spec: vl.TopLevelSpec): Array<string> => {
  const warnings: Array<string> = []
  const logger = {
    level: () => logger,
    warn: (...args: Array<unknown>) => (warnings.push(args.join(" ")), logger),
    error: (...args: Array<unknown>) => (warnings.push(`error: ${args.join(" ")}`), logger),
    info: () => logger,
    debug: () => logger
  }
  vl.compile(spec, { logger: logger as unknown as LoggerInterface })
  return warnings
}

const column = (p: Chart.ChartPlan, field: string): Chart.PlanColumn => {
  const all = p.kind === "table" ? p.columns : p.kind === "kpi" ? [p.value] : p.kind === "pie" ? [p.category, p.value] : [p.x, ...p.y, ...(p.series ? [p.series] : [])]
  const found = all.find((c) => c.field === field)
  if (found === undefined) throw new Error(`no column ${field}`)
  return found
}

describe("plans", () => {
  it("each demo visual gets the plan of its type; the new kinds come from an explicit option", () => {
    const kinds = Object.fromEntries(Object.entries(cases).map(([name, c]) => [name, planOf(c).kind]))
    assert.deepStrictEqual(kinds, {
      kpi: "kpi",
      bar: "bar",
      line: "line",
      area: "area",
      pie: "pie",
      table: "table",
      quarterly_bar: "bar",
      daily_bar: "bar",
      percent_bar: "bar",
      pie_by_quarter: "pie",
      two_currencies: "bar",
      grouped_bar: "bar",
      series_area: "area",
      combo_by_region: "combo",
      two_measures: "line",
      series_line: "line",
      stacked_bar: "stacked_bar",
      combo: "combo",
      scatter: "scatter",
      heatmap: "heatmap"
    })
  })

  it("columns carry their titles, roles, time units and formats", () => {
    const p = planOf(cases.line)
    assert.deepStrictEqual(column(p, "ordered_at__month"), { field: "ordered_at__month", title: "Order date: Month", role: "time", timeUnit: "utcyearmonth", timeFormat: "%b %Y" })
    assert.deepStrictEqual(column(p, "revenue"), { field: "revenue", title: "Revenue", role: "quantity", numberFormat: { type: "currency", currency: "EUR", decimals: 2 } })
    assert.deepStrictEqual(column(planOf(cases.bar), "region"), { field: "region", title: "Region", role: "category" })
  })

  it("a column's own title wins over its name", () => {
    const c = cases.bar
    const titled = c.columns.map((col) => (col.name === "revenue" ? { ...col, title: "Net revenue" } : col))
    assert.strictEqual(column(Chart.plan({ visual: c.visual, columns: titled }), "revenue").title, "Net revenue")
  })

  it("a chart its encoding cannot fill is a table; a stacked bar with nothing to stack or a combo of one measure is a bar", () => {
    const c = cases.bar
    assert.strictEqual(Chart.plan({ visual: c.visual, columns: c.columns.filter((col) => col.kind !== "measure") }).kind, "table")
    assert.strictEqual(Chart.plan({ visual: { ...c.visual, type: "stacked_bar" }, columns: c.columns }).kind, "bar")
    assert.strictEqual(Chart.plan({ visual: { ...c.visual, type: "combo" }, columns: c.columns }).kind, "bar")
    const stacked = cases.stacked_bar
    assert.strictEqual(Chart.plan({ visual: stacked.visual, columns: stacked.columns }).kind, "stacked_bar")
  })
})

describe("Vega-Lite specs", () => {
  for (const [name, c] of Object.entries(cases)) {
    const p = planOf(c)
    if (!Chart.isDrawn(p)) continue
    it(`${name} (${p.kind}) compiles with no warning`, () => {
      assert.deepStrictEqual(warningsOf(Chart.vegaLite(p, size)), [])
    })
  }

  it("reads the named rows, parsing times as UTC text, with a text alternative, the theme and the font", () => {
    const spec = Chart.vegaLite(drawnPlan(cases.line), size) as unknown as Record<string, any>
    assert.deepStrictEqual(spec.data, { name: "rows", format: { parse: { ordered_at__month: "utc:'%Y-%m-%d %H:%M:%S'", revenue: "number" } } })
    assert.strictEqual(spec.description, "The revenue by month: Line chart of Revenue by Order date: Month.")
    assert.strictEqual(spec.config.font, "DejaVu Sans, system-ui")
    assert.deepStrictEqual(spec.config.range.category, drawnPlan(cases.line).theme.palette)
    assert.deepStrictEqual(spec.config.locale.number.currency, ["€", ""])
    assert.strictEqual(spec.encoding.x.timeUnit, "utcyearmonth")
    assert.strictEqual(spec.encoding.y.axis.format, "$,.2~f")
    assert.deepStrictEqual(spec.encoding.tooltip.map((t: { format?: string }) => t.format), ["%b %Y", "$,.2f"])
  })

  it("a pie is a ring with theta, colour and order by value, each slice labelled with its share", async () => {
    const spec = Chart.vegaLite(drawnPlan(cases.pie), size) as unknown as Record<string, any>
    assert.deepStrictEqual(spec.layer.map((l: any) => l.mark.type), ["arc", "text"])
    assert.deepStrictEqual(Object.keys(spec.encoding).sort(), ["color", "order", "theta", "tooltip"])
    assert.strictEqual(spec.encoding.order.sort, "descending")
    // the three channels' shares, as drawn, add up to about 100%
    const { svg } = await toSvg(compile(spec as any), cases.pie.rows, size)
    const shares = [...svg.matchAll(/>(\d+)%</g)].map((m) => Number(m[1]))
    assert.strictEqual(shares.length, cases.pie.rows.length)
    assert.closeTo(shares.reduce((a, b) => a + b, 0), 100, 2)
  })

  it("several measures: folded, each in its own format in the tooltip", () => {
    const spec = Chart.vegaLite(drawnPlan(cases.two_currencies), size) as unknown as Record<string, any>
    assert.deepStrictEqual(spec.transform[0], { fold: ["revenue", "revenue_usd"], as: ["measure_field", "measure_value"] })
    assert.deepStrictEqual(spec.encoding.tooltip.map((t: { title: string; format?: string }) => [t.title, t.format]), [["Region", undefined], ["Revenue", "$,.2f"], ["Revenue usd (USD)", ",.2f"]])
  })

  it("compile is memoised", () => {
    const spec = Chart.vegaLite(drawnPlan(cases.bar), size)
    assert.strictEqual(compile(spec), compile(structuredClone(spec)))
  })
})

describe("SVG", () => {
  it("a monthly line shows months as `Jan 2025`, with no time of day and no column names", async () => {
    const { svg } = await draw(cases.line)
    const text = labels(svg)
    assert.include(text, "Jan 2025")
    assert.notInclude(svg, "00:00:00")
    assert.notInclude(svg, "__")
    assert.includeMembers(text, ["Order date: Month", "Revenue"])
    assert.notInclude(text, "ordered_at__month")
    assert.notInclude(text, "revenue")
  })

  it("a quarterly bar shows `Q1 2025`, a daily one `3 Mar`", async () => {
    assert.include(labels((await draw(cases.quarterly_bar)).svg), "Q1 2025")
    assert.include(labels((await draw(cases.daily_bar)).svg), "3 Mar")
  })

  it("a currency axis shows the currency's symbol, a percent axis `%`", async () => {
    assert.isTrue(labels((await draw(cases.bar)).svg).some((l) => /^€[\d,]+$/.test(l)))
    assert.isTrue(labels((await draw(cases.percent_bar)).svg).some((l) => /^\d+%$/.test(l)))
  })

  it("a pie of times names its slices by period; a chart of two currencies writes one symbol and names the other", async () => {
    const pie = await draw(cases.pie_by_quarter)
    assert.includeMembers(labels(pie.svg), ["Order date: Quarter", "Q1 2025", "Q4 2026"])
    assert.notInclude(pie.svg, "00:00:00")
    assert.strictEqual(pie.marks, cases.pie_by_quarter.rows.length)
    const text = labels((await draw(cases.two_currencies)).svg)
    assert.include(text, "Revenue usd (USD)")
    assert.isTrue(text.some((l) => l.startsWith("€")))
    assert.isFalse(text.some((l) => l.includes("$")))
  })

  it("axis and legend titles are the columns' titles", async () => {
    assert.includeMembers(labels((await draw(cases.series_line)).svg), ["Order date: Month", "Revenue", "Region"])
    assert.includeMembers(labels((await draw(cases.percent_bar)).svg), ["Region", "Online share"])
  })

  it("bars are sorted by value, highest first, unless told to keep the engine's order", async () => {
    const c = cases.bar
    const byValue = [...c.rows].sort((a, b) => Number(b.revenue) - Number(a.revenue)).map((r) => r.region)
    assert.notDeepEqual(byValue, c.rows.map((r) => r.region))
    const text = labels((await draw(c)).svg)
    assert.deepStrictEqual(text.filter((l) => byValue.includes(l)), byValue)
    const combo = labels((await draw(cases.combo_by_region)).svg)
    assert.deepStrictEqual(combo.filter((l) => byValue.includes(l)), byValue)
    const kept = Chart.plan({ visual: c.visual, columns: c.columns, order: "engine" })
    assert.isTrue(Chart.isDrawn(kept))
    const { toSvg } = await import("@analytics/charts/svg")
    const engine = labels((await toSvg(compile(Chart.vegaLite(kept as Chart.DrawnPlan, size)), c.rows)).svg)
    assert.deepStrictEqual(engine.filter((l) => byValue.includes(l)), c.rows.map((r) => r.region))
  })

  it("marks: one per bar, one per slice", async () => {
    for (const name of ["bar", "quarterly_bar", "daily_bar", "stacked_bar"]) assert.strictEqual((await draw(cases[name])).marks, cases[name].rows.length, name)
    assert.strictEqual((await draw(cases.pie)).marks, cases.pie.rows.length)
    // a line: its path and a point per row
    assert.strictEqual((await draw(cases.line)).marks, cases.line.rows.length + 1)
  })

  it("Format.text agrees with the chart's labels for the same values", async () => {
    // every time label shown is Format.text of an instant of the axis (each day, month or quarter
    // from the first row's to the one after the last row's), the first row's among them
    const steps = { line: [0, 1], quarterly_bar: [0, 3], daily_bar: [1, 0] } as const
    for (const [name, field] of [["line", "ordered_at__month"], ["quarterly_bar", "ordered_at__quarter"], ["daily_bar", "ordered_at__day"]] as const) {
      const c = cases[name]
      const col = column(planOf(c), field)
      const times = c.rows.map((row) => Format.toDate(row[field])!.getTime())
      const [days, months] = steps[name]
      const axis: Array<string> = []
      for (let at = new Date(Math.min(...times)); at.getTime() <= Math.max(...times); at = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, at.getUTCDate() + days))) {
        axis.push(Format.text(at, col), Format.text(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, at.getUTCDate() + days)), col))
      }
      const shown = labels((await draw(c)).svg).filter((l) => /\d/.test(l) && !/^[€\d,.%]+$/.test(l))
      assert.include(shown, Format.text(c.rows[0][field], col), name)
      for (const l of shown) assert.include(axis, l, name)
      // bars have a band per row's period, each labelled with its row's text
      if (name !== "line") assert.deepStrictEqual(shown, c.rows.map((row) => Format.text(row[field], col)), name)
    }
    const revenue = column(planOf(cases.bar), "revenue")
    const ticks = labels((await draw(cases.bar)).svg).filter((l) => l.startsWith("€"))
    assert.isNotEmpty(ticks)
    for (const tick of ticks) assert.strictEqual(Format.text(Number(tick.replace(/[€,]/g, "")), revenue, { where: "axis" }), tick)
    const share = column(planOf(cases.percent_bar), "online_share")
    const percents = labels((await draw(cases.percent_bar)).svg).filter((l) => l.endsWith("%"))
    for (const tick of percents) assert.strictEqual(Format.text(Number(tick.slice(0, -1)) / 100, share, { where: "axis" }), tick)
  })

  it("draws the same under TZ=America/Los_Angeles as here, in a process that forbids eval", async () => {
    const child = JSON.parse(execFileSync(process.execPath, ["--disallow-code-generation-from-strings", fileURLToPath(new URL("./draw-in-child.ts", import.meta.url))], {
      env: { ...process.env, TZ: "America/Los_Angeles" },
      encoding: "utf8"
    })) as { zone: string; offset: number; evalBlocked: boolean; drawn: Record<string, string> }
    assert.strictEqual(child.zone, "America/Los_Angeles")
    assert.strictEqual(child.offset, 480)
    assert.isTrue(child.evalBlocked)
    for (const name of ["line", "quarterly_bar", "daily_bar"]) assert.strictEqual(child.drawn[name], (await draw(cases[name])).svg, name)
    assert.include(labels(child.drawn.line), "Jan 2025")
    assert.notInclude(labels(child.drawn.line), "Dec 2024")
  })
})

describe("compact axes (an answer's chart, drawn small)", () => {
  it("a currency axis reads €1.2M, not €1,200,000; a report's keeps whole numbers", async () => {
    const rows = [{ region: "EU", revenue: 1_234_567 }, { region: "US", revenue: 2_500_000 }, { region: "APAC", revenue: 15_000 }]
    const c = { ...cases.bar, rows }
    const compact = Chart.plan({ visual: c.visual, columns: c.columns, compactAxis: true })
    if (!Chart.isDrawn(compact)) throw new Error("not drawn")
    const drawn = labels((await toSvg(compile(Chart.vegaLite(compact, size)), rows)).svg)
    assert.includeMembers(drawn, ["€0", "€1M", "€2M", "Revenue", "Region"])
    assert.isFalse(drawn.some((l) => /€\d{1,3},\d{3}/.test(l)), drawn.join(" | "))
    const whole = labels((await draw(c)).svg.replace(/\n/g, ""))
    assert.isTrue(whole.some((l) => /€\d,\d{3},\d{3}/.test(l)), whole.join(" | "))
  })
  it("under 1,000 as they are; billions as B", async () => {
    const small = [{ region: "EU", revenue: 12.5 }, { region: "US", revenue: 800 }]
    const big = [{ region: "EU", revenue: 1_200_000_000 }, { region: "US", revenue: 2_000_000_000 }]
    const p = Chart.plan({ visual: cases.bar.visual, columns: cases.bar.columns, compactAxis: true })
    if (!Chart.isDrawn(p)) throw new Error("not drawn")
    const spec = compile(Chart.vegaLite(p, size))
    assert.includeMembers(labels((await toSvg(spec, small)).svg), ["€0", "€200", "€800"])
    assert.includeMembers(labels((await toSvg(spec, big)).svg), ["€0", "€1B", "€2B"])
  })
})
