/**
 * The CRUD-shaped endpoints of the API, written once: list a collection in
 * the list envelope (docs/decisions/0003), create one (idempotent, 201,
 * docs/decisions/0004), read, change (PATCH) or remove one by the id in its
 * path, and act on one (an idempotent POST such as resend, rotate-secret or
 * send-now). Each takes the endpoint's name, path, path parameters (named as
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

/** What every builder takes besides the endpoint's schemas: the problems it declares, its description and rate-limit class. */
export interface Common<Error extends HttpApiEndpoint.ErrorConstraint> {
  /** Every problem the endpoint may answer. */
  readonly error: Error
  /** The operation's description in the OpenAPI document, when it has one. */
  readonly description?: string | undefined
  /** The class it is counted in (docs/decisions/0009); `read` for a GET, `write` otherwise when absent. */
  readonly rateLimit?: RateLimit.EndpointClass | undefined
}

/** An endpoint as `HttpApiEndpoint` makes it: `annotate` answers the same endpoint type. */
interface Annotatable {
  annotate(key: typeof RateLimitClass, value: RateLimit.EndpointClass): unknown
  annotate(key: typeof OpenApi.Description, value: string): unknown
}

/** The endpoint counted in its rate-limit class (`byDefault` unless told), with its description when it has one. */
const finish = <E extends Annotatable>(endpoint: E, options: Common<HttpApiEndpoint.ErrorConstraint>, byDefault: RateLimit.EndpointClass): E => {
  const counted = endpoint.annotate(RateLimitClass, options.rateLimit ?? byDefault) as E
  return options.description === undefined ? counted : counted.annotate(OpenApi.Description, options.description) as E
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
  finish(
    HttpApiEndpoint.get<Name, Path, Params, Query, never, never, ReturnType<typeof ListEnvelope.make<Item>>, Error>(name, path, {
      params: options.params,
      query: options.query ?? QueryParams.page as unknown as Query,
      success: ListEnvelope.make(options.item),
      error: options.error as never
    }),
    options,
    "read"
  )

/**
 * `POST <path>`, idempotent (an `Idempotency-Key` header, docs/decisions/0004):
 * an action on the record(s) the path names (`params`), taking `payload` when
 * it has one and answering `success` (its status piped in, e.g. 202).
 */
export const action = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  Success extends Schema.Top,
  const Error extends HttpApiEndpoint.ErrorConstraint,
  const Params extends Schema.Struct.Fields = never,
  Payload extends Schema.Top = never
>(name: Name, path: Path, options: Common<Error> & {
  readonly params?: Params
  readonly payload?: Payload
  readonly success: Success
}) =>
  finish(
    HttpApiEndpoint.post<Name, Path, Params, never, Payload, typeof idempotencyHeader, Success, Error>(name, path, {
      params: options.params,
      headers: idempotencyHeader,
      payload: options.payload,
      success: options.success,
      error: options.error as never
    }).middleware(Idempotent),
    options,
    "write"
  )

/** `POST <path>`: creates one from `payload` and answers it as `success` with 201; idempotent, like every action. */
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
}) => action<Name, Path, Success["Rebuild"], Error, Params, Payload>(name, path, { ...options, success: options.success.pipe(HttpApiSchema.status(201)) })

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
  finish(
    HttpApiEndpoint.get<Name, Path, Params, never, never, never, Success, Error>(name, path, {
      params: options.params,
      success: options.success,
      error: options.error as never
    }),
    options,
    "read"
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
  finish(
    HttpApiEndpoint.patch<Name, Path, Params, never, Payload, never, Success, Error>(name, path, {
      params: options.params,
      payload: options.payload,
      success: options.success,
      error: options.error as never
    }),
    options,
    "write"
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
  finish(
    HttpApiEndpoint.delete<Name, Path, Params, never, never, never, Success, Error>(name, path, {
      params: options.params,
      success: options.success ?? HttpApiSchema.NoContent as unknown as Success,
      error: options.error as never
    }),
    options,
    "write"
  )
