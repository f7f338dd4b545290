import { Events } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"

describe("Events", () => {
  it("the catalog has the twelve types of decision 0010", () => {
    assert.deepStrictEqual(Events.eventTypes, [
      "alert.fire",
      "alert.resolve",
      "export.succeeded",
      "export.failed",
      "dataset.refresh.started",
      "dataset.refresh.succeeded",
      "dataset.refresh.failed",
      "sharing.grant.created",
      "sharing.grant.revoked",
      "scim.user.provisioned",
      "scim.user.deprovisioned",
      "audit.event"
    ])
  })

  it.effect("make: the envelope of 2.8, a time-ordered id, created_at ISO 8601 UTC with milliseconds", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 12, 30, 0, 7))
      for (const type of Events.eventTypes) {
        const workspaceId = Events.tenantWide.has(type) ? "*" : "ws_1"
        const event = yield* Events.make(type, workspaceId, Events.examples[type])
        assert.deepStrictEqual(Object.keys(event), ["id", "type", "created_at", "workspace_id", "data"])
        assert.strictEqual(event.type, type)
        assert.strictEqual(event.created_at, "2026-11-21T12:30:00.007Z")
        assert.strictEqual(event.workspace_id, workspaceId)
        assert.deepStrictEqual(event.data, Events.examples[type])
        // Any event decodes as the union, told apart by its type.
        assert.deepStrictEqual(Schema.decodeUnknownSync(Events.Envelope)(JSON.parse(JSON.stringify(event))), event)
      }
      const a = yield* Events.make("alert.fire", "ws_1", Events.examples["alert.fire"])
      const b = yield* Events.make("alert.fire", "ws_1", Events.examples["alert.fire"])
      assert.notStrictEqual(a.id, b.id)
    }))

  it.effect("make refuses data that does not fit its type", () =>
    Effect.gen(function*() {
      const wrong = { ...Events.examples["export.succeeded"], bytes: "many" }
      const error = yield* Effect.flip(Events.make("export.succeeded", "ws_1", wrong as never))
      assert.include(String(error), "bytes")
      yield* Effect.flip(Events.make("alert.fire", "ws_1", { alert_id: "a" } as never))
      // Tenant-wide events name every workspace ("*"); workspace events name theirs, never "*".
      yield* Effect.flip(Events.make("scim.user.provisioned", "ws_1", Events.examples["scim.user.provisioned"]))
      yield* Effect.flip(Events.make("scim.user.provisioned", null as never, Events.examples["scim.user.provisioned"]))
      yield* Effect.flip(Events.make("alert.fire", "*", Events.examples["alert.fire"]))
      yield* Effect.flip(Events.make("alert.fire", null as never, Events.examples["alert.fire"]))
      yield* Effect.flip(Events.make("alert.fire", "", Events.examples["alert.fire"]))
      assert.strictEqual((yield* Events.make("audit.event", "*", Events.examples["audit.event"])).workspace_id, "*")
      assert.strictEqual((yield* Events.make("audit.event", "ws_1", Events.examples["audit.event"])).workspace_id, "ws_1")
      yield* Effect.flip(Events.make("audit.event", null as never, Events.examples["audit.event"]))
    }))

  it("workspace_id is a string in every envelope: never null; \"*\" for tenant-wide types, and only for them and the firehose", () => {
    for (const type of Events.eventTypes) {
      const envelope = { id: "e", type, created_at: "2026-11-21T12:30:00.007Z", data: Events.examples[type] }
      const decodes = (workspace_id: unknown) => Schema.is(Events.envelopeOf(type))({ ...envelope, workspace_id })
      assert.isFalse(decodes(null), `${type}: null`)
      assert.isFalse(decodes(undefined), `${type}: absent`)
      assert.strictEqual(decodes("*"), Events.tenantWide.has(type) || type === "audit.event", `${type}: "*"`)
      assert.strictEqual(decodes("ws_1"), !Events.tenantWide.has(type), `${type}: a workspace`)
      const schema = (Events.jsonSchemas()[type] as any).schema
      assert.strictEqual(schema.properties.workspace_id.type ?? schema.properties.workspace_id.anyOf?.[0]?.type, "string", type)
      assert.notInclude(JSON.stringify(schema.properties.workspace_id), "null", type)
    }
  })

  it("an unknown type or a mislabelled envelope does not decode", () => {
    const envelope = { id: "e", type: "alert.fire", created_at: "2026-11-21T12:30:00.007Z", workspace_id: "w", data: Events.examples["alert.fire"] }
    assert.doesNotThrow(() => Schema.decodeUnknownSync(Events.Envelope)(envelope))
    assert.throws(() => Schema.decodeUnknownSync(Events.Envelope)({ ...envelope, type: "alert.exploded" }))
    assert.throws(() => Schema.decodeUnknownSync(Events.Envelope)({ ...envelope, type: "export.failed" }))
    assert.throws(() => Schema.decodeUnknownSync(Events.Envelope)({ ...envelope, created_at: "2026-11-21T12:30:00Z" }))
  })

  it("the catalog as JSON Schema: one document per type, describing its envelope and data", () => {
    const schemas = Events.jsonSchemas() as Record<string, { schema: any; definitions?: unknown }>
    assert.deepStrictEqual(Object.keys(schemas), [...Events.eventTypes])
    const grant = JSON.stringify(schemas["sharing.grant.created"])
    for (const field of ["id", "type", "created_at", "workspace_id", "data", "subject_type", "principal_type", "watermark"]) {
      assert.include(grant, `"${field}"`)
    }
    assert.include(JSON.stringify(schemas["alert.fire"]), "alert.fire")
  })
})
