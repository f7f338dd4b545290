/**
 * A schedule's cron in words (packages/viewer/src/console/CronWords.ts):
 * the common shapes read as a person would say them, with the time zone;
 * anything else is shown as it is, never as wrong words.
 */
import { assert, describe, it } from "@effect/vitest"
import { cronPhrase, cronWords } from "../src/console/CronWords.ts"

describe("cron in words", () => {
  it("says the common shapes with their time zone", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["0 9 * * 1", "Every Monday at 09:00"],
      ["30 7 * * *", "Every day at 07:30"],
      ["0 18 * * 1-5", "Every weekday at 18:00"],
      ["0 8 * * mon-fri", "Every weekday at 08:00"],
      ["0 10 * * 0,6", "Every Saturday and Sunday at 10:00"],
      ["0 10 * * 6-7", "Every Saturday and Sunday at 10:00"],
      ["15 9 * * 1,3,5", "Every Monday, Wednesday and Friday at 09:15"],
      ["0 9 * * 2,4", "Every Tuesday and Thursday at 09:00"],
      ["0 9 * * 7", "Every Sunday at 09:00"],
      ["0 9 * * 0-6", "Every day at 09:00"],
      ["0 6 1 * *", "On day 1 of every month at 06:00"],
      ["0 6 15 3 *", "Every year on 15 March at 06:00"],
      ["0 * * * *", "Every hour, on the hour"],
      ["20 * * * *", "Every hour at 20 past"],
      ["*/15 * * * *", "Every 15 minutes"],
      ["* * * * *", "Every minute"],
      ["  0   9 * *   1 ", "Every Monday at 09:00"]
    ]
    for (const [cron, words] of cases) assert.strictEqual(cronPhrase(cron), words, cron)
    assert.strictEqual(cronWords("0 9 * * 1", "Europe/Paris"), "Every Monday at 09:00 (Europe/Paris)")
  })

  it("shows any other expression as it is", () => {
    for (const cron of ["0 9 1-7 * 1", "0 9,17 * * *", "0 */2 * * *", "0 9 * 1-6 *", "5 4 * * sun#2", "0 9 * *", "0 25 * * *", "61 9 * * *", "0 9 * * 8", "0 9 * * 5-1"]) {
      assert.isUndefined(cronPhrase(cron), cron)
    }
    assert.strictEqual(cronWords("0 9 1-7 * 1", "UTC"), "0 9 1-7 * 1 (UTC)")
  })
})
