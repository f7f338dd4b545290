/**
 * Which measures' totals may be added up from a table's rows (decision
 * 0015, "Totals"): sums and counts, and sums, differences and multiples of
 * them; a minimum and a maximum as the least and greatest; every other
 * (an average, a distinct count, a ratio, a constant) only over the whole.
 */
import { SemanticModel } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"

const model: SemanticModel.Model = {
  dimensions: [{ name: "region", type: "string" }],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "revenue" },
    { name: "cost", aggregation: "sum", column: "cost" },
    { name: "average", aggregation: "avg", column: "revenue" },
    { name: "customers", aggregation: "count_distinct", column: "customer" },
    { name: "smallest", aggregation: "min", column: "revenue" },
    { name: "largest", aggregation: "max", column: "revenue" },
    { name: "margin", expression: "revenue - cost" },
    { name: "thousands", expression: "(revenue + revenue) / 1000" },
    { name: "twice_margin", expression: "2 * margin" },
    { name: "per_order", expression: "revenue / orders" },
    { name: "plus_one", expression: "revenue + 1" },
    { name: "by_zero", expression: "revenue / 0" },
    { name: "share", expression: "margin / revenue" }
  ]
}

describe("how a measure's total is had", () => {
  it("sums and counts and their linear combinations add up; min and max are the least and greatest; the rest need the whole", () => {
    const of = (name: string) => SemanticModel.totallingOf(model, name)
    for (const name of ["orders", "revenue", "margin", "thousands", "twice_margin"]) assert.strictEqual(of(name), "sum", name)
    assert.strictEqual(of("smallest"), "min")
    assert.strictEqual(of("largest"), "max")
    for (const name of ["average", "customers", "per_order", "plus_one", "by_zero", "share", "nope"]) assert.strictEqual(of(name), "whole", name)
  })
})
