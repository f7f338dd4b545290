/**
 * Success responses written by the compiled JSON encoder of their endpoint's
 * success schema (see `JsonEncoder`), instead of HttpApiBuilder's Schema
 * encoding followed by `JSON.stringify`. A handler that returns an
 * `HttpServerResponse` is passed through by HttpApiBuilder untouched, so the
 * response carries what the builder would have written: the same JSON text,
 * the endpoint's success status (`HttpApiSchema.status`, read through
 * `HttpApi.reflect`) and `content-type: application/json`.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"
import type { HttpServerResponse as Response } from "effect/http"
import { HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, HttpApiSchema } from "effect/http-api"
import * as JsonEncoder from "./JsonEncoder.ts"

/** Answers an endpoint's success value with a ready response. */
export interface Respond {
  <E extends HttpApiEndpoint.Constraint>(
    endpoint: E,
    value: HttpApiEndpoint.Success<E>["Type"]
  ): Response.HttpServerResponse
}

/**
 * Compiles, once, the success encoder of every endpoint of `api` with a
 * single JSON success schema: each such endpoint's `(value) => response`.
 * An endpoint with several success schemas, an empty (no content) success
 * or response headers has none. Only for JSON bodies, the default: an
 * endpoint whose success is declared with `HttpApiSchema.asText` /
 * `asUint8Array` / `asFormUrlEncoded` or as a stream must not use it (the
 * encoding annotation is not public, so this is not checked; this API has
 * none).
 *
 * @since 0.1.0
 */
export const responders = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlyMap<HttpApiEndpoint.Top, (value: unknown) => Response.HttpServerResponse> => {
  const responders = new Map<HttpApiEndpoint.Top, (value: unknown) => Response.HttpServerResponse>()
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, successes }) {
      if (successes.size !== 1) return
      const [[status, schemas]] = successes
      if (schemas.length !== 1) return
      const schema = schemas[0]
      // The success schemas of a JSON endpoint are already `Schema.toCodecJson` of the declared ones.
      if (HttpApiSchema.isNoContent(schema.ast) || HttpApiSchema.isWithHeaders(schema)) return
      // Reflection widens the schema's services; a success schema needing a service to encode fails in `encodeSync`.
      const encode = JsonEncoder.compile(schema as Schema.Codec<unknown, unknown>)
      const options = { status, contentType: "application/json" }
      responders.set(endpoint, (value) => {
        const body = encode(value)
        // As HttpApiBuilder: a value without JSON text is an empty response.
        return body === undefined ? HttpServerResponse.empty({ status }) : HttpServerResponse.text(body, options)
      })
    }
  })
  return responders
}

/**
 * The responders of `api` (`responders`) as one function answering
 * `(endpoint, value)` with the response (pass the `endpoint` a handler
 * receives). Asking for an endpoint without one is a defect: its handler
 * returns its value to HttpApiBuilder instead.
 *
 * @since 0.1.0
 */
export const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): Respond => {
  const byEndpoint = responders(api)
  return (endpoint, value) => {
    const respond = byEndpoint.get(endpoint as unknown as HttpApiEndpoint.Top)
    if (respond === undefined) {
      throw new Error(`JsonResponse: ${endpoint.identifier} has no single JSON success schema`)
    }
    return respond(value)
  }
}
