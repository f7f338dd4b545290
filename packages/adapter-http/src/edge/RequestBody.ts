/**
 * A request's body read once as text and parsed once as JSON, for every
 * reader on the request path: the idempotency middleware fingerprints it,
 * the compiled payload decoder decodes it, the validation middleware names
 * the values of a failed decoding. Before, each read the text again (the
 * platform decodes the bytes on every read) and parsed it again.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"

/** A body as text, with its parse as JSON. */
export interface JsonBody {
  readonly text: string
  /**
   * `JSON.parse(text)`'s result, or `undefined` when it threw or `text` is
   * empty (not parsed: every reader treats the empty body on its own).
   */
  readonly parsed: { readonly value: unknown } | undefined
}

// Keyed by the request, so the entry goes with it; a request the router rebuilt (another object) only reads and parses again.
const bodies = new WeakMap<HttpServerRequest.HttpServerRequest, JsonBody>()

const parse = (text: string): JsonBody => {
  if (text === "") return { text, parsed: undefined }
  try {
    return { text, parsed: { value: JSON.parse(text) } }
  } catch {
    return { text, parsed: undefined }
  }
}

/**
 * The body of `request`, read and parsed on the first call, the same
 * object after. A failure to read the body is a defect, as
 * `Effect.orDie(request.text)` makes it for every reader here.
 */
export const json = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<JsonBody> => {
  const known = bodies.get(request)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(Effect.orDie(request.text), (text) => {
    // Two readers racing on one request both parse; either result is the same.
    const body = bodies.get(request) ?? parse(text)
    bodies.set(request, body)
    return body
  })
}
