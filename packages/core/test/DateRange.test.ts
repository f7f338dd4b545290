/**
 * Date ranges as queries and report filters name them: calendar periods
 * named outright, relative ranges at a given time, and pairs of dates.
 */
import { DateRange } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"

const now = new Date("2026-11-26T10:30:00Z")
const range = (text: string | readonly [string, string]) => {
  const resolved = DateRange.resolve(text, now)
  return typeof resolved === "string" ? resolved : [resolved.start.toISOString().slice(0, 10), resolved.end.toISOString().slice(0, 10)]
}

describe("DateRange.resolve", () => {
  it("names calendar periods whole: a year, a quarter, a month, a day (the end excluded)", () => {
    assert.deepStrictEqual(range("2025"), ["2025-01-01", "2026-01-01"])
    assert.deepStrictEqual(range("2025-Q1"), ["2025-01-01", "2025-04-01"])
    assert.deepStrictEqual(range("2025-q4"), ["2025-10-01", "2026-01-01"])
    assert.deepStrictEqual(range("2024-02"), ["2024-02-01", "2024-03-01"])
    assert.deepStrictEqual(range("2024-12"), ["2024-12-01", "2025-01-01"])
    assert.deepStrictEqual(range("2024-02-29"), ["2024-02-29", "2024-03-01"])
  })

  it("refuses periods that do not exist", () => {
    for (const text of ["2025-13", "2025-00", "2025-Q5", "2023-02-29", "25", "2025-1"]) assert.isString(DateRange.resolve(text, now), text)
  })

  it("keeps relative ranges and pairs of dates as before", () => {
    assert.deepStrictEqual(range("last 3 months"), ["2026-09-01", "2026-12-01"])
    assert.deepStrictEqual(range("this year"), ["2026-01-01", "2027-01-01"])
    assert.deepStrictEqual(range(["2025-01-01", "2025-03-31"]), ["2025-01-01", "2025-04-01"])
    assert.strictEqual(DateRange.resolve(["2025-03-31", "2025-01-01"], now), "The range ends before it starts")
  })
})
