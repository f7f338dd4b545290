/**
 * The host's programs: `serve` (the full service), `work` (its background
 * work alone) and `migrate`; and `assemble`, the one assembly they and an
 * embedding app (`Service.ts`) share. The host only assembles: storage
 * adapter by configuration, the HTTP application, the background work, the
 * bootstrap tenant and the demo data.
 *
 * @since 0.1.0
 */
import { App, ExportRoutes, LastLineProblems, MetricsEndpoint, ViewerAssets } from "@analytics/adapter-http"
import { Argon2PasswordHasher, FileBlobStore, NodeCrypto } from "@analytics/adapter-node"
import { MemoryStores } from "@analytics/adapter-memory"
import { Documents } from "@analytics/adapter-documents"
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { Migrations, PgEngine, PgliteClient, SqlRateLimitStore, SqlStores } from "@analytics/adapter-postgres"
import { RedisRateLimitStore } from "@analytics/adapter-redis"
import { S3BlobStore } from "@analytics/adapter-s3"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { HttpsTransport } from "@analytics/adapter-webhook-https"
import * as Viewer from "@analytics/viewer/assets"
import {
  ApiToken,
  BlobStore,
  Branding,
  Datasets,
  EngineScheduler,
  EventPublisher,
  Mailer,
  RateLimitStore,
  ServiceSecrets,
  Session,
  SignedUrl,
  type Tenant,
  Tenants,
  Workers
} from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Console, Context, Deferred, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Fs from "node:fs/promises"
import type * as Http from "node:http"
import { createServer } from "node:http"
import * as Path from "node:path"
import { answererLayer } from "./AnswererChoice.ts"
import * as Demo from "./Demo.ts"
import type { HostConfig } from "./HostConfig.ts"
import * as Telemetry from "./Telemetry.ts"

/** Where rate-limit counts live, given the database the stores use when there is one. */
const rateLimitStoreLayer = (
  config: HostConfig,
  database: Layer.Layer<SqlClient.SqlClient, unknown> | undefined
): Layer.Layer<RateLimitStore.RateLimitStore, unknown> => {
  switch (config.rateLimitStore) {
    case "memory":
      return RateLimitStore.RateLimitStore.layerMemory
    case "redis":
      return RedisRateLimitStore.layerUrl(Redacted.value(Option.getOrThrow(config.redisUrl)))
    case "database":
      return database === undefined
        ? Layer.effect(RateLimitStore.RateLimitStore, Effect.fail("ANALYTICS_RATE_LIMIT_STORE=database needs a database"))
        : Layer.provide(SqlRateLimitStore.layer, database)
  }
}

/** The stores the configuration selects, rate-limit counts included. */
export const storesLayer = (config: HostConfig): Layer.Layer<App.Stores | RateLimitStore.RateLimitStore, unknown> => {
  // One layer value serves both: layers are shared by reference, so the database opens once.
  const onDatabase = (database: Layer.Layer<App.Stores | SqlClient.SqlClient, unknown>) =>
    Layer.merge(database, rateLimitStoreLayer(config, database))
  switch (config.store) {
    case "memory":
      return Layer.merge(MemoryStores.layer, rateLimitStoreLayer(config, undefined))
    case "pglite":
      return onDatabase(SqlStores.layerPglite({ dataDir: config.dataDir }))
    case "postgres":
      return onDatabase(SqlStores.layerPg(Option.getOrThrow(config.databaseUrl)))
  }
}

const bootstrapName = "Default"

/**
 * The bootstrap tenant: from `ANALYTICS_BOOTSTRAP_TOKEN`, or, when no token
 * at all is configured, one generated on first start and printed once, so
 * that `npm start` with no configuration gives a usable service.
 */
