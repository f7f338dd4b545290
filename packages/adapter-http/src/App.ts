/**
 * The whole HTTP application as one layer, and the two ways to embed it: a
 * fetch-style handler (`Request` -> `Response`) and a Node `(req, res)`
 * handler, each mountable under a path prefix in an existing app.
 *
 * @since 0.1.0
 */
import { Api, Problems, Uploads } from "@analytics/api"
import {
  type Answerer,
  Authenticator,
  BlobStore,
  BuiltInAnswerer,
  Crypto,
  Cursor,
  Datasets,
  type DirectoryStore,
  DocumentRenderers,
  EngineScheduler,
  EventPublisher,
  Limiter,
  Mailer,
  PasswordHasher,
  RateLimitStore,
  Session,
  ShareTokens,
  SignedUrl,
  type Stores,
  TenantCache,
  type TenantStore
} from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import type * as Http from "node:http"
import {
  aiLayer,
  alertsLayer,
  auditLogLayer,
  brandingLayer,
  commentsLayer,
  dashboardsLayer,
  datasetsLayer,
  exportsLayer,
  exportSchedulesLayer,
  executiveRolesLayer,
  invitationAcceptanceLayer,
  invitationsLayer,
  reportsLayer,
  scimTokensLayer,
  sessionLayer,
  sharingLayer,
  systemLayer,
  teamsLayer,
  tenantsLayer,
  usersLayer,
  webhooksLayer,
  workspacesLayer
} from "./handlers/index.ts"
import { ServiceInfo, type ServiceInfoShape } from "./ServiceInfo.ts"
import * as ApiRoutes from "./edge/ApiRoutes.ts"
import * as Edge from "./edge/Edge.ts"
import { authenticationLayer, idempotentLayer, validationLayer } from "./edge/Middleware.ts"
import * as RequestCaller from "./edge/RequestCaller.ts"
import * as RequestObservability from "./edge/RequestObservability.ts"
import * as SessionCookie from "./edge/SessionCookie.ts"
import * as Console from "./routes/Console.ts"
import * as DatasetUploads from "./routes/DatasetUploads.ts"
import * as EmbedScript from "./routes/EmbedScript.ts"
import * as ExportRoutes from "./routes/ExportRoutes.ts"
import * as MetricsEndpoint from "./routes/MetricsEndpoint.ts"
import * as ReferencePage from "./routes/ReferencePage.ts"
import * as RouteTable from "./routes/RouteTable.ts"
import * as ScimRoutes from "./routes/ScimRoutes.ts"
import * as SharedRoutes from "./routes/SharedRoutes.ts"
import * as ViewerAssets from "./routes/ViewerAssets.ts"

/** The version of the service and of its API description. */
export const version = "0.1.0"

/** Where the OpenAPI document and the reference page are served. */
export const docsPaths = { openapi: "/v1/openapi.json", reference: "/v1/docs" } as const

/** The ports the application needs from a storage adapter (core's `Stores`). */
export type { Stores }

const middleware = Layer.mergeAll(authenticationLayer, validationLayer, idempotentLayer)

/**
 * `GET /v1/openapi.json`: the document derived from the contract, with the
 * `servers` entry this deployment is reached at (so generated clients call
 * the mounted prefix, not the site root).
 */
const openapiRoute = Layer.unwrap(Effect.gen(function*() {
  const info = yield* ServiceInfo
  // The upload is served beside the contract (its body is a file); its entry is added (`Uploads`).
  const document = HttpServerResponse.jsonUnsafe({ ...Uploads.withUpload(OpenApi.fromApi(Api)), servers: [{ url: info.publicBaseUrl }] })
  return HttpRouter.add("GET", docsPaths.openapi, document)
}))

/** How the edge treats requests. */
export interface EdgeOptions extends Edge.Options {
  /** The largest dataset file `PUT /v1/datasets/{id}/data` accepts, in bytes (default 1 GiB); other bodies stay capped at 1 MiB. */
  readonly maxUploadBytes?: number | undefined
  /**
   * Where uploaded files wait while they are checked and imported (default:
   * `analytics-uploads` in the OS's temporary directory); what a process
   * that died left there is removed at start.
   */
  readonly uploadDirectory?: string | undefined
}

