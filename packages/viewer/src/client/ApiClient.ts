/**
 * The console's way to the service: `fetch` with the page's cookies
 * (`credentials: "same-origin"`), paths relative to the page's
 * `<base href>` (so a prefix mount needs nothing), `X-CSRF-Token` from the
 * session on every unsafe method, JSON in and out. A problem
 * (`application/problem+json`) becomes a `Problem` in words: its title,
 * its detail and what to do; a 401 also tells `onUnauthorized` (the
 * console shows the sign-in screen).
 *
 * @since 0.1.0
 */
import { msg } from "../i18n/msg.ts"
import { detailAsField, pointsToErrors, titleWords } from "./ProblemWords.ts"
import type { ArgsAt, PathOf, PayloadAt, SuccessAt } from "./ApiPaths.ts"
import { currentSession } from "./Session.ts"

/** A refusal or failure, in words a person can act on. */
export interface Problem {
  readonly status: number
  /** The service's problem code (`auth/csrf-failed`), or `network` when the service could not be reached. */
  readonly code: string
  readonly title: string
  readonly detail: string
  /** What to do about it. */
  readonly action: string
  /** Which fields were wrong (a validation problem's `errors`): each a path into the request and what is wrong there. */
  readonly errors?: ReadonlyArray<FieldError>
  /** A model that does not fit a file (`dataset/model-invalid`): each member that does not fit, and the file's columns. */
  readonly mismatches?: ReadonlyArray<ColumnMismatch>
  readonly fileColumns?: ReadonlyArray<string>
  /** A dataset that is used (`dataset/in-use`): what uses it, by id and name. */
  readonly uses?: DatasetUses
}

/** What uses a dataset, as `dataset/in-use` names it. */
export interface DatasetUses {
  readonly reports: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly dashboards: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly alerts: ReadonlyArray<{ readonly id: string; readonly name: string }>
}

/** The records a `dataset/in-use` problem lists under `member`, each by its `idField` and name. */
const usesIn = (json: Record<string, unknown>, member: string, idField: string): DatasetUses["reports"] =>
  (Array.isArray(json[member]) ? json[member] as Array<Record<string, unknown>> : [])
    .filter((u) => typeof u?.[idField] === "string" && typeof u.name === "string")
    .map((u) => ({ id: u[idField] as string, name: u.name as string }))

/** A member of a model that does not fit a file's columns. */
export interface ColumnMismatch {
  readonly member: string
  readonly kind: "dimension" | "measure"
  readonly column: string
  readonly problem: "missing" | "not-numeric"
  readonly message: string
}

/** A field a validation problem names: its path (`["payload", "model", "measures", 0, "title"]`) and what is wrong. */
export interface FieldError {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** The label of the form's field it marks, once a form has marked it (console/FormErrors.ts). */
  readonly label?: string
}

/** The error a failed call throws. */
export class ApiProblem extends Error {
  readonly problem: Problem
  constructor(problem: Problem) {
    super(`${problem.title}: ${problem.detail}`)
    this.problem = problem
  }
}

/** The list envelope of every `/v1` list. */
export interface ListPage<A> {
  readonly data: ReadonlyArray<A>
  readonly page: { readonly limit: number; readonly next_cursor: string | null; readonly has_more: boolean }
}

/** What to do about a problem, from its code and status. */
const actionOf = (status: number, code: string, retryAfter: string | null): string => {
  if (code === "network") return msg("problem.action.connection")
  if (code === "auth/csrf-failed") return msg("problem.action.reload")
  if (status === 401) return msg("problem.action.signIn")
  if (status === 403) return msg("problem.action.askAdmin")
  if (status === 404) return msg("problem.action.checkAddress")
  if (status === 429) {
    const seconds = Number(retryAfter)
    if (!Number.isFinite(seconds) || seconds <= 0) return msg("problem.action.waitBit")
    return Math.ceil(seconds) === 1 ? msg("problem.action.waitOne") : msg("problem.action.wait", { seconds: Math.ceil(seconds) })
  }
  if (status >= 500) return msg("problem.action.later")
  return msg("problem.action.fix")
}

/**
 * A problem from an answer's status and body (problem+json, or anything
 * else), in words for people (ProblemWords.ts): the title by code; a
 * validation problem's "see errors" left to its fields; a refusal's
 * `field: what` detail made a field error a form can mark.
 */
