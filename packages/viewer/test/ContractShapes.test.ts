/**
 * The console's response shapes are the contract's: a value typed as the
 * console reads it (a webhook, a grant, a visual of the viewer's data)
 * goes through the contract's JSON codec, as the service's HTTP layer
 * serializes it, and comes out the same, so the console's type and the
 * wire agree (an instant is ISO text, a visual's `dimensions` are kept);
 * and the types themselves are checked against the schemas they name.
 */
import { Groups, type Json, ViewerData } from "@analytics/api"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { expectTypeOf } from "vitest"
import type { VisualData } from "../src/Data.ts"
import type { Grant } from "../src/elements/Grants.ts"
import type { Webhook } from "../src/console/Webhook.ts"

/** `value` encoded as the HTTP layer writes it, after decoding it as the service would read it. */
const throughTheWire = <S extends Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }>(schema: S, value: unknown): unknown => {
  const codec = Schema.toCodecJson(schema)
  return Schema.encodeSync(codec)(Schema.decodeUnknownSync(codec)(value))
}

const instant = "2026-11-26T10:00:00.000Z"

describe("the console's shapes from the contract", () => {
  it("a webhook as the console types it is what the contract's JSON carries: its instants as text", () => {
    const webhook: Webhook = {
      webhook_id: "0190a7e2-0000-7000-8000-000000000001",
      url: "https://hooks.example.com/in",
      events: ["alert.fire"],
      workspace_id: null,
      description: null,
      enabled: true,
      disabled_reason: null,
      previous_secret_expires_at: instant,
      created_at: instant,
      updated_at: instant
    }
    assert.deepStrictEqual(throughTheWire(Groups.Webhooks.WebhookJson, webhook), webhook)
    expectTypeOf<Webhook["created_at"]>().toEqualTypeOf<string>()
    expectTypeOf<Webhook>().toEqualTypeOf<Json<typeof Groups.Webhooks.WebhookJson>>()
  })

  it("a grant, with its maker and its openings", () => {
    const grant: Grant = {
      grant_id: "0190a7e2-0000-7000-8000-000000000002",
      workspace_id: "0190a7e2-0000-7000-8000-000000000003",
      subject_type: "report",
      subject_id: "0190a7e2-0000-7000-8000-000000000004",
      principal_type: "link",
      principal_id: null,
      email: null,
      invitation_id: null,
      actions: ["view", "download"],
      watermark: false,
      expires_at: instant,
      state: "active",
      revoked_at: null,
      paused: false,
      password_protected: true,
      link_url: "https://analytics.example.com/s/abc",
      label: "Board pack",
      last_opened_at: instant,
      open_count: 3,
      created_by: { type: "user", id: "0190a7e2-0000-7000-8000-000000000005" },
      created_at: instant,
      updated_at: instant
    }
    assert.deepStrictEqual(throughTheWire(Groups.Sharing.GrantJson, grant), grant)
    expectTypeOf<Grant["last_opened_at"]>().toEqualTypeOf<string | null>()
  })

  it("a visual of the viewer's data keeps which columns are dimensions (what a click on a mark tells)", () => {
    const visual: VisualData = {
      id: "v1",
      type: "bar",
      title: "Revenue by region",
      state: "rows",
      columns: ["region", "revenue"],
      dimensions: ["region"],
      rows: [{ region: "EU", revenue: 1 }],
      kind: "bar"
    }
    assert.deepStrictEqual(throughTheWire(ViewerData.VisualDataJson, visual), visual)
    expectTypeOf<VisualData>().toEqualTypeOf<Json<typeof ViewerData.VisualDataJson>>()
  })
})
