/**
 * The CRUD-shaped endpoints of the API, written once: list a collection in
 * the list envelope (docs/decisions/0003), create one (idempotent, 201,
 * docs/decisions/0004), and read, change (PATCH) or remove one by the id in
 * its path. Each takes the endpoint's name, path, path parameters (named as
 * the path names them, e.g. `user_id`), schemas, every problem it declares
 * and, when it has one, its description; it answers the same endpoint type
 * `HttpApiEndpoint` would, its declared problems included, so a handler that
 * may fail with a problem the list lacks still fails to compile. Every
 * endpoint is counted in a rate-limit class (docs/decisions/0009): reads
 * `read`, changes `write`, unless told otherwise.
 *
 * @since 0.1.0
 */
import type { RateLimit } from "@analytics/core"
import type { Schema } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import * as ListEnvelope from "./ListEnvelope.ts"
import { Idempotent, idempotencyHeader } from "./Middleware.ts"
import * as QueryParams from "./QueryParams.ts"
import { RateLimitClass } from "./RateLimitClass.ts"

/** The endpoint with its description, when there is one (`annotate` answers the same endpoint type). */
export const described = <E extends { annotate(key: typeof OpenApi.Description, value: string): unknown }>(
  endpoint: E,
  description: string | undefined
): E => description === undefined ? endpoint : endpoint.annotate(OpenApi.Description, description) as E

/** What every builder takes besides the endpoint's schemas: the problems it declares, its description and rate-limit class. */
export interface Common<Error extends HttpApiEndpoint.ErrorConstraint> {
  /** Every problem the endpoint may answer. */
  readonly error: Error
  /** The operation's description in the OpenAPI document, when it has one. */
  readonly description?: string | undefined
  /** The class it is counted in (docs/decisions/0009); `read` for a GET, `write` otherwise when absent. */
  readonly rateLimit?: RateLimit.EndpointClass | undefined
}

// The builders pass their type arguments to `HttpApiEndpoint`, which keeps the declared errors;
// it checks a generic error list no further (it holds no stream), hence `error as never`.

/** `GET <path>`: a page of `item`s in the list envelope, `query` the page's parameters (`limit`, `cursor`) when absent. */
export const list = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  Item extends Schema.Top,
  const Error extends HttpApiEndpoint.ErrorConstraint,
  const Params extends Schema.Struct.Fields = never,
  const Query extends Schema.Struct.Fields = typeof QueryParams.page
>(name: Name, path: Path, options: Common<Error> & {
  readonly params?: Params
  readonly query?: Query
  readonly item: Item
}) =>
  described(
    HttpApiEndpoint.get<Name, Path, Params, Query, never, never, ReturnType<typeof ListEnvelope.make<Item>>, Error>(name, path, {
      params: options.params,
      query: options.query ?? QueryParams.page as unknown as Query,
      success: ListEnvelope.make(options.item),
      error: options.error as never
    }).annotate(RateLimitClass, options.rateLimit ?? "read"),
    options.description
  )

/** `POST <path>`: creates one from `payload` and answers it as `success` with 201; idempotent (an `Idempotency-Key` header). */
export const create = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  Payload extends Schema.Top,
  Success extends Schema.Top,
  const Error extends HttpApiEndpoint.ErrorConstraint,
  const Params extends Schema.Struct.Fields = never
>(name: Name, path: Path, options: Common<Error> & {
  readonly params?: Params
  readonly payload: Payload
  readonly success: Success
}) =>
  described(
    HttpApiEndpoint.post<Name, Path, Params, never, Payload, typeof idempotencyHeader, Success["Rebuild"], Error>(name, path, {
      params: options.params,
      headers: idempotencyHeader,
      payload: options.payload,
      success: options.success.pipe(HttpApiSchema.status(201)),
      error: options.error as never
    }).middleware(Idempotent).annotate(RateLimitClass, options.rateLimit ?? "write"),
    options.description
  )

/** `GET <path>` with the id in the path (`params`): one record, as `success`. */
export const get = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  const Params extends Schema.Struct.Fields,
  Success extends Schema.Top,
  const Error extends HttpApiEndpoint.ErrorConstraint
>(name: Name, path: Path, options: Common<Error> & {
  readonly params: Params
  readonly success: Success
}) =>
  described(
    HttpApiEndpoint.get<Name, Path, Params, never, never, never, Success, Error>(name, path, {
      params: options.params,
      success: options.success,
      error: options.error as never
    }).annotate(RateLimitClass, options.rateLimit ?? "read"),
    options.description
  )

/** `PATCH <path>` with the id in the path (`params`): changes one by `payload` and answers it as `success`. */
export const update = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  const Params extends Schema.Struct.Fields,
  Payload extends Schema.Top,
  Success extends Schema.Top,
  const Error extends HttpApiEndpoint.ErrorConstraint
>(name: Name, path: Path, options: Common<Error> & {
  readonly params: Params
  readonly payload: Payload
  readonly success: Success
}) =>
  described(
    HttpApiEndpoint.patch<Name, Path, Params, never, Payload, never, Success, Error>(name, path, {
      params: options.params,
      payload: options.payload,
      success: options.success,
      error: options.error as never
    }).annotate(RateLimitClass, options.rateLimit ?? "write"),
    options.description
  )

/** `DELETE <path>` with the id in the path (`params`): removes (or revokes, cancels) one; 204, or `success` when it answers the record. */
export const remove = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  const Params extends Schema.Struct.Fields,
  const Error extends HttpApiEndpoint.ErrorConstraint,
  Success extends Schema.Top = HttpApiSchema.NoContent
>(name: Name, path: Path, options: Common<Error> & {
  readonly params: Params
  readonly success?: Success
}) =>
  described(
    HttpApiEndpoint.delete<Name, Path, Params, never, never, never, Success, Error>(name, path, {
      params: options.params,
      success: options.success ?? HttpApiSchema.NoContent as unknown as Success,
      error: options.error as never
    }).annotate(RateLimitClass, options.rateLimit ?? "write"),
    options.description
  )
