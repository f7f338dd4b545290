/**
 * The implementations of the API's middleware: authentication, validation
 * problems and idempotency keys.
 *
 * @since 0.1.0
 */
import { Middleware as Contract, Problems } from "@analytics/api"
import { Caller, Errors, Idempotency, Principal, Transactor } from "@analytics/core"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { HttpServerRequest, HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import * as SchemaIssue from "effect/SchemaIssue"
import { type ProblemOf, toProblem } from "./DomainProblems.ts"
import * as Redaction from "./Redaction.ts"
import * as RequestBody from "./RequestBody.ts"
import * as RequestCaller from "./RequestCaller.ts"
import { ResolvedCaller } from "./ResolvedCaller.ts"
import * as SessionCookie from "./SessionCookie.ts"
import { pathOf } from "./Url.ts"

/**
 * Who a request is, as the `Authentication` middleware decides it, in one
 * call: the principal, or the problem to answer. For routes compiled from
 * the contract (`ApiRoutes`), which skip the per-scheme loop of
 * `authenticationLayer` and decide the same:
 *
 * - a bearer token wins when sent, valid or not (the edge has usually
 *   resolved it already: `ResolvedCaller`);
 * - else the console's session or the embedding app's sign-in the edge
 *   resolved;
 * - else a session cookie the edge did not accept: signed out;
 * - else no credential: the bearer scheme's own 401.
 *
 * A member's tenant must exist: an embedding app's authenticator may name
 * any tenant id.
 */
export const principalResolver = Effect.gen(function*() {
  const resolve = yield* Caller.resolver
  const withTenant = ({ principal, tenant }: Caller.Caller): Effect.Effect<Principal.Principal, Errors.Unauthenticated> =>
    principal._tag === "Member" && tenant === undefined
      ? Effect.fail(new Errors.Unauthenticated({ detail: "The credential names a tenant that does not exist" }))
      : Effect.succeed(principal)
  /** The principal of a bearer token (`""`: none sent), reusing the edge's resolution of this very token. */
  const byBearer = (token: string, known: ResolvedCaller["Service"] | undefined) =>
    known !== undefined && known.via === "token" && known.credential === token
      ? withTenant(known.caller)
      : Effect.flatMap(resolve(token), withTenant)
  const signedOut = new Errors.Unauthenticated({ detail: "You are not signed in, or your session has ended: sign in again" })
  /** The principal of `request`, given what the edge resolved of it (`known`), before problems are made of failures. */
  const principalOf = (
    request: HttpServerRequest.HttpServerRequest,
    known: ResolvedCaller["Service"] | undefined
  ): Effect.Effect<Principal.Principal, Errors.Unauthenticated | Errors.StoreError> => {
    const token = RequestCaller.bearerToken(request.headers["authorization"])
    if (token !== "") return byBearer(token, known)
    if (known !== undefined && known.via !== "token") return withTenant(known.caller)
    if (SessionCookie.of(request) !== "") return Effect.fail(signedOut)
    return byBearer("", undefined)
  }
  return { byBearer, principalOf }
})

/**
 * Authentication through the `Authenticator` port, by bearer token or by
 * the console's session cookie as the edge resolved it (`RequestCaller`).
 *
 * Effect tries the declared schemes in order and answers the last one's
 * failure; so both schemes decide as `principalResolver` does (bearer
 * first, valid or not, then the cookie), and a bad bearer token answers its
 * own 401 even though the cookie scheme is tried after it.
 */
export const authenticationLayer = Layer.effect(
  Contract.Authentication,
  Effect.gen(function*() {
    const { byBearer, principalOf } = yield* principalResolver
    const known = Effect.map(Effect.serviceOption(ResolvedCaller), Option.getOrUndefined)
    // Why a request's bearer token was refused, for the cookie scheme to answer the same without asking again.
    const refusedBearer = new WeakMap<HttpServerRequest.HttpServerRequest, Errors.Unauthenticated | Errors.StoreError>()
    const bearer = (credential: Redacted.Redacted<string>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const refused = refusedBearer.get(request)
        if (refused !== undefined) return Effect.fail(refused)
        return Effect.tapError(
          Effect.flatMap(known, (resolution) => byBearer(Redacted.value(credential), resolution)),
          (error) => Effect.sync(() => refusedBearer.set(request, error))
        )
      })
    /** The member the session cookie or the embedding app's sign-in names (or, failing those, the bearer scheme's answer). */
    const session = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      // A bearer token sent and refused answers for both schemes.
      const refused = RequestCaller.bearerToken(request.headers["authorization"]) === "" ? undefined : refusedBearer.get(request)
      return refused !== undefined ? Effect.fail(refused) : Effect.flatMap(known, (resolution) => principalOf(request, resolution))
    })
    const provide = <A, E, R>(
      httpEffect: Effect.Effect<A, E, R>,
      principal: Effect.Effect<Principal.Principal, Errors.Unauthenticated | Errors.StoreError, HttpServerRequest.HttpServerRequest>
    ) =>
      Effect.flatMap(
        Effect.mapError(principal, toProblem),
        (p) => Effect.provideService(httpEffect, Principal.CurrentPrincipal, p)
      )
    return Contract.Authentication.of({
      bearer: (httpEffect, { credential }) => provide(httpEffect, bearer(credential)),
      session: (httpEffect) => provide(httpEffect, session)
    })
  })
)