const bootstrap = (config: HostConfig) =>
  Effect.gen(function*() {
    if (Option.isSome(config.bootstrap)) {
      const { email, plan, token } = config.bootstrap.value
      const tenantId = yield* Tenants.ensureBootstrap({ token: Redacted.value(token), plan, name: bootstrapName, email })
      yield* Effect.logInfo("Bootstrap tenant ready").pipe(Effect.annotateLogs({ tenant_id: tenantId, plan }))
      return Option.some(tenantId)
    }
    if (Option.isSome(config.operatorToken)) return Option.none<Tenant.TenantId>()
    const secrets = yield* ServiceSecrets.ServiceSecrets
    let created = false
    const token = yield* secrets.getOrCreate(
      "bootstrap-admin-token",
      Effect.tap(ApiToken.generate, () => Effect.sync(() => (created = true)))
    )
    const tenantId = yield* Tenants.ensureBootstrap({ token, plan: "growth", name: bootstrapName })
    if (created) {
      yield* Console.log(
        `\nNo token configured: created tenant ${tenantId} with this admin token (shown once):\n\n  ${token}\n\n` +
          (config.console.signIn === "off" ? "Send it as\n" : `Sign in to the console at ${config.publicBaseUrl}/ with it ("Sign in with an API token"), or send it as\n`) +
          `"Authorization: Bearer <token>". Set ANALYTICS_BOOTSTRAP_TOKEN or ANALYTICS_OPERATOR_TOKEN to choose your own.\n`
      )
    } else {
      yield* Effect.logInfo("Default tenant ready; its admin token was printed at first start").pipe(
        Effect.annotateLogs({ tenant_id: tenantId })
      )
    }
    return Option.some(tenantId)
  })

/** SMTP when configured; otherwise each message is logged whole (its links included), marked as not sent. */
const mailerLayer = (config: HostConfig) =>
  Option.match(config.mail, {
    onNone: () => Mailer.Mailer.layerLogBecause("no SMTP_URL"),
    onSome: ({ from, url }) => SmtpMailer.layer({ url: Redacted.value(url), from })
  })

