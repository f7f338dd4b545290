/**
 * One source of formats: d3's strings for Vega, Intl's text for tables and
 * key figures, Excel's number formats, all from a measure's declared format.
 */
import { Format } from "@analytics/charts"
import { assert, describe, it } from "@effect/vitest"

const eur = { type: "currency", currency: "EUR", decimals: 2 } as const
const percent1 = { type: "percent", decimals: 1 } as const

describe("Format", () => {
  it("d3 formats: currency, percent honouring decimals, number, undeclared", () => {
    assert.strictEqual(Format.d3Format(eur, "label"), "$,.2f")
    assert.strictEqual(Format.d3Format(eur, "axis"), "$,.2~f")
    assert.strictEqual(Format.d3Format({ type: "currency", currency: "JPY" }, "label"), "$,.0f")
    assert.strictEqual(Format.d3Format(percent1, "label"), ".1%")
    assert.strictEqual(Format.d3Format({ type: "percent" }, "label"), ".0%")
    assert.strictEqual(Format.d3Format({ type: "number", decimals: 0 }, "label"), ",.0f")
    assert.strictEqual(Format.d3Format({ type: "number" }, "label"), ",~f")
    assert.strictEqual(Format.d3Format(undefined, "axis"), ",~f")
  })

  it("Vega's number locale from Intl: the symbol where the locale puts it", () => {
    assert.deepStrictEqual(Format.numberLocale("EUR", "en-US"), { decimal: ".", thousands: ",", grouping: [3], currency: ["€", ""] })
    const de = Format.numberLocale("EUR", "de-DE")
    assert.deepStrictEqual([de.decimal, de.thousands, de.currency[0], de.currency[1].trim()], [",", ".", "", "€"])
    assert.deepStrictEqual(Format.numberLocale(undefined).currency, ["", ""])
  })

  it("time formats by granularity", () => {
    assert.deepStrictEqual(
      (["year", "quarter", "month", "day", "hour"] as const).map(Format.timeFormat),
      ["%Y", "Q%q %Y", "%b %Y", "%-d %b", "%-d %b %H:00"]
    )
  })

  it("text for tables, key figures and tooltips", () => {
    assert.strictEqual(Format.text(20000, { role: "quantity", numberFormat: eur }), "€20,000.00")
    assert.strictEqual(Format.text("20000.5", { role: "quantity", numberFormat: eur }), "€20,000.50")
    assert.strictEqual(Format.text(0.125, { role: "quantity", numberFormat: percent1 }), "12.5%")
    assert.strictEqual(Format.text(1234, { role: "quantity" }), "1,234")
    assert.strictEqual(Format.text("2025-01-01 00:00:00", { role: "time", timeFormat: Format.timeFormat("month") }), "Jan 2025")
    assert.strictEqual(Format.text("2025-01-01 00:00:00", { role: "time", timeFormat: Format.timeFormat("quarter") }), "Q1 2025")
    assert.strictEqual(Format.text("2025-03-03 00:00:00", { role: "time", timeFormat: Format.timeFormat("day") }), "3 Mar")
    assert.strictEqual(Format.text(new Date("2025-03-03T14:00:00Z"), { role: "time", timeFormat: Format.timeFormat("hour") }), "3 Mar 14:00")
    assert.strictEqual(Format.text(null, { role: "category" }), "")
    assert.strictEqual(Format.text("EU", { role: "category" }), "EU")
  })

  it("Excel number formats", () => {
    assert.strictEqual(Format.excelNumFmt(eur), "\"€\"#,##0.00")
    assert.strictEqual(Format.excelNumFmt(percent1), "0.0%")
    assert.strictEqual(Format.excelNumFmt({ type: "number", decimals: 0 }), "#,##0")
    assert.strictEqual(Format.excelNumFmt(undefined), "General")
  })
})
