/**
 * The test servers of `@analytics/testing/http` serving this package's
 * application: `start` and `listen` answer what Node's parser refuses with
 * problem+json (`LastLineProblems.answerParseErrors`), as the host's server
 * does. The rest of the kit is re-exported as it is.
 */
import { App, LastLineProblems } from "@analytics/adapter-http"
import type { Stores } from "@analytics/core"
import * as Kit from "@analytics/testing/http"
import type { Effect, Layer, Scope } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"

export * from "@analytics/testing/http"

/** Starts the whole service (`App`) on 127.0.0.1 with a free port, on the stores given, for the length of the scope. */
export const start = <E>(
  stores: Layer.Layer<Stores, E>,
  options: Omit<App.Options<E>, "stores" | "publicBaseUrl"> & Kit.StartOptions = {}
): Effect.Effect<Kit.TestServer, E, Scope.Scope> =>
  // `App.layer` fails only with the error of the layers its options hold, which share `E`.
  Kit.start(App, stores, { onServer: LastLineProblems.answerParseErrors, ...options }) as Effect.Effect<Kit.TestServer, E, Scope.Scope>

/** Serves an HTTP app on 127.0.0.1 at a free port, for the length of the scope, as the service's server; its base URL. */
export const listen = <E>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest | Scope.Scope>
): Effect.Effect<string, never, Scope.Scope> => Kit.listen(httpEffect, { onServer: LastLineProblems.answerParseErrors })