/**
 * Serves `routes` behind the edge every request of the service goes
 * through (`Edge.serve`): for an app serving another contract (tests, an
 * embedding app's own API) with the same edge.
 */
export const withEdge = <Id extends string, Groups extends HttpApiGroup.Constraint, E, R>(
  api: HttpApi.HttpApi<Id, Groups>,
  routes: Layer.Layer<never, E, R>,
  options: Edge.Options = {}
) => Edge.serve(api, routes, options)

/** What `routes` serves: the edge's options, the upload's, and `GET /metrics` when `metrics` is given. */
type RoutesOptions = EdgeOptions & { readonly metrics?: MetricsEndpoint.Options | undefined }

/** The routes served beside the `HttpApi` contract's, one entry a set (`RouteTable`). */
const beside = [
  RouteTable.entry({ routes: [["GET", docsPaths.openapi]], layer: () => openapiRoute }),
  // Its script in files of its own, under a strict CSP (decision 0001).
  RouteTable.entry({ routes: ReferencePage.routes, layer: () => ReferencePage.layer(Api) }),
  RouteTable.entry({ routes: ScimRoutes.routes, layer: () => ScimRoutes.layer }),
  RouteTable.entry({ routes: SharedRoutes.routes, layer: () => SharedRoutes.layer, sharePage: SharedRoutes.isShared }),
  RouteTable.entry({ routes: EmbedScript.routes, layer: () => EmbedScript.layer }),
  RouteTable.entry({ routes: ViewerAssets.routes, layer: () => ViewerAssets.layer }),
  RouteTable.entry({ routes: Console.routes, layer: () => Console.layer }),
  RouteTable.entry({ routes: ExportRoutes.routes, layer: () => ExportRoutes.layer }),
  RouteTable.entry({
    routes: DatasetUploads.routes,
    layer: (options: RoutesOptions) => DatasetUploads.layer(options.maxUploadBytes, options.uploadDirectory),
    ownsBody: DatasetUploads.isUpload
  }),
  RouteTable.entry({
    routes: MetricsEndpoint.routes,
    layer: (options: RoutesOptions) => options.metrics === undefined ? undefined : MetricsEndpoint.layer(options.metrics)
  })
] as const

const routeOf = RequestObservability.routeTemplates(Api, RouteTable.allRoutes(beside))

/**
 * A request's server-span name, OpenTelemetry's way: its method and route
 * template (`GET /v1/webhooks/:webhook_id`), or the method alone when no
 * route matches. For `HttpMiddleware.SpanNameGenerator`.
 */
export const spanName = (request: HttpServerRequest.HttpServerRequest): string => {
  const route = routeOf(request.method, request.url)
  return route === RequestObservability.unmatched ? request.method : `${request.method} ${route}`
}

/** The API's routes and documentation, behind the edge; `GET /metrics` when `metrics` is given. */
export const routes = (options: RoutesOptions = {}) => {
  const served = RouteTable.served(beside, options)
  return Edge.serve(
    Api,
    Layer.merge(ApiRoutes.layer(Api), served.layer),
    options,
    served.routes,
    served.ownsBody,
    served.sharePage
  ).pipe(
    // The groups' handlers; the middleware merged in, not only provided to them: the compiled routes apply it themselves.
    Layer.provide(Layer.mergeAll(
      systemLayer,
      sessionLayer,
      tenantsLayer,
      workspacesLayer,
      webhooksLayer,
      usersLayer,
      teamsLayer,
      executiveRolesLayer,
      scimTokensLayer,
      invitationsLayer,
      invitationAcceptanceLayer,
      datasetsLayer,
      reportsLayer,
      alertsLayer,
      commentsLayer,
      dashboardsLayer,
      auditLogLayer,
      sharingLayer,
      brandingLayer,
      exportsLayer,
      exportSchedulesLayer,
      aiLayer
    ).pipe(Layer.provideMerge(middleware))),
    Layer.provide(NodeHttpServer.layerHttpServices)
  )
}

