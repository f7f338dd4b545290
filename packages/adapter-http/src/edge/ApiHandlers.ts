/**
 * The handlers of the API's groups, registered for `ApiRoutes`.
 *
 * A group is implemented as with `HttpApiBuilder.group` (same `handle`
 * chain, same request and success types per endpoint), with one difference
 * the compiler enforces: a handler may read only what every request
 * provides (the request, its route and query, what the endpoint's middleware
 * provides, the caller the edge resolved). Every other service is taken
 * from the group's context once, when the group is built (`captured` in
 * `handlers/Handling.ts`), so a request never copies the group's context
 * into its own, and a handler that needs a service it did not capture does
 * not compile (docs/decisions/0008).
 *
 * The registry is this module's own service per group, read by `ApiRoutes`
 * through the public `Context` API.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"
import type { HttpRouter } from "effect/http"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import type { ResolvedCaller } from "./ResolvedCaller.ts"

/** One endpoint's handler, as registered. */
export interface Registered {
  readonly endpoint: HttpApiEndpoint.Top
  readonly handler: (request: any) => Effect.Effect<unknown, unknown, unknown>
  readonly uninterruptible: boolean
}

/** The registered handlers of the group `Name`, as a service. */
export interface Group<Name extends string> {
  readonly "~analytics/ApiHandlers/Group": Name
}

/** The key of group `name`'s handlers (its identity is the string: both sides make it from the name). */
export const keyOf = <Name extends string>(name: Name): Context.Key<Group<Name>, ReadonlyArray<Registered>> =>
  Context.Service<Group<Name>, ReadonlyArray<Registered>>(`@analytics/adapter-http/ApiHandlers/${name}`)

/** What every request of `Endpoint` provides to its handler. */
export type RequestServices<Endpoint> =
  | HttpRouter.Provided
  | HttpApiMiddleware.Provides<HttpApiEndpoint.Middleware<Endpoint>>
  | ResolvedCaller

/**
 * `A` when a handler reads no service beyond its request's; else a type
 * naming the services it lacks, on which the chain stops compiling, so the
 * compiler's message says what to capture.
 */
type Captured<Missing, A> = [Missing] extends [never] ? A
  : { readonly "a handler reads services the group did not capture (see Handling.captured)": Missing }

type EndpointOf<Endpoints extends HttpApiEndpoint.Constraint, Id extends string> = HttpApiEndpoint.WithIdentifier<Endpoints, Id>

/** The handler of endpoint `Id`, reading the services `R`. */
type HandlerOf<Endpoints extends HttpApiEndpoint.Constraint, Id extends string, R> = HttpApiEndpoint.Handler<
  EndpointOf<Endpoints, Id>,
  HttpApiEndpoint.MiddlewareError<EndpointOf<Endpoints, Id>>,
  R
>

/** The services `R` a handler of endpoint `Id` reads that its request does not provide. */
type Uncaptured<Endpoints extends HttpApiEndpoint.Constraint, Id extends string, R> = Exclude<R, RequestServices<EndpointOf<Endpoints, Id>>>

/** The services a handler (a function answering an Effect) reads. */
type ServicesOf<H> = H extends (...args: ReadonlyArray<any>) => Effect.Effect<any, any, infer R> ? R : never

/** The handlers of a group's endpoints (`Endpoints`), those handled so far in `Handled`. */
export interface Handlers<Endpoints extends HttpApiEndpoint.Constraint, Handled extends string = never> {
  readonly "~EndpointsByIdentifier": { readonly [E in Endpoints as HttpApiEndpoint.Identifier<E>]: E }
  readonly "~Handled": Handled
  readonly registered: ReadonlyArray<Registered>
  /** Implements endpoint `identifier`; its handler may read only its request's services (`RequestServices`). */
  handle<const Id extends Exclude<HttpApiEndpoint.Identifier<Endpoints>, Handled>, R>(
    identifier: Id,
    handler: HandlerOf<Endpoints, Id, R>,
    options?: { readonly uninterruptible?: boolean | undefined }
  ): Captured<Uncaptured<Endpoints, Id, R>, Handlers<Endpoints, Handled | Id>>
  /** Implements several endpoints at once, by identifier, each as `handle` does. */
  handleAll<
    const H extends { readonly [Id in Exclude<HttpApiEndpoint.Identifier<Endpoints>, Handled>]?: HandlerOf<Endpoints, Id, any> }
  >(
    handlers: H
  ): Captured<{ [Id in keyof H & string]: Uncaptured<Endpoints, Id, ServicesOf<H[Id]>> }[keyof H & string], Handlers<Endpoints, Handled | (keyof H & string)>>
}

