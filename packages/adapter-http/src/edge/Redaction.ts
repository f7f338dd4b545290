/**
 * What a problem body never repeats (decision 0001): the value of a
 * sensitive field a client sent (a password, a secret, a token, a key),
 * and a path on the server's file system (an engine's or a store's message
 * naming a temporary file or the data directory).
 *
 * Validation issues leave out the rejected value of a field whose name
 * says it is sensitive (`issuesOf` in `Middleware.ts`). Every problem
 * response is checked on its way out (`scrubProblem`): a `detail` naming a
 * server path is replaced by a generic text, the original logged under the
 * request's id.
 *
 * @since 0.1.0
 */
import { ServerPaths } from "@analytics/core"

/** Names of fields whose values are never repeated back. */
const sensitiveName = /pass(?:word|phrase|wd)?|secret|token|api[-_]?key|private[-_]?key|credential|authorization|cookie|signature|session/i

/** Whether a field at `path` (its keys, outermost first) holds a value never repeated back. */
export const isSensitivePath = (path: ReadonlyArray<PropertyKey>): boolean =>
  path.some((key) => typeof key === "string" && sensitiveName.test(key))

/**
 * An issue's message without the value it repeats (`Expected …, got "ab"`)
 * when the field is sensitive, or when the repeated value itself names a
 * sensitive field (a whole object echoed by a check on its parent).
 */
export const withoutEchoedValue = (message: string, sensitive: boolean): string => {
  const got = message.indexOf(", got ")
  if (got < 0) return message
  return sensitive || sensitiveName.test(message.slice(got)) ? message.slice(0, got) : message
}

/** Whether `text` names a path on a file system (core's `ServerPaths`). */
export const namesServerPath = ServerPaths.names

/** The paths `text` names. */
export const pathsIn = ServerPaths.pathsIn

/** What replaces a `detail` that named a server path. */
export const withheldDetail = (title: string | undefined) =>
  `${title ?? "The request failed"}. The details name a file on the server: they are in the service's log under this problem's request_id.`

/**
 * A problem body (parsed JSON) whose `detail` names a server path, with the
 * detail replaced, and the original; `undefined` when it names none. Issue
 * messages (`errors`) are left alone: they describe what the client sent
 * (a rejected `"../../etc/passwd"` is the client's text, not a path of ours).
 */
export const scrubProblem = (
  body: Record<string, unknown>,
  /** What the client sent (its URL, its JSON body): a path found there is the client's own text, repeated back. */
  sent: ReadonlyArray<string> = []
): { readonly body: Record<string, unknown>; readonly withheld: string } | undefined => {
  if (typeof body.detail !== "string") return undefined
  const ours = pathsIn(body.detail).filter((path) => !sent.some((text) => text.includes(path)))
  return ours.length === 0
    ? undefined
    : { body: { ...body, detail: withheldDetail(typeof body.title === "string" ? body.title : undefined) }, withheld: body.detail }
}