/** What an unknown property is told: never its value (decision 0001), which may be anything, of any size. */
const unknownProperty = "Expected no excess property"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({
  // Schema's own message repeats the value (`Unexpected key with value …`) where it has it.
  leafHook: (issue) => issue._tag === "UnexpectedKey" ? unknownProperty : SchemaIssue.defaultLeafHook(issue)
})

/** The value a client sent, when it is short enough to repeat back (an unknown action, a bad enum value). */
const shown = (input: unknown): string | undefined => {
  if (typeof input === "string") return input.length <= 60 ? JSON.stringify(input) : undefined
  return typeof input === "number" || typeof input === "boolean" ? String(input) : undefined
}

/** The value at `path` of what the client sent (Schema's issues do not always carry it). */
const valueAt = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), input)

/**
 * Every issue with where it is and what is wrong, naming the bad value where
 * one was sent: `Expected "view" | "edit", got "fly"`. Never the value of an
 * unknown property (its path says which), nor of a sensitive field (a
 * password, a secret, a token: `Redaction`), whoever added it to the message.
 */
export const issuesOf = (error: HttpApiError.HttpApiSchemaError, input: unknown) => {
  const slot = error.kind.toLowerCase()
  return formatIssues(error.cause.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => {
      const key = typeof p === "object" && p !== null && "key" in p ? (p as { key: PropertyKey }).key : p
      return typeof key === "number" ? key : String(key)
    })
    const sensitive = Redaction.isSensitivePath(path)
    const message = Redaction.withoutEchoedValue(issue.message, sensitive)
    const echoes = !sensitive && message !== unknownProperty && message.startsWith("Expected") && !message.includes(", got ")
    const got = echoes ? shown(valueAt(input, path)) : undefined
    return { path: [slot, ...path], message: got === undefined ? message : `${message}, got ${got}` }
  })
}

/** Request decoding failures as `request/invalid` (every issue listed) or `request/malformed-json`. */
export const validationLayer = HttpApiMiddleware.layerSchemaErrorTransform(Contract.Validation, (error) =>
  Effect.gen(function*() {
    if (error.kind === "Body" || error.kind === "ResponseHeaders") {
      // The server failed to encode its own answer: a defect, rendered as 500 upstream.
      return yield* Effect.die(error)
    }
    const request = yield* HttpServerRequest.HttpServerRequest
    let input: unknown = undefined
    if (error.kind === "Payload") {
      // The parse the decoder made (or the idempotency middleware before it), not another one.
      const { parsed, text } = yield* RequestBody.json(request)
      const blank = text.trim() === ""
      if (!blank && parsed === undefined) {
        return yield* Errors.withoutStackTrace(() => new Problems.MalformedJson({ detail: "The request body is not valid JSON" }))
      }
      input = blank ? undefined : parsed?.value
    } else if (error.kind === "Query") {
      input = Object.fromEntries(new URL(request.url, "http://localhost").searchParams)
    }
    const errors = issuesOf(error, input)
    return yield* Errors.withoutStackTrace(() => new Problems.InvalidRequest({ detail: "The request failed validation; see errors", errors }))
  }))

const decoder = new TextDecoder()

const responseToStore = (response: HttpServerResponse.HttpServerResponse): Idempotency.StoredResponse | undefined => {
  const body = response.body
  let text: string
  let contentType: string | undefined
  switch (body._tag) {
    case "Empty":
      text = ""
      break
    case "Uint8Array":
      // A text body keeps its string: no decoding back from bytes.
      text = body.text ?? decoder.decode(body.body)
      contentType = body.contentType
      break
    case "Raw":
      if (typeof body.body !== "string") return undefined
      text = body.body
      contentType = body.contentType
      break
    default:
      return undefined
  }
  const headers: Record<string, string> = { ...response.headers }
  if (contentType !== undefined) headers["content-type"] = contentType
  return { status: response.status, headers, body: text }
}

const makeReplay = (stored: Idempotency.StoredResponse): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...headers } = stored.headers
  return HttpServerResponse.text(stored.body, {
    status: stored.status,
    headers: { ...headers, "idempotent-replayed": "true" },
    ...(contentType === undefined ? {} : { contentType })
  })
}