/** Refuses a build whose handlers leave an endpoint without one, naming it. */
type Complete<Endpoints extends HttpApiEndpoint.Constraint, A> = (A extends Effect.Effect<infer H, any, any> ? H : A) extends
  Handlers<Endpoints, infer Handled> ? [Exclude<HttpApiEndpoint.Identifier<Endpoints>, Handled>] extends [never] ? A
  : `Endpoint not handled: ${Exclude<HttpApiEndpoint.Identifier<Endpoints>, Handled>}`
  : "Must return the implemented handlers"

const makeHandlers = <Endpoints extends HttpApiEndpoint.Constraint>(
  group: HttpApiGroup.Top,
  registered: ReadonlyArray<Registered>
): Handlers<Endpoints> => ({
  "~EndpointsByIdentifier": undefined as never,
  "~Handled": undefined as never,
  registered,
  handle: (identifier: string, handler: Registered["handler"], options?: { readonly uninterruptible?: boolean | undefined }) =>
    makeHandlers(group, [...registered, registration(group, identifier, handler, options?.uninterruptible ?? false)]),
  handleAll: (handlers: Record<string, Registered["handler"]>) =>
    makeHandlers(group, [...registered, ...Object.entries(handlers).map(([identifier, handler]) => registration(group, identifier, handler, false))])
} as unknown as Handlers<Endpoints>)

const registration = (group: HttpApiGroup.Top, identifier: string, handler: Registered["handler"], uninterruptible: boolean): Registered => ({
  endpoint: group.endpoints[identifier] as HttpApiEndpoint.Top,
  handler,
  uninterruptible
})

/** The middleware a group's endpoints declare: `ApiRoutes` applies them from its own context. */
type MiddlewareOf<Endpoints> = Endpoints extends HttpApiEndpoint.Constraint
  ? HttpApiEndpoint.Middleware<Endpoints> | HttpApiEndpoint.MiddlewareServices<Endpoints>
  : never

/**
 * The layer of group `name`'s handlers: `build` receives the unimplemented
 * handlers (and may be an Effect, which reads the services the handlers
 * capture) and returns them all implemented.
 */
export const group = <
  ApiId extends string,
  Groups extends HttpApiGroup.Constraint,
  const Name extends HttpApiGroup.Identifier<Groups>,
  Return
>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  name: Name,
  build: (handlers: Handlers<HttpApiGroup.Endpoints<HttpApiGroup.WithIdentifier<Groups, Name>>>) => Complete<HttpApiGroup.Endpoints<HttpApiGroup.WithIdentifier<Groups, Name>>, Return>
): Layer.Layer<
  Group<Name>,
  Return extends Effect.Effect<any, infer E, any> ? E : never,
  | Exclude<Return extends Effect.Effect<any, any, infer R> ? R : never, Scope.Scope>
  | MiddlewareOf<HttpApiGroup.Endpoints<HttpApiGroup.WithIdentifier<Groups, Name>>>
> => {
  const groupOf = api.groups[name] as unknown as HttpApiGroup.Top
  return Layer.effect(
    keyOf(name),
    Effect.suspend(() => {
      const built = build(makeHandlers(groupOf, []) as never) as unknown
      const handlers = Effect.isEffect(built) ? built as Effect.Effect<Handlers<any>> : Effect.succeed(built as Handlers<any>)
      return Effect.map(handlers, (h) => h.registered)
    })
  ) as never
}
