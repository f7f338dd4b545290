/**
 * The service as a host runs it, in a child process of the benchmark: the
 * HTTP API (`App.nodeHandler`) on a loopback port, DuckDB for uploads, the
 * export worker looping over the same stores (`Workers.start`, as the host), results in a directory
 * (`FileBlobStore`), PDFs by `Documents.layer`. Only what differs from
 * `packages/host`: memory stores, no rate limits a run reaches, and a
 * worker that looks for jobs every 50 ms when idle (the host: every
 * second), so that a job's time is the export's, not the wait for a claim.
 *
 * Sends `{ port }` to its parent when it listens; the operator token is
 * `bench-operator`. Environment: `BENCH_DIR`, `BENCH_MEMORY_LIMIT`,
 * `BENCH_THREADS`.
 */
import { Documents } from "@analytics/adapter-documents"
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { App, ExportRoutes } from "@analytics/adapter-http"
import { FileBlobStore } from "@analytics/adapter-node"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, Datasets, EngineScheduler, EventPublisher, Mailer, RateLimit, SignedUrl, Workers } from "@analytics/core"
import { Context, Effect, Layer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"

const operatorToken = "bench-operator"

const dir = process.env["BENCH_DIR"]!
const memoryLimit = process.env["BENCH_MEMORY_LIMIT"] || undefined
const threads = process.env["BENCH_THREADS"] ? Number(process.env["BENCH_THREADS"]) : undefined

const main = Effect.gen(function*() {
  const stores = yield* Layer.build(MemoryStores.layer)
  const engine = Context.get(
    yield* Layer.build(DuckDbEngine.layer(join(dir, "service.duckdb"), { memoryLimit, threads, tempDirectory: join(dir, "service-spill") })),
    AnalyticsEngine.AnalyticsEngine
  )
  const engineLayer = Layer.succeed(AnalyticsEngine.AnalyticsEngine, engine)
  const blobs = yield* Layer.build(FileBlobStore.layer(join(dir, "exports")))
  // Longer than the runner's pauses between calls (a peer's export), so that it never reuses a connection the server is closing.
  const server = Http.createServer({ keepAliveTimeout: 600_000 })
  yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const unlimited = { burst: RateLimit.bucket(1_000_000_000), sustained: RateLimit.window(1_000_000_000) }
  const app = yield* Effect.promise(() =>
    App.nodeHandler({
      stores: Layer.succeedContext(stores),
      publicBaseUrl: base,
      operatorToken,
      rateLimits: () => unlimited,
      engines: { upload: engineLayer },
      blobStore: Layer.succeedContext(blobs),
      renderers: Documents.layer,
      maxUploadBytes: 16 * 1024 ** 3
    })
  )
  server.on("request", app.handler)
  const signer = Context.get(yield* Layer.build(SignedUrl.UrlSigner.layer.pipe(Layer.provide(Layer.succeedContext(stores)))), SignedUrl.UrlSigner)
  const services = yield* Layer.build(Layer.mergeAll(
    EventPublisher.EventPublisher.layer,
    Datasets.Engines.layer({ upload: engineLayer }).pipe(Layer.provide(EngineScheduler.EngineScheduler.layer())),
    Documents.layer,
    Mailer.Mailer.layerMemory
  ).pipe(Layer.provide(Layer.succeedContext(stores))))
  // The host's background work (`Workers.start`), only the export worker's loop here, looking for jobs every 50 ms when idle.
  yield* Workers.start({ exports: { links: ExportRoutes.resultLinks(base, signer), idleMillis: 50 }, webhooks: false, scheduler: false }).pipe(
    Effect.provideContext(services),
    Effect.provideContext(blobs),
    Effect.provideContext(stores)
  )
  process.send!({ port: (server.address() as AddressInfo).port })
  yield* Effect.never
})

if (process.send !== undefined) Effect.runFork(Effect.scoped(main))