/** What an embedding app supplies. */
export interface Options<E> extends EdgeOptions {
  /** Every store port: `MemoryStores.layer`, or a PostgreSQL / PGlite layer. */
  readonly stores: Layer.Layer<Stores, E>
  /** The public base URL of the mounted API, e.g. `https://example.com/analytics`. */
  readonly publicBaseUrl: string
  /** Serve under this path prefix, e.g. `/analytics`; requests outside it answer 404. */
  readonly prefix?: string | undefined
  /**
   * How bearer tokens become principals; by default the API tokens kept by
   * the TenantStore (and the operator token, when given); users' personal
   * tokens are checked against the directory at each request.
   */
  readonly authenticator?:
    | Layer.Layer<Authenticator.Authenticator, never, TenantStore.TenantStore | DirectoryStore.DirectoryStore>
    | undefined
  /**
   * Where rate-limit counts live: by default this process's memory, right for
   * one process; several processes need one shared store.
   */
  readonly rateLimitStore?: Layer.Layer<RateLimitStore.RateLimitStore, E> | undefined
  /** The operator token, which may only provision tenants. */
  readonly operatorToken?: string | undefined
  /**
   * The analytics engines datasets run on, keyed by the source type each
   * serves (`Dataset.sourceTypes`): `upload` for uploaded files
   * (`DuckDbEngine.layer` from `@analytics/adapter-duckdb`), `postgres` for
   * tables of your PostgreSQL read in place (`PgEngine.layer`). Without one,
   * datasets of that type are refused (400 dataset/engine-unavailable).
   */
  readonly engines?: Datasets.EngineLayers<E> | undefined
  /**
   * How the engines are shared between tenants (`EngineScheduler`): at most
   * `capacity` queries, exports and imports at once in the process, each
   * tenant its fair share, the rest queued (default
   * `EngineScheduler.defaults`, 4 at once). Options make a scheduler of the
   * app's own; a layer shares one with work outside the app (the host's
   * export worker).
   */
  readonly engineScheduler?: EngineScheduler.Options | Layer.Layer<EngineScheduler.EngineScheduler> | undefined
  /**
   * Where export results are kept: `FileBlobStore.layer(dir)` from
   * `@analytics/adapter-node` for a directory, `S3BlobStore.layer(config)`
   * from `@analytics/adapter-s3` for a bucket (result URLs are then its
   * presigned URLs); by default this process's memory (results are lost at
   * exit).
   */
  readonly blobStore?: Layer.Layer<BlobStore.BlobStore, E> | undefined
  /**
   * What makes exported documents: `Documents.layer` from
   * `@analytics/adapter-documents`. Without it, document formats (pdf,
   * xlsx, png, pptx) are refused (400 export/invalid).
   */
  readonly renderers?: Layer.Layer<DocumentRenderers.DocumentRenderers> | undefined
  /**
   * The report viewer's built files: `ViewerAssets.layer(load())` with `load` from
   * `@analytics/viewer/assets`. Without them, shared reports are drawn on the server
   * only (charts as SVG, no filters to change, no page switcher).
   */
  readonly viewerAssets?: Layer.Layer<ViewerAssets.ViewerAssets> | undefined
  /**
   * Hashes public-link passwords: by default PBKDF2-SHA256 on Web Crypto
   * (`PasswordHasher.layerPbkdf2`); on Node, `Argon2PasswordHasher.layer`
   * from `@analytics/adapter-node` (Argon2id, what the host uses).
   */
  readonly passwordHasher?: Layer.Layer<PasswordHasher.PasswordHasher> | undefined
  /**
   * What turns questions into semantic queries and rows into words
   * (`POST /v1/ai/ask`): by default the built-in answerer, offline and
   * without a model (`BuiltInAnswerer.layer`).
   */
  readonly answerer?: Layer.Layer<Answerer.Answerer> | undefined
  /** Sends e-mail (invitations, sign-in links); by default messages are logged, not sent. */
  readonly mailer?: Layer.Layer<Mailer.Mailer> | undefined
  /**
   * How long console sessions last (decision 0022): ended after
   * `idleMinutes` unused (default 60) and `absoluteHours` after sign-in
   * whatever happens (default 12).
   */
  readonly sessions?: { readonly idleMinutes?: number | undefined; readonly absoluteHours?: number | undefined } | undefined
  /**
   * Serve the process's metrics at `GET /metrics` (Prometheus text), behind
   * `token` when given; not served by default. To serve them elsewhere, use
   * `MetricsEndpoint.listener` or `MetricsEndpoint.text`.
   */
  readonly metrics?: MetricsEndpoint.Options | undefined
  readonly info?: Partial<Omit<ServiceInfoShape, "publicBaseUrl">> | undefined
  /**
   * The web console, served at `/` (under `prefix`) when `viewerAssets`
   * holds its bundle: how people sign in to it (docs/guides/console.md).
   */
  readonly console?: Console.Options | undefined
  /**
   * `nodeHandler` only: the platform's cryptographic primitives for API token
   * hashes, sealed cursors and signatures. Web Crypto by default; on Node pass
   * `NodeCrypto.primitives` (`@analytics/adapter-node`), which computes them
   * synchronously, without a promise and a thread-pool round trip per call.
   */
  readonly crypto?: Crypto.Primitives | undefined
}

