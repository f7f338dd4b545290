/**
 * The whole service inside an existing app, in one call: the API, the
 * console, the share and embed pages with the viewer's assets, and the
 * background work (exports, webhook delivery, scheduled exports, refreshes
 * and alerts, purges), all assembled from the host's configuration exactly
 * as `analytics-host serve` assembles them (`Main.assemble`), the same
 * environment variables included (`HostConfig.fromEnv`).
 *
 * `App.nodeHandler` / `App.webHandler` of `@analytics/adapter-http` are the
 * lean embedding, each port chosen by the app and no background work; these
 * are the whole service (docs/guides/embedding.md, decision 0026).
 *
 * @since 0.1.0
 */
import { App } from "@analytics/adapter-http"
import type { Mailer } from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Scope } from "effect"
import { HttpEffect, type HttpServerRequest } from "effect/http"
import * as HostConfig from "./HostConfig.ts"
import * as Main from "./Main.ts"
import * as PinoLogger from "./PinoLogger.ts"

/** What an embedding app may choose; everything else comes from the configuration. */
export interface Options {
  /** The host's configuration; by default read from this process's environment (`HostConfig.fromEnv()`), the host's variables. */
  readonly config?: HostConfig.HostConfig | undefined
  /**
   * Serve under this path prefix, e.g. `/analytics`, when the framework does
   * not strip the mount path (node:http, Hono); not with Express or
   * Fastify's middie, which strip it. Either way `PUBLIC_BASE_URL` names
   * the mounted URL (`https://example.com/analytics`).
   */
  readonly prefix?: string | undefined
  /**
   * How bearer tokens become principals (the App's `authenticator`): the
   * app's own sessions, say; by default the API tokens the store keeps and
   * `ANALYTICS_OPERATOR_TOKEN`.
   */
  readonly authenticator?: App.Options<unknown>["authenticator"]
  /** Sends the service's e-mail (sign-in links, invitations, scheduled exports); by default SMTP from `SMTP_URL`, else logged. */
  readonly mailer?: Layer.Layer<Mailer.Mailer> | undefined
  /**
   * Run the background work in this process (default `true`; the
   * configuration's switches still choose its loops). `false`: exports and
   * webhooks wait for another process on the same database running it
   * (`analytics-host work`, or `Workers.layer` of `@analytics/core`).
   */
  readonly workers?: boolean | undefined
}

/** The warning an app without workers logs at start: otherwise exports would wait, silently. */
export const noWorkersWarning =
  "Background work is off in this process (workers: false): exports, scheduled exports and webhook deliveries wait for a worker process on the same database (analytics-host work)"

/**
 * Assembles the service into a scope of its own and makes the handler with
 * the context it was built in (pino at `LOG_LEVEL`, node:crypto, OTLP when
 * configured), so requests run with it; closing the scope stops the work,
 * closes the stores and flushes telemetry.
 */
const open = async <H>(
  options: Options,
  make: (app: Main.HttpApp) => Effect.Effect<H, never, Scope.Scope>
): Promise<{ readonly handle: H; readonly dispose: () => Promise<void> }> => {
  const config = options.config ?? (await HostConfig.fromEnv())
  const workers = options.workers ?? true
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(
    Effect.gen(function*() {
      const runtime = yield* Layer.build(Layer.merge(Main.runtimeLayer(config), PinoLogger.layer({ level: config.logLevel })))
      return yield* Effect.gen(function*() {
        if (!workers) yield* Effect.logWarning(noWorkersWarning)
        yield* Main.metricsPort(config)
        const app = yield* Main.assemble(config, {
          workers,
          authenticator: options.authenticator,
          mailer: options.mailer,
          prefix: options.prefix
        })
        return yield* make(app)
      }).pipe(Effect.provideContext(runtime))
    }).pipe(Scope.provide(scope))
  )
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    const error = Cause.squash(exit.cause)
    throw error instanceof Error ? error : new Error(`The analytics service could not start: ${String(error)}`)
  }
  return { handle: exit.value, dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/**
 * The whole service as a Node `(req, res, next?)` handler, for `node:http`,
 * Express, Fastify (through middie) or Koa; resolves once the stores are
 * ready (migrations applied) and the background work has started. A
 * request outside `prefix` goes to `next` when given, else answers a 404
 * problem. `dispose` stops the work and closes the stores.
 */
export const nodeHandler = async (options: Options = {}): Promise<App.NodeHandler> => {
  const { dispose, handle } = await open(options, (app) =>
    Effect.flatMap(Effect.scope, (scope) => NodeHttpServer.makeHandler(app, { scope })))
  return App.mountNode(handle, options.prefix, dispose)
}

/**
 * The whole service as a fetch-style handler (`Request` -> `Response`),
 * for Hono or a `node:http` adapter on Node; as `nodeHandler` otherwise.
 */
export const webHandler = async (options: Options = {}): Promise<App.WebHandler> => {
  const { dispose, handle } = await open(options, (app) =>
    Effect.map(
      Effect.context<never>(),
      (context) => HttpEffect.toWebHandlerWith<never, HttpServerRequest.HttpServerRequest | Scope.Scope>(context)(app)
    ))
  return App.mountWeb((request) => handle(request), options.prefix, dispose)
}
