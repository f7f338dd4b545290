/**
 * The whole HTTP application as one layer, and the two ways to embed it: a
 * fetch-style handler (`Request` -> `Response`) and a Node `(req, res)`
 * handler, each mountable under a path prefix in an existing app.
 *
 * @since 0.1.0
 */
import { Authenticator, Cursor, type Idempotency, type Principal, type ServiceSecrets, type TenantStore, type Transactor, type WorkspaceStore } from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import type * as Http from "node:http"
import { Api } from "./Api.ts"
import { systemLayer, tenantsLayer, workspacesLayer } from "./Handlers.ts"
import { authenticationLayer, idempotentLayer, validationLayer } from "./Middleware.ts"
import * as ProblemResponses from "./ProblemResponses.ts"
import { ServiceInfo, type ServiceInfoShape } from "./ServiceInfo.ts"

/** The version of the service and of its API description. */
export const version = "0.1.0"

/** Where the OpenAPI document and the reference page are served. */
export const docsPaths = { openapi: "/v1/openapi.json", reference: "/v1/docs" } as const

/** The ports the application needs from a storage adapter. */
export type Stores =
  | TenantStore.TenantStore
  | WorkspaceStore.WorkspaceStore
  | Idempotency.IdempotencyStore
  | ServiceSecrets.ServiceSecrets
  | Transactor.Transactor

/** Everything the routes need, before storage. */
export type Requirements = Stores | Authenticator.Authenticator | Cursor.CursorCodec | ServiceInfo

const middleware = Layer.mergeAll(authenticationLayer, validationLayer, idempotentLayer)

/** The API's routes, documentation and problem handling, registered on the `HttpRouter`. */
export const routes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: docsPaths.openapi }),
  HttpApiScalar.layer(Api, { path: docsPaths.reference }),
  ProblemResponses.layer(Api, [["GET", docsPaths.openapi], ["GET", docsPaths.reference]])
).pipe(
  Layer.provide(Layer.mergeAll(systemLayer, tenantsLayer, workspacesLayer).pipe(Layer.provide(middleware))),
  Layer.provide(NodeHttpServer.layerHttpServices)
)

/** What an embedding app supplies. */
export interface Options<E> {
  /** Every store port: `MemoryStores.layer`, or a PostgreSQL / PGlite layer. */
  readonly stores: Layer.Layer<Stores, E>
  /** The public base URL of the mounted API, e.g. `https://example.com/analytics`. */
  readonly publicBaseUrl: string
  /** Serve under this path prefix, e.g. `/analytics`; requests outside it answer 404. */
  readonly prefix?: string | undefined
  /**
   * How bearer tokens become principals; by default the API tokens kept by
   * the TenantStore (and the operator token, when given).
   */
  readonly authenticator?: Layer.Layer<Authenticator.Authenticator, never, TenantStore.TenantStore> | undefined
  /** The operator token, which may only provision tenants. */
  readonly operatorToken?: string | undefined
  readonly info?: Partial<Omit<ServiceInfoShape, "publicBaseUrl">> | undefined
}

/** The full application layer for the given options, storage included. */
export const layer = <E>(options: Options<E>): Layer.Layer<never, E, HttpRouter.HttpRouter> =>
  routes.pipe(
    Layer.provide(Cursor.CursorCodec.layer.pipe(Layer.orDie)),
    Layer.provide(
      options.authenticator ??
        Authenticator.layerTokens({
          operatorToken: Option.map(Option.fromUndefinedOr(options.operatorToken), Redacted.make)
        })
    ),
    Layer.provide(ServiceInfo.layer({ version, ...options.info, publicBaseUrl: options.publicBaseUrl })),
    Layer.provide(options.stores)
  )

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

/** A fetch-style handler: `(Request) => Promise<Response>`, for Hono, Deno, Bun, workers or `node:http` adapters. */
export const webHandler = <E>(options: Options<E>): {
  readonly handler: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
} => {
  const { dispose, handler } = HttpRouter.toWebHandler(layer(options), { disableLogger: true })
  return {
    handler: (request) => {
      const url = new URL(request.url)
      const path = stripPrefix(url.pathname + url.search, options.prefix)
      if (path === undefined) return Promise.resolve(new Response(null, { status: 404 }))
      if (path === url.pathname + url.search) return handler(request)
      return handler(new Request(new URL(path, url.origin), request))
    },
    dispose
  }
}

/** A Node `(req, res)` handler, for `node:http`, Express, Fastify (raw) or Koa. */
export const nodeHandler = async <E>(options: Options<E>): Promise<{
  readonly handler: (request: Http.IncomingMessage, response: Http.ServerResponse) => void
  readonly dispose: () => Promise<void>
}> => {
  const scope = Effect.runSync(Scope.make())
  const handle = await Effect.runPromise(
    Effect.gen(function*() {
      const httpEffect = yield* HttpRouter.toHttpEffect(layer(options))
      return yield* NodeHttpServer.makeHandler(httpEffect, { scope })
    }).pipe(Scope.provide(scope))
  )
  return {
    handler: (request, response) => {
      const path = stripPrefix(request.url ?? "/", options.prefix)
      if (path === undefined) {
        response.writeHead(404).end()
        return
      }
      request.url = path
      handle(request, response)
    },
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** Re-exported for embedding apps that provide principals themselves. */
export type { Principal }
