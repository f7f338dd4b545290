/**
 * What the export tests (and the sharing tests) share: a server on a real
 * DuckDB engine and a blob store, the export worker as a host runs it (the
 * same engine, store, renderers and mailer; result links for
 * http://127.0.0.1), stepped by the test or running in the background
 * (`Workers.start`, as the host runs it), a tenant, and the sales overview: the workspace
 * "Sales", the dataset "Orders" of 90 orders over three regions with its
 * row-level security, and the report "Sales overview" with the visual
 * `by_region`.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, BlobStore, Datasets, DocumentRenderers, EngineScheduler, EventPublisher, type Exports, ExportWorker, Mailer, SignedUrl, Workers } from "@analytics/core"
import { assert } from "@effect/vitest"
import { type Clock, Context, Effect, Layer, type Scope } from "effect"
import type * as App from "../src/App.ts"
import * as ExportRoutes from "../src/routes/ExportRoutes.ts"
import { start, type TestServer } from "./TestServer.ts"

/** The orders' regions: order n (1 to 90) is in `regions[(n - 1) % 3]`. */
export const regions = ["EU", "US", "APAC"]

/** The 90 orders as CSV: order n amounts to n. */
export const orders = ["region,amount", ...Array.from({ length: 90 }, (_, i) => `${regions[i % 3]},${i + 1}`)].join("\n")

/** How a suite's server differs from the default one (memory stores, DuckDB and results in memory, no renderers, mail kept in memory). */
export interface ServeOptions {
  readonly stores?: Layer.Layer<App.Stores, unknown> | undefined
  /** The DuckDB database file. */
  readonly database?: string | undefined
  /** Where results are kept. */
  readonly blobStore?: Layer.Layer<BlobStore.BlobStore, unknown> | undefined
  /** Every write to the blob store waits this long first: slow writes stand for a big file. */
  readonly slowWritesMillis?: number | undefined
  /** What makes documents (pdf, xlsx, pptx, png): without them these formats are refused. */
  readonly renderers?: Layer.Layer<DocumentRenderers.DocumentRenderers> | undefined
  /** Sends the server's mail (invitations) and the worker's (scheduled exports). */
  readonly mailer?: Layer.Layer<Mailer.Mailer> | undefined
  /** The worker's lease on a job (default: the worker's own). */
  readonly leaseMillis?: number | undefined
  /** The service's public base URL is the server's own (links a browser follows), not http://127.0.0.1. */
  readonly atOwnUrl?: boolean | undefined
  /** The server's other options (rate limits, trusted proxies). */
  readonly server?: Omit<App.Options<unknown>, "stores" | "publicBaseUrl" | "engines" | "blobStore" | "renderers" | "mailer"> | undefined
}

/** A server and the export worker beside it. */
export interface ExportServer {
  readonly server: TestServer
  /** Runs every due export job once; how many ran. */
  readonly worker: Effect.Effect<number, unknown>
  /** The export worker in the background for the scope, as a host runs it (`Workers.start`), looking for jobs every 200 ms when idle. */
  readonly workers: Effect.Effect<void, never, Scope.Scope>
  /** What the worker runs with besides the stores (engines, blob store, renderers, mailer, event publisher), for a test's own `Workers.start`. */
  readonly services: Context.Context<Workers.ExportServices extends infer R ? Exclude<R, App.Stores> : never>
  /** The result links the worker makes. */
  readonly links: Exports.ResultLinks
  /** Signs result URLs, as the server does. */
  readonly signer: SignedUrl.UrlSigner["Service"]
  /** A result URL as a path on the test server (the service believes it is at http://127.0.0.1, without the port). */
  readonly local: (url: string) => string
}

/** Starts the server and builds its export worker: one engine, blob store, renderers and mailer shared by both, as on a host. */
export const serve = (options: ServeOptions = {}): Effect.Effect<ExportServer, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const engine = Context.get(yield* Layer.build(DuckDbEngine.layer(options.database ?? ":memory:")), AnalyticsEngine.AnalyticsEngine)
    const engineLayer = Layer.succeed(AnalyticsEngine.AnalyticsEngine, engine)
    const store = Context.get(yield* Layer.build(options.blobStore ?? BlobStore.BlobStore.layerMemory), BlobStore.BlobStore)
    const slowWrites = options.slowWritesMillis
    const blobs: BlobStore.BlobStore["Service"] = slowWrites === undefined
      ? store
      : { ...store, put: (key, body) => Effect.andThen(Effect.sleep(slowWrites), store.put(key, body)) }
    const blobLayer = Layer.succeed(BlobStore.BlobStore, blobs)
    const renderers = options.renderers ?? DocumentRenderers.DocumentRenderers.none
    const mailer = options.mailer ?? Mailer.Mailer.layerMemory
    const server = yield* start(options.stores ?? MemoryStores.layer, { ...options.server, atOwnUrl: options.atOwnUrl, engines: { upload: engineLayer }, blobStore: blobLayer, renderers, mailer })
    const signer = Context.get(yield* Layer.build(SignedUrl.UrlSigner.layer.pipe(Layer.provide(Layer.succeedContext(server.stores)))), SignedUrl.UrlSigner)
    // Built in the fixture's scope, not per call: the background loops outlive the call that starts them.
    const services = yield* Layer.build(Layer.mergeAll(
      EventPublisher.EventPublisher.layer,
      Datasets.Engines.layer({ upload: engineLayer }).pipe(Layer.provide(EngineScheduler.EngineScheduler.layer())),
      blobLayer,
      renderers,
      mailer
    ).pipe(Layer.provide(Layer.succeedContext(server.stores))))
    // With the store, as a host passes it: a store that presigns (S3) makes the result URLs.
    const links = ExportRoutes.resultLinks("http://127.0.0.1", signer, blobs)
    const leaseMillis = options.leaseMillis ?? ExportWorker.defaults.leaseMillis
    const worker = ExportWorker.runDue({ ...ExportWorker.defaults, leaseMillis, links }).pipe(
      Effect.provideContext(services),
      Effect.provideContext(server.stores)
    )
    const workers = Workers.start({ exports: { links, leaseMillis, idleMillis: 200 }, webhooks: false, scheduler: false }).pipe(
      Effect.provideContext(services),
      Effect.provideContext(server.stores)
    )
    const local = (url: string) => url.replace("http://127.0.0.1/", "/")
    return { server, worker, workers, services, links, signer, local }
  })

