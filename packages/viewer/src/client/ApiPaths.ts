/**
 * The contract's endpoints as the console calls them, by method and path,
 * types only (the console imports no code of `@analytics/api`): the paths a
 * method may take, written as a call writes them (`v1/reports/${id}`, a
 * query string allowed), and what the endpoint a path reaches answers, as
 * JSON. A path reaches the endpoint whose path has as many segments, each
 * the same or a `:param` of it, so `v1/jobs/${id}/result` is the result's
 * and not the job's.
 *
 * @since 0.1.0
 */
import type { Api, Json } from "@analytics/api"
import type { Schema } from "effect"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

/** Every endpoint of the contract. */
type Endpoints = typeof Api extends HttpApi.HttpApi<infer _Id, infer Groups> ? HttpApiGroup.Endpoints<Groups> : never

/** Every endpoint of the contract with method `M`. */
type WithMethod<M extends string> = Extract<Endpoints, { readonly method: M }>

/** A contract path (`/v1/reports/:id`) as a template a call can write (`v1/reports/${string}`). */
type Template<P extends string> = P extends `${infer H}/${infer T}` ? `${Segment<H>}/${Template<T>}` : Segment<P>
/** A segment of a contract path, any text for a `:param`. */
type Segment<S extends string> = S extends `:${string}` ? string : S
/** A path without its leading `/`: the console's are relative to the page's base. */
type Relative<P extends string> = P extends `/${infer R}` ? R : P

/** The paths a call with method `M` may take, a query string allowed. */
export type PathOf<M extends string> = WithMethod<M> extends infer E ? E extends { readonly path: infer P extends string } ? Template<Relative<P>> | `${Template<Relative<P>>}?${string}` : never : never

/** A path's segments. */
type Split<P extends string> = P extends `${infer H}/${infer T}` ? [H, ...Split<T>] : [P]
/** A path without its query string. */
type NoQuery<P extends string> = P extends `${infer B}?${string}` ? B : P
/** Whether a call's segments fit a contract path's, one for one. */
type Fits<Call extends ReadonlyArray<string>, Contract extends ReadonlyArray<string>> =
  Call extends [infer C extends string, ...infer CR extends Array<string>]
    ? Contract extends [infer K extends string, ...infer KR extends Array<string>]
      ? (K extends `:${string}` ? true : C extends K ? true : false) extends true ? Fits<CR, KR> : false
      : false
    : Contract extends [] ? true : false

/** The endpoint a call with method `M` to `P` reaches (for a union of paths, each one's). */
export type EndpointAt<M extends string, P extends string> = P extends string ? WithMethod<M> extends infer E
    ? E extends { readonly path: infer K extends string } ? Fits<Split<NoQuery<P>>, Split<Relative<K>>> extends true ? E : never : never
    : never
  : never

/** The paths of `P` a call with method `M` reaches no endpoint at. */
type Unreached<M extends string, P extends string> = P extends string ? [EndpointAt<M, P>] extends [never] ? P : never : never

/** What the endpoint a call with method `M` to `P` answers, as JSON. */
export type SuccessAt<M extends string, P extends string> = JsonOf<HttpApiEndpoint.Success<EndpointAt<M, P>>>

/**
 * What a call with method `M` to `P` sends, as JSON: the payload its
 * endpoint declares, encoded (`never` for an endpoint without one).
 */
export type PayloadAt<M extends string, P extends string> = JsonOf<HttpApiEndpoint.Payload<EndpointAt<M, P>>>

/** The JSON of a success schema: the schema under its JSON codec; nothing for no content. */
type JsonOf<S> = S extends typeof HttpApiSchema.NoContent ? void : S extends Schema.toCodecJson<infer I extends Schema.Top> ? Json<I> : S extends Schema.Top ? Json<S> : never

/**
 * The rest of a call's arguments: `Rest` when a call with method `M` to `P`
 * reaches an endpoint of the contract; otherwise one more argument no call
 * gives, named for the path, so the call does not compile.
 */
export type ArgsAt<M extends string, P extends string, Rest extends ReadonlyArray<unknown>> = [Unreached<M, P>] extends [never]
  ? Rest
  : [notInTheContract: `${M} ${Unreached<M, P>}`, ...Rest]