/** The engines' scheduler: the one given, or one made of the options given (the defaults when none). */
const schedulerLayer = (given: Options<unknown>["engineScheduler"]): Layer.Layer<EngineScheduler.EngineScheduler> =>
  given === undefined
    ? EngineScheduler.EngineScheduler.layer(EngineScheduler.defaults)
    : "capacity" in given
    ? EngineScheduler.EngineScheduler.layer(given)
    : given

/** The full application layer for the given options, storage included. */
export const layer = <E>(options: Options<E>): Layer.Layer<never, E, HttpRouter.HttpRouter> =>
  routes(options).pipe(
    Layer.provide(Layer.mergeAll(Cursor.CursorCodec.layer, ShareTokens.ShareTokens.layer, SignedUrl.UrlSigner.layer).pipe(Layer.orDie)),
    Layer.provide(options.blobStore ?? BlobStore.BlobStore.layerMemory),
    Layer.provide(options.renderers ?? DocumentRenderers.DocumentRenderers.none),
    Layer.provide(options.viewerAssets ?? ViewerAssets.ViewerAssets.none),
    Layer.provide(Console.ConsoleSettings.layer(options.console, options.prefix, options.publicBaseUrl)),
    Layer.provide(options.passwordHasher ?? PasswordHasher.PasswordHasher.layerPbkdf2),
    Layer.provide(RequestCaller.layerSessions),
    Layer.provide(Layer.succeed(SessionCookie.SessionLifetimes, Session.lifetimesOf(options.sessions))),
    Layer.provide(TenantCache.TenantCache.layer),
    Layer.provide(EventPublisher.EventPublisher.layer),
    Layer.provide(Datasets.Engines.layer(options.engines ?? {}).pipe(Layer.provide(schedulerLayer(options.engineScheduler)))),
    Layer.provide(options.mailer ?? Mailer.Mailer.layerLog),
    Layer.provide(options.answerer ?? BuiltInAnswerer.layer),
    Layer.provide(
      options.authenticator ??
        Authenticator.layerTokens({
          operatorToken: Option.map(Option.fromUndefinedOr(options.operatorToken), Redacted.make)
        })
    ),
    Layer.provide(ServiceInfo.layer({ version, ...options.info, publicBaseUrl: options.publicBaseUrl })),
    Layer.provide(Limiter.Limiter.layer.pipe(
      Layer.provide(options.rateLimitStore ?? RateLimitStore.RateLimitStore.layerMemory)
    )),
    Layer.provide(options.stores)
  )

/** The problem+json answer for a request the handler will not serve. */
const refusal = (status: 404 | 503, detail: string) => {
  const code = status === 404 ? "route/not-found" : "service/unavailable"
  return {
    status,
    body: JSON.stringify(Problems.undeclared(code, detail)),
    headers: { "content-type": "application/problem+json" }
  }
}

const stripPrefix = (url: string, prefix: string | undefined): string | undefined => {
  if (prefix === undefined || prefix === "" || prefix === "/") return url
  const normalized = prefix.replace(/\/+$/, "")
  if (url === normalized) return "/"
  if (url.startsWith(`${normalized}/`) || url.startsWith(`${normalized}?`)) {
    const rest = url.slice(normalized.length)
    return rest.startsWith("?") ? `/${rest}` : rest
  }
  return undefined
}