/** `GET /metrics` on a port of its own (`ANALYTICS_METRICS_PORT`), closed with the scope. */
const metricsServer = (port: number, token: Option.Option<Redacted.Redacted<string>>) =>
  Effect.acquireRelease(
    Effect.callback<Http.Server, Error>((resume) => {
      const server = createServer(MetricsEndpoint.listener({ token: Option.getOrUndefined(Option.map(token, Redacted.value)) }))
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.tap(() => Effect.logInfo("Metrics served").pipe(Effect.annotateLogs({ metrics_port: port }))))

/**
 * The analytics engines: for uploads embedded DuckDB (its directory made
 * first) or, on the PostgreSQL store without a DuckDB file, the store's
 * PostgreSQL itself; and PostgreSQL direct query when configured.
 */
const enginesOf = (config: HostConfig) => ({
  ...Option.match(config.datasets.duckdbPath, {
    onNone: () =>
      config.datasets.uploadsInDatabase && Option.isSome(config.databaseUrl)
        // A connection for each turn of the engine scheduler, and two for metadata (describe, drop) beside them.
        ? { upload: PgEngine.layerUploads(config.databaseUrl.value, { connections: config.datasets.engineConcurrency + 2 }) }
        : {},
    onSome: (path) => ({
      upload: Layer.unwrap(Effect.map(
        path === ":memory:" ? Effect.void : Effect.promise(() => Fs.mkdir(Path.dirname(path), { recursive: true })),
        () =>
          DuckDbEngine.layer(path, {
            memoryLimit: Option.getOrUndefined(config.datasets.duckdbMemoryLimit),
            threads: config.datasets.duckdbThreads,
            // A connection for each turn of the engine scheduler, and two for metadata (describe, drop) beside them.
            connections: config.datasets.engineConcurrency + 2
          })
      ))
    })
  }),
  ...Option.match(config.datasets.warehouseUrl, { onNone: () => ({}), onSome: (url) => ({ postgres: PgEngine.layer(url) }) })
})

/** Where export results are kept: an S3-compatible bucket, a directory, or this process's memory. */
const resultsLayer = (config: HostConfig) =>
  Option.match(config.exports.s3, {
    onSome: (s3) =>
      S3BlobStore.layer({
        endpoint: Option.getOrUndefined(s3.endpoint),
        region: s3.region,
        bucket: s3.bucket,
        prefix: s3.prefix,
        credentials: Option.getOrUndefined(s3.credentials),
        forcePathStyle: s3.forcePathStyle
      }),
    onNone: () =>
      Option.match(config.exports.directory, {
        onNone: () => BlobStore.BlobStore.layerMemory,
        onSome: (directory) => FileBlobStore.layer(directory)
      })
  })

/** The HTTP application the assembly serves: one request's answer, in the request's scope. */
export type HttpApp = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>

/**
 * What an embedding app plugs in place of the host's own parts, and what
 * this process runs; `serve` takes every default.
 */
export interface Parts {
  /** Run the background work here (`Workers`, its loops chosen by the configuration's switches); `false`: another process runs it (`analytics-host work`). */
  readonly workers: boolean
  /** How bearer tokens become principals (the App's `authenticator`); by default the API tokens the store keeps and the operator token. */
  readonly authenticator?: App.Options<unknown>["authenticator"]
  /** Sends the service's e-mail, the API's and the workers' alike; by default SMTP as configured (`SMTP_URL`), else logged. */
  readonly mailer?: Layer.Layer<Mailer.Mailer> | undefined
  /** The path the app is mounted under when the framework does not strip it (the console's links then start with it). */
  readonly prefix?: string | undefined
}

/** The stores, results, engines and their scheduler, built into the caller's scope: what the API and the workers share. */
const foundation = (config: HostConfig) =>
  Effect.gen(function*() {
    const stores = yield* Layer.build(storesLayer(config))
    const blobs = yield* Layer.build(resultsLayer(config))
    // One scheduler shares the engines between tenants for everything this process runs: the API, the export worker, the scheduler.
    const engineScheduler = Layer.succeed(EngineScheduler.EngineScheduler, yield* EngineScheduler.make({ capacity: config.datasets.engineConcurrency }))
    // Built once: a DuckDB file opens in one place, shared by the API, the demo and the scheduler.
    const engines = Context.get(yield* Layer.build(Datasets.Engines.layer(enginesOf(config)).pipe(Layer.provide(engineScheduler))), Datasets.Engines)
    const publisher = EventPublisher.EventPublisher.layer.pipe(Layer.provide(Layer.succeedContext(stores)))
    const withAnalytics = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.provideContext(stores), Effect.provideService(Datasets.Engines, engines), Effect.provide(publisher))
    // Before any load can begin: tables of loads a crash cut short (no record names them) are dropped.
    yield* withAnalytics(Datasets.sweepOrphanTables).pipe(
      Effect.catch((error) => Effect.logWarning("Orphan dataset tables could not be swept", error._tag))
    )
    return { stores, blobs, engineScheduler, engines, withAnalytics }
  })

type Foundation = Effect.Success<ReturnType<typeof foundation>>

/**
 * The background work (the export worker, webhook delivery, the scheduler,
 * the purges), each loop as the configuration's switches say
 * (`ANALYTICS_EXPORT_WORKER`, `ANALYTICS_WEBHOOK_WORKER`,
 * `ANALYTICS_SCHEDULER`), forked into the caller's scope.
 */
const startWorkers = (config: HostConfig, base: Foundation, mailer: Layer.Layer<Mailer.Mailer>) =>
  Effect.gen(function*() {
    const signer = Context.get(yield* Layer.build(SignedUrl.UrlSigner.layer.pipe(Layer.provide(Layer.succeedContext(base.stores)))), SignedUrl.UrlSigner)
    // Built into the caller's scope: the loops outlive the call that starts them (the SMTP transport stays open).
    const workerServices = yield* Layer.build(
      Layer.mergeAll(Documents.layer, mailer, HttpsTransport.layer({ allowPrivate: config.webhooks.allowPrivate }))
    )
    yield* Workers.start({
      exports: config.exports.worker
        ? { links: ExportRoutes.resultLinks(config.publicBaseUrl, signer, Context.get(base.blobs, BlobStore.BlobStore)), leaseMillis: config.exports.leaseSeconds * 1000 }
        : false,
      webhooks: config.webhooks.worker ? { leaseMillis: config.webhooks.leaseSeconds * 1000 } : false,
      scheduler: config.datasets.scheduler,
      sessions: Session.lifetimesOf(config.console.sessions),
      gauges: Option.isSome(config.metrics) || Option.isSome(config.otlp)
    }).pipe(
      // Given before the stores, so the configured mailer is the one used.
      Effect.provideContext(workerServices),
      Effect.provideContext(base.blobs),
      // documents in the deployment's colours and locale
      Effect.provideService(Branding.Branding, config.branding),
      base.withAnalytics
    )
  })

/** The HTTP application over the foundation: the API, the console, the share and embed pages with the viewer's assets. */
const httpApp = (config: HostConfig, base: Foundation, parts: Parts) => {
  const { blobs, engineScheduler, engines, stores } = base
  return HttpRouter.toHttpEffect(App.layer({
    stores: Layer.succeedContext(stores),
    rateLimitStore: Layer.succeedContext(stores),
    prefix: parts.prefix,
    authenticator: parts.authenticator,
    trustedProxies: config.trustedProxies,
    publicBaseUrl: config.publicBaseUrl,
    operatorToken: Option.getOrUndefined(Option.map(config.operatorToken, Redacted.value)),
    info: { webhookEgressAddresses: config.webhooks.egressAddresses, branding: { name: "Analytics", logoUrl: null, ...config.branding } },
    mailer: parts.mailer ?? mailerLayer(config),
    // ANALYTICS_CONSOLE_SIGN_IN, ANALYTICS_SESSION_IDLE_MINUTES, ANALYTICS_SESSION_ABSOLUTE_HOURS
    console: { signIn: config.console.signIn },
    sessions: config.console.sessions,
    engines: Datasets.Engines.layersOf(engines.bySource),
    engineScheduler,
    maxUploadBytes: config.datasets.maxUploadBytes,
    // A directory of the service's own, swept at start of what a killed process left.
    uploadDirectory: Path.join(config.dataDir, "uploads"),
    blobStore: Layer.succeedContext(blobs),
    renderers: Documents.layer,
    // The report viewer as built by `npm run build`; a host without it refuses to start, saying so.
    viewerAssets: ViewerAssets.ViewerAssets.layer(Viewer.load()),
    passwordHasher: Argon2PasswordHasher.layer,
    // POST /v1/ai/ask: an OpenAI-compatible model when ANALYTICS_AI_BASE_URL is set, else the built-in answerer, offline.
    answerer: answererLayer(config),
    // GET /metrics on the API's port only behind its token, and only when no port of its own is set.
    metrics: Option.getOrUndefined(Option.flatMap(
      Option.filter(config.metrics, (metrics) => Option.isNone(metrics.port)),
      (metrics) => Option.map(metrics.token, (token) => ({ token: Redacted.value(token) }))
    ))
  }))
}

/**
 * The whole service as the configuration describes it, built into the
 * caller's scope: the stores, the bootstrap tenant, the demo data, the
 * background work (unless `parts.workers` is false) and the HTTP
 * application, which it returns. What `serve` and an embedding app
 * (`Service.nodeHandler`) both run.
 */
export const assemble = (config: HostConfig, parts: Parts = { workers: true }) =>
  Effect.gen(function*() {
    const base = yield* foundation(config)
    const tenantId = yield* bootstrap(config).pipe(Effect.provideContext(base.stores))
    if (config.demo) {
      if (Option.isSome(tenantId)) {
        yield* base.withAnalytics(Demo.seed(tenantId.value))
      } else {
        yield* Effect.logWarning("ANALYTICS_DEMO=1 needs a bootstrap tenant: set ANALYTICS_BOOTSTRAP_TOKEN")
      }
    }
    const mailer = parts.mailer ?? mailerLayer(config)
    if (parts.workers) yield* startWorkers(config, base, mailer)
    return yield* httpApp(config, base, parts)
  })

/** `GET /metrics` on its own port when `ANALYTICS_METRICS_PORT` is set (`serve`, `work` and an embedding app alike). */
export const metricsPort = (config: HostConfig) =>
  Option.isSome(config.metrics) && Option.isSome(config.metrics.value.port)
    ? Effect.asVoid(metricsServer(config.metrics.value.port.value, config.metrics.value.token))
    : Effect.void

/** What every program of the host runs in: traces and metrics over OTLP when configured (flushed when it ends), node:crypto for core's hashes and signatures. */
export const runtimeLayer = (config: HostConfig) => Layer.merge(Telemetry.layer(config), NodeCrypto.layer)

/**
 * `analytics-host serve`: the whole service until a signal stops it.
 *
 * The port opens first and `/healthz` answers at once; API requests that
 * arrive while storage initialises (the first start of an embedded database
 * creates it, which takes seconds) wait for it rather than fail.
 */
export const serve = (config: HostConfig) =>
  Effect.gen(function*() {
    const app = yield* Deferred.make<HttpApp>()
    let ready: HttpApp | undefined
    const starting = HttpServerResponse.jsonUnsafe({ status: "ok", version: App.version })
    const gate = Effect.suspend(() =>
      ready ?? Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        request.method === "GET" && request.url === "/healthz"
          ? Effect.succeed(starting)
          : Effect.flatten(Deferred.await(app)))
    )
    yield* Layer.build(
      HttpServer.serve(gate).pipe(
        HttpServer.withLogAddress,
        // Requests Node's parser refuses (a CR in a header, 16 KiB of headers) are answered problem+json too.
        Layer.provide(NodeHttpServer.layer(() => LastLineProblems.answerParseErrors(createServer()), { port: config.port, gracefulShutdownTimeout: "10 seconds" }))
      )
    )
    yield* metricsPort(config)
    yield* Effect.logInfo("Initialising storage").pipe(
      Effect.annotateLogs({ store: config.store, rate_limit_store: config.rateLimitStore })
    )
    ready = yield* assemble(config)
    yield* Deferred.succeed(app, ready)
    yield* Effect.logInfo("Ready").pipe(
      Effect.annotateLogs({ port: config.port, store: config.store, public_base_url: config.publicBaseUrl })
    )
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(runtimeLayer(config)))

/**
 * `analytics-host work`: the background work alone, no HTTP port, on the
 * configured database, until a signal stops it: the export worker, webhook
 * delivery and the scheduler as their switches say, beside API processes
 * started with them off. Any number of these share the queues; run the
 * scheduler (`ANALYTICS_SCHEDULER`) in one process of a database. The
 * bootstrap tenant and the demo data are the API's (`serve`).
 */
export const work = (config: HostConfig) =>
  Effect.gen(function*() {
    yield* metricsPort(config)
    yield* Effect.logInfo("Initialising storage").pipe(
      Effect.annotateLogs({ store: config.store, rate_limit_store: config.rateLimitStore })
    )
    const base = yield* foundation(config)
    yield* startWorkers(config, base, mailerLayer(config))
    yield* Effect.logInfo("Working").pipe(
      Effect.annotateLogs({
        store: config.store,
        export_worker: config.exports.worker,
        webhook_worker: config.webhooks.worker,
        scheduler: config.datasets.scheduler
      })
    )
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(runtimeLayer(config)))

/** `analytics-host migrate`: applies pending migrations and exits. */
export const migrate = (config: HostConfig) =>
  Effect.gen(function*() {
    if (config.store === "memory") {
      yield* Effect.logInfo("ANALYTICS_STORE=memory has no schema to migrate")
      return
    }
    const client = config.store === "pglite"
      ? PgliteClient.layer({ dataDir: config.dataDir })
      : PgClient.layer({ url: Option.getOrThrow(config.databaseUrl) })
    const applied = yield* Migrations.migrate.pipe(Effect.provide(client))
    yield* Effect.logInfo(applied.length === 0 ? "The schema is up to date" : "Migrations applied").pipe(
      Effect.annotateLogs({ applied: applied.map(([id, name]) => `${id}_${name}`) })
    )
  })
