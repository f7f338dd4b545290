import { Alert } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"

const base = (schedule: Alert.Alert["schedule"], lastCheckedAt: Date | null): Alert.Alert => ({
  alert_id: "a" as Alert.AlertId,
  tenant_id: "t" as any,
  workspace_id: "w" as any,
  dataset_id: "d" as any,
  name: "Revenue",
  measure: "revenue",
  filters: [],
  condition: "lt",
  threshold: 100,
  schedule,
  state: "ok",
  last_value: null,
  last_checked_at: lastCheckedAt,
  created_at: new Date("2026-11-22T10:07:00Z"),
  updated_at: new Date("2026-11-22T10:07:00Z")
})

describe("Alert", () => {
  it("holds compares with the threshold; no value never holds", () => {
    const cases: Array<[Alert.Condition, number | null, boolean]> = [
      ["lt", 99.9, true], ["lt", 100, false], ["lte", 100, true], ["gt", 100, false], ["gt", 100.1, true], ["gte", 100, true], ["lt", null, false]
    ]
    for (const [condition, value, expected] of cases) assert.strictEqual(Alert.holds({ condition, threshold: 100 }, value), expected, `${condition} ${value}`)
  })

  it("isDue: the cron's next time after the last check (or creation) has come", () => {
    const hourly = { after_refresh: false, cron: "0 * * * *" }
    assert.isFalse(Alert.isDue(base(hourly, null), new Date("2026-11-22T10:59:59Z")))
    assert.isTrue(Alert.isDue(base(hourly, null), new Date("2026-11-22T11:00:00Z")))
    assert.isFalse(Alert.isDue(base(hourly, new Date("2026-11-22T11:00:00Z")), new Date("2026-11-22T11:30:00Z")))
    assert.isTrue(Alert.isDue(base(hourly, new Date("2026-11-22T11:00:00Z")), new Date("2026-11-22T12:00:01Z")))
    assert.isFalse(Alert.isDue(base({ after_refresh: true }, null), new Date("2030-01-01T00:00:00Z")))
  })
})