/** A fetch-style handler under a path prefix, and how to shut it down. */
export interface WebHandler {
  readonly handler: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
}

/** A Node `(req, res, next?)` handler under a path prefix, and how to shut it down. */
export interface NodeHandler {
  readonly handler: (request: Http.IncomingMessage, response: Http.ServerResponse, next?: () => void) => void
  readonly dispose: () => Promise<void>
}

/**
 * Serves a fetch-style handler under `prefix` (stripped before it sees the
 * request; a request outside it answers a 404 problem) and answers 503
 * once disposed: `webHandler`'s mount, for an app assembled otherwise
 * (the host's whole service).
 */
export const mountWeb = (
  handle: (request: Request) => Promise<Response>,
  prefix: string | undefined,
  dispose: () => Promise<void>
): WebHandler => {
  let disposed = false
  const refuse = (status: 404 | 503, detail: string) => {
    const { body, ...init } = refusal(status, detail)
    return Promise.resolve(new Response(body, init))
  }
  return {
    handler: (request) => {
      if (disposed) return refuse(503, "The analytics API has been shut down")
      const url = new URL(request.url)
      const path = stripPrefix(url.pathname + url.search, prefix)
      if (path === undefined) return refuse(404, `No route ${request.method} ${url.pathname}`)
      if (path === url.pathname + url.search) return handle(request)
      return handle(new Request(new URL(path, url.origin), request))
    },
    dispose: () => {
      disposed = true
      return dispose()
    }
  }
}

/**
 * Serves a Node handler under `prefix` (stripped from `req.url`; a request
 * outside it goes to `next` when given, else answers a 404 problem) and
 * answers 503 once disposed: `nodeHandler`'s mount, for an app assembled
 * otherwise (the host's whole service).
 */
export const mountNode = (
  handle: (request: Http.IncomingMessage, response: Http.ServerResponse) => void,
  prefix: string | undefined,
  dispose: () => Promise<void>
): NodeHandler => {
  let disposed = false
  const refuse = (response: Http.ServerResponse, status: 404 | 503, detail: string) => {
    const { body, headers } = refusal(status, detail)
    response.writeHead(status, headers).end(body)
  }
  return {
    handler: (request, response, next) => {
      if (disposed) return refuse(response, 503, "The analytics API has been shut down")
      const path = stripPrefix(request.url ?? "/", prefix)
      if (path === undefined) {
        return next === undefined ? refuse(response, 404, `No route ${request.method} ${request.url}`) : next()
      }
      request.url = path
      handle(request, response)
    },
    dispose: () => {
      disposed = true
      return dispose()
    }
  }
}

/** A fetch-style handler: `(Request) => Promise<Response>`, for Hono, Deno, Bun, workers or `node:http` adapters. */
export const webHandler = <E>(options: Options<E>): WebHandler => {
  const web = HttpRouter.toWebHandler(layer(options), { disableLogger: true })
  return mountWeb(web.handler, options.prefix, web.dispose)
}

/**
 * A Node `(req, res, next?)` handler, for `node:http`, Express, Fastify
 * (through middie) or Koa. A request outside `prefix` goes to `next` when
 * given (connect-style), else answers a 404 problem.
 */
export const nodeHandler = async <E>(options: Options<E>): Promise<NodeHandler> => {
  const scope = Effect.runSync(Scope.make())
  const handle = await Effect.runPromise(
    Effect.gen(function*() {
      const httpEffect = yield* HttpRouter.toHttpEffect(layer(options))
      return yield* NodeHttpServer.makeHandler(httpEffect, { scope })
    }).pipe(
      // What the app is built with, requests run with (makeHandler keeps this context).
      options.crypto === undefined ? (effect) => effect : Effect.provideService(Crypto.Crypto, options.crypto),
      Scope.provide(scope)
    )
  )
  return mountNode(handle, options.prefix, () => Effect.runPromise(Scope.close(scope, Exit.void)))
}
