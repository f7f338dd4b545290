import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import { type EngineScheduler, make, settingsOf, type TurnExpired } from "../src/limits/EngineScheduler.ts"

/**
 * A bench of work items: each, once started by the scheduler, records its
 * name and runs until its gate opens (`finish`) or it is interrupted.
 */
const bench = (scheduler: EngineScheduler["Service"]) =>
  Effect.gen(function*() {
    const started: Array<string> = []
    const gates = new Map<string, Deferred.Deferred<void>>()
    const fibers = new Map<string, Fiber.Fiber<void, TurnExpired>>()
    /** Submits work `name` of `tenant`; returns once the scheduler has seen it (started or queued). */
    const submit = (tenant: string, name: string, deadline?: number) =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        gates.set(name, gate)
        const work = Effect.andThen(Effect.sync(() => started.push(name)), Deferred.await(gate))
        fibers.set(name, yield* Effect.forkChild(scheduler.withTurn(tenant, deadline)(work)))
        yield* settle
      })
    const finish = (name: string) => Effect.andThen(Deferred.succeed(gates.get(name)!, undefined), settle)
    const fiber = (name: string) => fibers.get(name)!
    return { started, submit, finish, fiber }
  })

/** Lets forked fibers run until they block. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

const usageOf = (scheduler: EngineScheduler["Service"], tenant: string) =>
  Effect.map(scheduler.usage, (usage) => usage.tenants[tenant] ?? { running: 0, waiting: 0 })

describe("EngineScheduler", () => {
  it("completes its settings: a reserve of one from two slots, the rest a tenant's most", () => {
    assert.deepStrictEqual(settingsOf({ capacity: 1 }), { capacity: 1, perTenant: 1, reserved: 0 })
    assert.deepStrictEqual(settingsOf({ capacity: 2 }), { capacity: 2, perTenant: 1, reserved: 1 })
    assert.deepStrictEqual(settingsOf({ capacity: 8 }), { capacity: 8, perTenant: 7, reserved: 1 })
    assert.deepStrictEqual(settingsOf({ capacity: 8, reserved: 0 }), { capacity: 8, perTenant: 8, reserved: 0 })
    assert.deepStrictEqual(settingsOf({ capacity: 8, perTenant: 3 }), { capacity: 8, perTenant: 3, reserved: 1 })
    assert.deepStrictEqual(settingsOf({ capacity: 0, reserved: 5 }), { capacity: 1, perTenant: 1, reserved: 0 })
  })

  it.effect("a flooding tenant holds at most its share; another tenant starts at once on the reserved slot", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 4 })
      const b = yield* bench(scheduler)
      for (let i = 1; i <= 10; i++) yield* b.submit("B", `B${i}`)
      assert.deepStrictEqual(b.started, ["B1", "B2", "B3"], "three of four slots: one is kept for another tenant")
      assert.deepStrictEqual(yield* usageOf(scheduler, "B"), { running: 3, waiting: 7 })
      yield* b.submit("A", "A1")
      assert.deepStrictEqual(b.started, ["B1", "B2", "B3", "A1"], "A did not wait for B's work")
      // The engine is full: A's second waits. A slot freed while both hold some is kept in reserve;
      // when A's first ends, A (holding none) goes before B's older waiters.
      yield* b.submit("A", "A2")
      yield* b.finish("B1")
      assert.deepStrictEqual(b.started.slice(4), [])
      yield* b.finish("A1")
      assert.deepStrictEqual(b.started.slice(4), ["A2"])
      assert.deepStrictEqual(yield* scheduler.usage, {
        running: 3,
        waiting: 7,
        tenants: { A: { running: 1, waiting: 0 }, B: { running: 2, waiting: 7 } }
      })
      // A's done: B gets back to three slots, in its order (one kept free).
      yield* b.finish("A2")
      assert.deepStrictEqual(b.started.slice(5), ["B4"])
      assert.deepStrictEqual(yield* scheduler.usage, { running: 3, waiting: 6, tenants: { B: { running: 3, waiting: 6 } } })
    }))

  it.effect("a tenant's explicit share is its most even on an idle engine", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 4, reserved: 0, perTenant: 2 })
      const b = yield* bench(scheduler)
      for (let i = 1; i <= 4; i++) yield* b.submit("B", `B${i}`)
      assert.deepStrictEqual(b.started, ["B1", "B2"])
      yield* b.submit("C", "C1")
      yield* b.submit("C", "C2")
      assert.deepStrictEqual(b.started, ["B1", "B2", "C1", "C2"])
    }))

  it.effect("without a reserve, one tenant alone uses every slot (work-conserving)", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 3, reserved: 0 })
      const b = yield* bench(scheduler)
      for (let i = 1; i <= 4; i++) yield* b.submit("B", `B${i}`)
      assert.deepStrictEqual(b.started, ["B1", "B2", "B3"])
    }))

  it.effect("queues are first come first served within a tenant, and tenants take turns", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 1 })
      const b = yield* bench(scheduler)
      yield* b.submit("H", "H1")
      for (const name of ["A1", "A2", "A3"]) yield* b.submit("A", name)
      for (const name of ["B1", "B2"]) yield* b.submit("B", name)
      yield* b.submit("C", "C1")
      for (const name of ["H1", "A1", "B1", "C1", "A2", "B2", "A3"]) yield* b.finish(name)
      assert.deepStrictEqual(b.started, ["H1", "A1", "B1", "C1", "A2", "B2", "A3"])
    }))

  it.effect("a freed slot goes to the waiting tenant that holds the fewest, even one served more recently, before older waiters", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 4, reserved: 0 })
      const b = yield* bench(scheduler)
      for (const name of ["B1", "B2", "B3"]) yield* b.submit("B", name)
      yield* b.submit("A", "A1")
      yield* b.submit("B", "B4")
      yield* b.submit("A", "A2")
      yield* b.finish("B1")
      assert.deepStrictEqual(b.started, ["B1", "B2", "B3", "A1", "A2"], "A holds one to B's two")
    }))

  it.effect("a wait past its deadline fails with TurnExpired and leaves the queue; a turn within it runs", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 1 })
      const b = yield* bench(scheduler)
      yield* b.submit("B", "B1")
      yield* b.submit("A", "A1", 5_000)
      yield* b.submit("A", "A2", 60_000)
      yield* TestClock.adjust(4_999)
      assert.strictEqual(b.fiber("A1").pollUnsafe(), undefined, "still waiting at 4,999 ms")
      yield* TestClock.adjust(1)
      const error = yield* Effect.flip(Fiber.join(b.fiber("A1")))
      assert.strictEqual(error._tag, "TurnExpired")
      assert.strictEqual(error.tenant, "A")
      assert.strictEqual(error.waitedMillis, 5_000)
      assert.deepStrictEqual(yield* usageOf(scheduler, "A"), { running: 0, waiting: 1 })
      yield* b.finish("B1")
      assert.deepStrictEqual(b.started, ["B1", "A2"], "the expired wait never ran; the next one did")
      yield* TestClock.adjust(120_000)
      assert.strictEqual(b.fiber("A2").pollUnsafe(), undefined, "a running turn has no deadline")
    }))

  it.effect("interrupting running work gives its slot back; interrupting a wait leaves the queue", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 1 })
      const b = yield* bench(scheduler)
      yield* b.submit("B", "B1")
      yield* b.submit("B", "B2")
      yield* b.submit("A", "A1")
      yield* Fiber.interrupt(b.fiber("A1"))
      assert.deepStrictEqual(yield* scheduler.usage, { running: 1, waiting: 1, tenants: { B: { running: 1, waiting: 1 } } })
      yield* Fiber.interrupt(b.fiber("B1"))
      yield* settle
      assert.deepStrictEqual(b.started, ["B1", "B2"])
      assert.deepStrictEqual(yield* scheduler.usage, { running: 1, waiting: 0, tenants: { B: { running: 1, waiting: 0 } } })
    }))

  it.effect("failing work gives its slot back", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 1 })
      const failed = yield* Effect.flip(scheduler.withTurn("B")(Effect.fail("boom")))
      assert.strictEqual(failed, "boom")
      assert.deepStrictEqual(yield* scheduler.usage, { running: 0, waiting: 0, tenants: {} })
      assert.strictEqual(yield* scheduler.withTurn("A")(Effect.succeed(1)), 1)
    }))

  it.effect("a turn held by a scope (streamed work) is given back when the scope closes", () =>
    Effect.gen(function*() {
      const scheduler = yield* make({ capacity: 1 })
      const scope = yield* Scope.make()
      yield* Scope.provide(scheduler.turn("B"), scope)
      assert.deepStrictEqual((yield* scheduler.usage).running, 1)
      const b = yield* bench(scheduler)
      yield* b.submit("A", "A1")
      assert.deepStrictEqual(b.started, [])
      yield* Scope.close(scope, Exit.void)
      yield* settle
      assert.deepStrictEqual(b.started, ["A1"])
    }))
})