/**
 * The replays made, by the stored response they replay. The memory store
 * hands back the same stored object on every replay of a key, so its
 * response (headers copied, body encoded) is built once; a response is
 * immutable (every combinator returns a new one), so requests can share it.
 * A store that reads a new object each time (SQL) simply misses.
 */
const replays = new WeakMap<Idempotency.StoredResponse, HttpServerResponse.HttpServerResponse>()

/** The response that replays `stored`, marked `idempotent-replayed: true`. */
const replay = (stored: Idempotency.StoredResponse): HttpServerResponse.HttpServerResponse => {
  const known = replays.get(stored)
  if (known !== undefined) return known
  const made = makeReplay(stored)
  replays.set(stored, made)
  return made
}

const isValidationFailure = (error: unknown) =>
  error instanceof Problems.InvalidRequest || error instanceof Problems.MalformedJson ||
  HttpApiError.HttpApiSchemaError.is(error)

/**
 * Idempotency keys on POST. The handler and the stored response commit in
 * one transaction, so a crash between them can neither lose the response of
 * a created resource nor leave a resource without its replay.
 */
export const idempotentLayer = Layer.effect(
  Contract.Idempotent,
  Effect.gen(function*() {
    const store = yield* Idempotency.IdempotencyStore
    const { transaction } = yield* Transactor.Transactor

    /** What a failed handler leaves for its key: its rendered problem kept for replay, or the key released. */
    const settleFailure = <E>(reservation: Idempotency.Reservation, exit: Exit.Failure<HttpServerResponse.HttpServerResponse, E>) =>
      Effect.gen(function*() {
        // A decided failure (403, 404...) is replayed like a success; validation failures and 5xx are not kept.
        const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
        const error = failure?._tag === "Fail" ? failure.error : undefined
        const rendered = error !== undefined && !isValidationFailure(error) && HttpServerRespondable.isRespondable(error)
          ? yield* HttpServerRespondable.toResponse(error)
          : undefined
        const stored = rendered !== undefined && Idempotency.isStorable(rendered.status)
          ? responseToStore(rendered)
          : undefined
        yield* Effect.ignore(
          stored === undefined ? store.release(reservation) : store.complete(reservation, stored)
        )
        return yield* exit
      })

    /**
     * Runs the handler holding `reservation`, its response stored in its
     * transaction; releases the key when none is kept. A success that was
     * kept (the usual first sight) takes no further step.
     */
    const run = <E, R>(httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, reservation: Idempotency.Reservation) =>
      Effect.suspend(() => {
        // Whether the handler's response went into the store with it, to release the key otherwise.
        let kept = false
        return Effect.flatMap(
          transaction(
            Effect.tap(httpEffect, (response) => {
              const stored = Idempotency.isStorable(response.status) ? responseToStore(response) : undefined
              if (stored === undefined) return Effect.void
              kept = true
              return store.complete(reservation, stored)
            })
          ).pipe(Effect.mapError((e) => (e instanceof Errors.StoreError ? toProblem(e) : e)), Effect.exit),
          (exit) =>
            Exit.isFailure(exit)
              ? settleFailure(reservation, exit)
              : kept
              ? exit
              : Effect.as(Effect.ignore(store.release(reservation)), exit.value)
        )
      })

    return Contract.Idempotent.of((httpEffect) =>
      // Read from the fiber's context directly: no generator, no Effect per lookup, on every POST.
      Effect.withFiber<
        HttpServerResponse.HttpServerResponse,
        Effect.Error<typeof httpEffect> | ProblemOf<Idempotency.IdempotencyKeyInvalid | Idempotency.IdempotencyKeyReused | Idempotency.IdempotencyInProgress | Errors.StoreError>
      >((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const key = request.headers["idempotency-key"]
        if (key === undefined) return httpEffect
        const invalid = Idempotency.keyProblem(key)
        if (invalid !== undefined) return Effect.fail(toProblem(invalid))
        const principal = Context.getUnsafe(fiber.context, Principal.CurrentPrincipal)
        const owner = principal._tag === "Member" ? principal.tenantId : "operator"
        const scope = `${request.method} ${pathOf(request.url)}`
        // The body parsed once: the payload decoder reuses this parse (`RequestBody`).
        return Effect.flatMap(RequestBody.json(request), (body) =>
          Effect.flatMap(Idempotency.fingerprintParsed(body.text, body.parsed), (fingerprint) =>
            Effect.flatMap(
              Effect.mapError(Idempotency.beginWith(store, owner, scope, key, fingerprint), toProblem),
              (decision) => decision._tag === "Replay" ? Effect.succeed(replay(decision.response)) : run(httpEffect, decision.reservation)
            )))
      }))
  })
)
