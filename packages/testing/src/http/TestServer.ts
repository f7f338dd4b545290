/**
 * A real HTTP server on a loopback socket, serving the whole application
 * with the stores given, built inside the test's Effect context so that
 * request fibers see the test's Clock (TestClock in `it.effect`).
 *
 * The application is a parameter (`App` from `@analytics/adapter-http`),
 * seen by its shape: this kit depends on no adapter.
 */
import type { Stores } from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { type Context, Effect, Layer, type Scope } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** The operator token every test server accepts. */
export const operatorToken = "test-operator-token"

/** The rate-limit headers every rate-limited answer carries (decision 0009), lower case. */
export const rateLimitHeaders: ReadonlyArray<string> = [
  "x-ratelimit-limit-burst",
  "x-ratelimit-remaining-burst",
  "x-ratelimit-reset-burst",
  "x-ratelimit-limit-sustained",
  "x-ratelimit-remaining-sustained",
  "x-ratelimit-reset-sustained",
  "ratelimit-policy",
  "ratelimit"
]

/** A JSON response, parsed. */
export interface JsonResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** What a request may carry besides its method and path. */
export interface RequestOptions {
  readonly token?: string | undefined
  /** A string is sent as is; anything else as JSON. */
  readonly body?: unknown
  readonly headers?: Record<string, string> | undefined
  /** Aborts the request (a client hanging up). */
  readonly signal?: AbortSignal | undefined
}

/** A small client for a server at `url`: a request, its answer parsed when it is JSON. */
export const client = (url: string) =>
(method: string, path: string, options: RequestOptions = {}): Effect.Effect<JsonResponse> =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await fetch(url + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(options.signal === undefined ? {} : { signal: options.signal })
    })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  })

/** A running server and a small client for it. */
export interface TestServer {
  readonly url: string
  /** The stores behind the server, to arrange or inspect state directly. */
  readonly stores: Context.Context<Stores>
  readonly request: ReturnType<typeof client>
  /** Provisions a tenant through the operator endpoint and returns its admin token. */
  readonly tenant: (plan?: string) => Effect.Effect<{ readonly tenantId: string; readonly token: string }>
}

/** How the Node server a test server listens on is set up. */
export interface ListenOptions {
  /**
   * Installs what the service puts on its Node server before any request
   * (`LastLineProblems.answerParseErrors` from `@analytics/adapter-http`:
   * problem+json for what Node's parser refuses); returns the server.
   */
  readonly onServer?: ((server: Server) => Server) | undefined
}

/** Serves an HTTP app on 127.0.0.1 at a free port, for the length of the scope; its base URL. */
export const listen = <E>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest | Scope.Scope>,
  options: ListenOptions = {}
): Effect.Effect<string, never, Scope.Scope> => listenWith(() => Effect.succeed(httpEffect), options)

/**
 * Like `listen`, for an app that must know its own URL first (links a
 * browser follows): the socket listens, then `make(url)` builds the app
 * that answers on it.
 */
export const listenWith = <E, E2>(
  make: (url: string) => Effect.Effect<Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest | Scope.Scope>, E2, Scope.Scope>,
  options: ListenOptions = {}
): Effect.Effect<string, E2, Scope.Scope> =>
  Effect.gen(function*() {
    let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
    const created = createServer((request, response) => handle!(request, response))
    const server = options.onServer === undefined ? created : options.onServer(created)
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    handle = yield* NodeHttpServer.makeHandler(yield* make(url), { scope: yield* Effect.scope })
    return url
  })

/** What every test server gives the application it serves, whatever else its options say. */
export interface Given<E> {
  readonly stores: Layer.Layer<Stores, E>
  readonly publicBaseUrl: string
}

/**
 * The application a test server serves, by its shape: `App` from
 * `@analytics/adapter-http`, whose `layer` makes the whole service's
 * routes from its options (`App.Options`).
 */
export interface Application {
  readonly layer: (options: never) => Layer.Layer<never, any, HttpRouter.HttpRouter>
}

/** The options of an application's `layer` (`App.Options`) a test server does not set itself. */
export type AppOptions<A extends Application> = Omit<Parameters<A["layer"]>[0], keyof Given<never>>

/** What building an application's routes may fail with. */
type AppError<A extends Application> = ReturnType<A["layer"]> extends Layer.Layer<never, infer E, any> ? E : never

/** How a test server differs from the default one, besides the app's options. */
export interface StartOptions extends ListenOptions {
  /**
   * The service's `publicBaseUrl` is the server's own URL (result and share
   * links a browser can follow), not `http://127.0.0.1` without a port.
   */
  readonly atOwnUrl?: boolean | undefined
}

/**
 * Starts `application` (`App` from `@analytics/adapter-http`) on 127.0.0.1
 * with a free port, on the stores given, for the length of the scope.
 */
export const start = <A extends Application, E>(
  application: A,
  stores: Layer.Layer<Stores, E>,
  options: AppOptions<A> & StartOptions = {} as AppOptions<A> & StartOptions
): Effect.Effect<TestServer, E | AppError<A>, Scope.Scope> =>
  Effect.gen(function*() {
    const { atOwnUrl, onServer, ...appOptions } = options
    const context = yield* Layer.build(stores)
    const app = (publicBaseUrl: string) =>
      HttpRouter.toHttpEffect(application.layer({
        stores: Layer.succeedContext(context),
        publicBaseUrl,
        operatorToken,
        ...appOptions
      } as never))
    const url = atOwnUrl === true
      ? yield* listenWith(app, { onServer })
      : yield* listen(yield* app("http://127.0.0.1"), { onServer })
    const request = client(url)
    const tenant = (plan = "growth") =>
      Effect.map(
        request("POST", "/v1/tenants", { token: operatorToken, body: { name: "Acme", plan } }),
        (r) => {
          if (r.status !== 201) throw new Error(`tenant provisioning answered ${r.status}: ${r.text}`)
          return { tenantId: r.body.tenant_id as string, token: r.body.token as string }
        }
      )
    return { url, stores: context, request, tenant }
  })

/** Asserts the RFC 9457 shape and returns the problem code. */
export const problemCode = (response: JsonResponse): string => {
  const contentType = response.headers.get("content-type") ?? ""
  if (!contentType.startsWith("application/problem+json")) {
    throw new Error(`expected problem+json, got ${contentType}: ${response.text}`)
  }
  for (const member of ["type", "title", "status", "code"]) {
    if (!(member in response.body)) throw new Error(`problem without ${member}: ${response.text}`)
  }
  if (response.body.status !== response.status) throw new Error(`problem status ${response.body.status} != ${response.status}`)
  if (/\n\s+at\s/.test(response.text)) throw new Error(`a stack trace leaked: ${response.text}`)
  return response.body.code
}
