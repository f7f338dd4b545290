/**
 * What every document draws of a visual: the sentence for one that is
 * unavailable or whose rows show nothing (a key figure over no row included),
 * a key figure in its measure's format, a table's cells as the page writes
 * them, and a chart's plan in the deployment's colours.
 */
import { Branding, type Report, type ReportViews, type SemanticQuery } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import * as Visuals from "../src/Visuals.ts"

const month: SemanticQuery.Column = { name: "ordered_at__month", member: "ordered_at", kind: "time_dimension", type: "time", granularity: "month", title: "Order date: Month" }
const revenue: SemanticQuery.Column = { name: "revenue", member: "revenue", kind: "measure", type: "number", title: "Revenue", format: { type: "currency", currency: "EUR", decimals: 2 } }

const visual = (type: Report.Visual["type"], encoding: Report.Visual["encoding"] = {}): Report.Visual => ({
  id: type,
  type,
  dataset_id: "0190c0de-0000-7000-8000-000000000001" as Report.Visual["dataset_id"],
  query: {},
  encoding
})

const rows = (v: Report.Visual, columns: ReadonlyArray<SemanticQuery.Column>, data: Extract<ReportViews.VisualView, { _tag: "Rows" }>["rows"]): ReportViews.VisualView => ({ _tag: "Rows", visual: v, columns, rows: data })

describe("what documents show of a visual", () => {
  it("'No rows match.' for no row and for a key figure without a value; an unavailable visual's detail", () => {
    const kpi = visual("kpi", { value: "revenue" })
    assert.deepStrictEqual(Visuals.shown(rows(kpi, [revenue], [{ revenue: null }]), Branding.defaults), { _tag: "Notice", text: "No rows match." })
    assert.deepStrictEqual(Visuals.shown(rows(visual("line"), [month, revenue], []), Branding.defaults), { _tag: "Notice", text: "No rows match." })
    assert.deepStrictEqual(Visuals.shown(rows(visual("table"), [month, revenue], []), Branding.defaults), { _tag: "Notice", text: "No rows match." })
    assert.deepStrictEqual(
      Visuals.shown({ _tag: "Unavailable", visual: kpi, detail: "This visual took too long to load." }, Branding.defaults),
      { _tag: "Notice", text: "This visual took too long to load." }
    )
  })

  it("a key figure in its format, a table as text, a chart's plan in the branding's colours and locale", () => {
    const figure = Visuals.shown(rows(visual("kpi", { value: "revenue" }), [revenue], [{ revenue: 1234567.891 }]), Branding.defaults)
    assert.strictEqual(figure._tag === "Figure" ? figure.text : figure._tag, "€1,234,567.89")
    const table = Visuals.shown(rows(visual("table"), [month, revenue], [{ ordered_at__month: "2025-01-01 00:00:00", revenue: 20000 }]), Branding.defaults)
    assert.deepStrictEqual(table._tag === "Table" ? table.table : table._tag, {
      columns: [{ title: "Order date: Month", numeric: false }, { title: "Revenue", numeric: true }],
      cells: [["Jan 2025", "€20,000.00"]]
    })
    const german = Visuals.shown(rows(visual("kpi", { value: "revenue" }), [revenue], [{ revenue: 20000 }]), { primaryColor: "#0f766e", locale: "de-DE" })
    assert.strictEqual(german._tag === "Figure" ? german.text.replace(/\s/g, " ") : german._tag, "20.000,00 €")
    const chart = Visuals.shown(rows(visual("line"), [month, revenue], [{ ordered_at__month: "2025-01-01 00:00:00", revenue: 20000 }]), { primaryColor: "#0f766e", locale: "en-US" })
    assert.strictEqual(chart._tag, "Chart")
    if (chart._tag === "Chart") assert.notStrictEqual(chart.plan.theme.accent, "#2563eb")
  })
})
