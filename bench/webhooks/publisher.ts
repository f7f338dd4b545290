/**
 * The publishing side of `bench:webhooks`, in its own process (as the API
 * processes are): publishes events, each in its own transaction on
 * PostgreSQL, `concurrency` at a time or at a paced rate, and reports each
 * event's id and commit time over IPC.
 *
 * Messages: `{ databaseUrl, tenants }` to start, then `{ publish: n, concurrency }`
 * or `{ paced: n, rate }`; each answered `{ commits: [[id, at], ...] }`.
 */
import { SqlStores } from "@analytics/adapter-postgres"
import { EventPublisher, Events, type Tenant, Transactor } from "@analytics/core"
import { Effect, Fiber, Layer, ManagedRuntime, Redacted } from "effect"

interface Start {
  readonly databaseUrl: string
  readonly tenants: ReadonlyArray<{ readonly tenantId: Tenant.TenantId; readonly workspaceId: string }>
}

const start = await new Promise<Start>((resolve) => process.once("message", resolve as any))
const runtime = ManagedRuntime.make(
  EventPublisher.EventPublisher.layer.pipe(
    Layer.provideMerge(SqlStores.layerPg(Redacted.make(start.databaseUrl), { maxConnections: 20 }))
  )
)

/** Publishes event `i` in its own transaction; its id and commit time. */
const publishOne = (i: number) =>
  Effect.gen(function*() {
    const { tenantId, workspaceId } = start.tenants[i % start.tenants.length]
    const transactor = yield* Transactor.Transactor
    const event = yield* transactor.transaction(
      EventPublisher.publish(tenantId, "export.succeeded", workspaceId, Events.examples["export.succeeded"])
    )
    return [event.id, Date.now()] as const
  })

const publish = (n: number, concurrency: number) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), publishOne, { concurrency })

const paced = (n: number, rate: number) =>
  Effect.gen(function*() {
    const begin = Date.now()
    const fibers = []
    for (let i = 0; i < n; i++) {
      const wait = begin + (i * 1000) / rate - Date.now()
      if (wait > 0) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, wait)))
      fibers.push(yield* Effect.forkChild(publishOne(i)))
    }
    return yield* Fiber.joinAll(fibers)
  })

await runtime.runPromise(Effect.void)
process.send!({ ready: true })
process.on("message", async (message: { publish?: number; concurrency?: number; paced?: number; rate?: number }) => {
  const commits = message.publish !== undefined
    ? await runtime.runPromise(publish(message.publish, message.concurrency ?? 32))
    : await runtime.runPromise(paced(message.paced!, message.rate!))
  process.send!({ commits })
})
process.on("disconnect", () => void runtime.dispose().then(() => process.exit(0)))