export const problemOf = (status: number, body: unknown, retryAfter: string | null = null): Problem => {
  const json = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
  const code = typeof json.code === "string" ? json.code : `http/${status}`
  const detail = typeof json.detail === "string" ? json.detail : ""
  const listed = Array.isArray(json.errors) ? (json.errors as Array<FieldError>).filter((e) => Array.isArray(e?.path) && typeof e.message === "string") : undefined
  const named = listed === undefined && status === 400 ? detailAsField(detail) : undefined
  const errors = named === undefined ? listed : [named]
  return {
    status,
    code,
    title: titleWords(code, typeof json.title === "string" ? json.title : undefined),
    detail: named !== undefined || (errors !== undefined && errors.length > 0 && pointsToErrors(detail)) ? "" : detail,
    action: actionOf(status, code, retryAfter),
    ...(errors === undefined ? {} : { errors }),
    ...(Array.isArray(json.mismatches)
      ? { mismatches: (json.mismatches as Array<ColumnMismatch>).filter((m) => typeof m?.member === "string" && typeof m.column === "string") }
      : {}),
    ...(Array.isArray(json.file_columns) ? { fileColumns: (json.file_columns as Array<unknown>).filter((c): c is string => typeof c === "string") } : {}),
    ...(code === "dataset/in-use"
      ? { uses: { reports: usesIn(json, "reports", "report_id"), dashboards: usesIn(json, "dashboards", "dashboard_id"), alerts: usesIn(json, "alerts", "alert_id") } }
      : {})
  }
}

/** The problem of a service that did not answer. */
export const networkProblem = (): Problem => ({ status: 0, code: "network", title: msg("problem.network"), detail: "", action: actionOf(0, "network", null) })

/** The problem in `error` (an `ApiProblem`), or a generic one. */
export const problemIn = (error: unknown): Problem =>
  error instanceof ApiProblem ? error.problem : { status: 0, code: "client", title: msg("problem.generic"), detail: String(error), action: msg("problem.action.later") }

/** How a client is made. */
export interface ClientOptions {
  /** What paths are relative to; the page's `<base href>` by default. */
  readonly base?: string | undefined
  /** Told of every 401 but those of calls made with `{ signedOut: true }`. */
  readonly onUnauthorized?: ((problem: Problem) => void) | undefined
}

/** Per-call options. */
export interface CallOptions {
  /** A 401 is an expected answer (checking the session, signing in): `onUnauthorized` is not told. */
  readonly signedOut?: boolean | undefined
  /** Told the answer's headers, success or problem (a polled job's `Retry-After`). */
  readonly onHeaders?: ((headers: Headers) => void) | undefined
}

const unsafe = (method: string) => method !== "GET" && method !== "HEAD"

/** `path` with `cursor` (from a page's `next_cursor`) in its query, when there is one. */
const withCursor = (path: string, cursor: string | null | undefined): string =>
  cursor == null ? path : `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`

/** A client for the service the page is served by. */
export const makeClient = (options: ClientOptions = {}) => {
  const request = async <A>(method: string, path: string, body?: unknown, call: CallOptions = {}): Promise<A> => {
    const headers: Record<string, string> = { accept: "application/json" }
    if (body !== undefined) headers["content-type"] = "application/json"
    const csrf = currentSession()?.csrf_token
    if (unsafe(method) && csrf !== undefined) headers["x-csrf-token"] = csrf
    let response: Response
    try {
      response = await fetch(new URL(path, options.base ?? document.baseURI), {
        method,
        headers,
        credentials: "same-origin",
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
    } catch {
      throw new ApiProblem(networkProblem())
    }
    call.onHeaders?.(response.headers)
    const text = await response.text()
    let json: unknown = undefined
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    if (response.ok) return json as A
    const problem = problemOf(response.status, json, response.headers.get("retry-after"))
    if (response.status === 401 && call.signedOut !== true) options.onUnauthorized?.(problem)
    throw new ApiProblem(problem)
  }
  return {
    /**
     * A call the contract does not type: an address built at run time (the
     * report viewer's fetcher's URL), its answer's type named by the caller.
     */
    request,
    /** `GET path`, answering the endpoint's success as JSON; a path not in the contract does not compile. */
    get: <P extends PathOf<"GET">>(path: P, ...rest: ArgsAt<"GET", P, [call?: CallOptions]>) =>
      request<SuccessAt<"GET", P>>("GET", path, undefined, ...(rest as [CallOptions?])),
    post: <P extends PathOf<"POST">>(path: P, ...rest: ArgsAt<"POST", P, [body?: PayloadAt<"POST", P>, call?: CallOptions]>) => {
      const [body, call] = rest as [unknown?, CallOptions?]
      return request<SuccessAt<"POST", P>>("POST", path, body ?? {}, call)
    },
    patch: <P extends PathOf<"PATCH">>(path: P, ...rest: ArgsAt<"PATCH", P, [body: PayloadAt<"PATCH", P>]>) =>
      request<SuccessAt<"PATCH", P>>("PATCH", path, (rest as [unknown])[0]),
    delete: <P extends PathOf<"DELETE">>(path: P, ...rest: ArgsAt<"DELETE", P, [call?: CallOptions]>) =>
      request<SuccessAt<"DELETE", P>>("DELETE", path, undefined, ...(rest as [CallOptions?])),
    /** One page of a `/v1` list; `cursor` from the previous page's `next_cursor`. */
    list: <P extends PathOf<"GET">>(path: P, ...rest: ArgsAt<"GET", P, [cursor?: string | null]>) =>
      request<SuccessAt<"GET", P>>("GET", withCursor(path, (rest as [(string | null)?])[0]))
  }
}

/** A client. */
export type ApiClient = ReturnType<typeof makeClient>