/** A tenant: its id, its admin's token, and `ok`, which calls the server (as the admin unless told) and asserts the call succeeded. */
export interface FixtureTenant {
  readonly tenantId: string
  readonly admin: string
  readonly ok: (method: string, path: string, body?: unknown, token?: string) => Effect.Effect<any>
}

/** Provisions a tenant on `server`. */
export const provision = (server: TestServer): Effect.Effect<FixtureTenant> =>
  Effect.map(server.tenant(), ({ tenantId, token: admin }) => ({
    tenantId,
    admin,
    ok: (method, path, body, token = admin) =>
      Effect.map(server.request(method, path, { token, body }), (r) => {
        assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
        return r.body
      })
  }))

/** The visual the suites export: the total amount by region, ordered by region, as a bar chart unless `drawn` says otherwise (type, title, encoding). */
export const byRegion = (datasetId: string, drawn: object = {}) => ({
  id: "by_region",
  type: "bar",
  dataset_id: datasetId,
  query: { measures: ["total_amount"], dimensions: ["region"], order: [{ member: "region" }] },
  encoding: { x: "region", y: ["total_amount"] },
  ...drawn
})

/** How a suite's sales overview differs from the default one. */
export interface SalesOptions {
  /** The dataset's row-level security (default: admins see every row, no one else any). */
  readonly rowLevelSecurity?: ReadonlyArray<object> | undefined
  /** The report's visuals, given the dataset's id (default: `by_region` alone). */
  readonly visuals?: ((datasetId: string) => ReadonlyArray<object>) | undefined
  /** The report's settings. */
  readonly settings?: object | undefined
}

/** The sales overview's ids. */
export interface SalesOverview {
  readonly workspaceId: string
  readonly datasetId: string
  readonly reportId: string
}

/** Arranges the sales overview in `tenant` over HTTP: the report has one page, "Overview". */
export const salesOverview = (server: TestServer, tenant: FixtureTenant, options: SalesOptions = {}): Effect.Effect<SalesOverview> =>
  Effect.gen(function*() {
    const { admin, ok } = tenant
    const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id as string
    const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } })).dataset_id as string
    const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: orders, headers: { "content-type": "text/csv" } })
    assert.strictEqual(loaded.status, 200, loaded.text)
    const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
    yield* ok("PATCH", `/v1/datasets/${datasetId}`, { model: { ...model, row_level_security: options.rowLevelSecurity ?? [{ roles: ["admin"], all_rows: true }] } })
    const report = yield* ok("POST", "/v1/reports", {
      workspace_id: workspaceId,
      name: "Sales overview",
      pages: [{ name: "Overview", visuals: options.visuals?.(datasetId) ?? [byRegion(datasetId)] }],
      settings: options.settings
    })
    return { workspaceId, datasetId, reportId: report.report_id as string }
  })

/** Starts the server and its worker, provisions a tenant, and arranges its sales overview. */
export const setup = (options: ServeOptions & SalesOptions = {}): Effect.Effect<ExportServer & FixtureTenant & SalesOverview, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const fixture = yield* serve(options)
    const tenant = yield* provision(fixture.server)
    return { ...fixture, ...tenant, ...(yield* salesOverview(fixture.server, tenant, options)) }
  })

/** The live clock moved `offsetMillis` ahead: the scheduler and the worker as they will be then. */
export const shifted = (live: Clock.Clock, offsetMillis: number): Clock.Clock => ({
  monotonicTimeNanosUnsafe: () => live.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: live.monotonicTimeNanos,
  sleep: (duration) => live.sleep(duration),
  currentTimeMillisUnsafe: () => live.currentTimeMillisUnsafe() + offsetMillis,
  currentTimeMillis: Effect.sync(() => live.currentTimeMillisUnsafe() + offsetMillis),
  currentTimeNanosUnsafe: () => live.currentTimeNanosUnsafe() + BigInt(offsetMillis) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => live.currentTimeNanosUnsafe() + BigInt(offsetMillis) * 1_000_000n)
})
