/**
 * The webhooks screens' words, without a browser: a webhook's state (a
 * webhook an admin disabled is "Disabled"; one its receiver said is gone is
 * "Disabled after failures"), a delivery's status, a description for every
 * type of core's event catalog, and times in relative words.
 */
import { Events } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { deliveryWords, eventWords, inFlight, reasonWords, stateOf, stateWords, type Webhook } from "../src/console/Webhook.ts"
import { dateTime, relative, when } from "../src/i18n/Time.ts"

const webhook = (over: Partial<Webhook> = {}): Webhook => ({
  webhook_id: "wh1",
  url: "https://hooks.example.com/in",
  events: ["alert.fire"],
  workspace_id: null,
  description: null,
  enabled: true,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: "2026-11-26T10:00:00.000Z",
  updated_at: "2026-11-26T10:00:00.000Z",
  ...over
})

describe("the webhooks screens' words", () => {
  it("a webhook's state: enabled, disabled by an admin, disabled after failures", () => {
    assert.strictEqual(stateOf(webhook()), "enabled")
    assert.strictEqual(stateWords(webhook({ enabled: false, disabled_reason: "Disabled by an admin" })), "Disabled")
    assert.strictEqual(stateWords(webhook({ enabled: false, disabled_reason: "The receiver answered 410 Gone" })), "Disabled after failures")
    const at = "2026-11-26T12:53:26.810Z"
    assert.strictEqual(reasonWords(`The receiver answered 410 at ${at}`), `Why: The receiver answered 410 at ${dateTime(at)}`)
    assert.notInclude(reasonWords(`at ${at}`), "T12:53")
  })

  it("a delivery's status, and which ones the worker may still change", () => {
    assert.deepStrictEqual((["pending", "retrying", "succeeded", "failed"] as const).map(deliveryWords), ["Waiting", "Retrying", "Delivered", "Failed"])
    assert.deepStrictEqual((["pending", "retrying", "succeeded", "failed"] as const).map(inFlight), [true, true, false, false])
  })

  it("every type of the event catalog is described in words; an unknown type stands for itself", () => {
    for (const type of Events.eventTypes) assert.notStrictEqual(eventWords(type), type, `${type} has a description`)
    assert.strictEqual(eventWords("something.new"), "something.new")
  })

  it("times: relative words, and the date with them", () => {
    const now = Date.parse("2026-11-26T12:00:00.000Z")
    assert.strictEqual(relative("2026-11-26T11:55:00.000Z", now), "5 minutes ago")
    assert.strictEqual(relative("2026-11-27T11:59:59.000Z", now), "in 24 hours")
    assert.strictEqual(relative("2026-11-26T12:00:00.000Z", now), "now")
    assert.match(when("2026-11-26T11:55:00.000Z", now), /2026.*\(5 minutes ago\)$/)
  })
})
