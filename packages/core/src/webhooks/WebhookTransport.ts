/**
 * Port: sending one webhook attempt over the network. The host plugs in
 * HTTPS with the egress guard (`@analytics/adapter-webhook-https`); tests may
 * plug in anything that answers.
 *
 * An implementation must: connect only where the egress rules allow (after
 * DNS resolution, to the address it checked), never follow a redirect, and
 * give up after `timeoutMillis` of real time.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import { TaggedFailure } from "../platform/Errors.ts"

/** One attempt to send. */
export interface Request {
  readonly url: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  readonly timeoutMillis: number
}

/** The receiver's answer. */
export interface Answer {
  readonly status: number
  /** `Retry-After` in seconds, when the receiver sent one. */
  readonly retryAfterSeconds: number | undefined
  /**
   * The start of the receiver's body as text (`excerptOf`), shown in the
   * deliveries log; `null` when it sent none or none that reads as text.
   */
  readonly bodyExcerpt?: string | null | undefined
  /** The receiver's headers as the attempt keeps them (`headersOf`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The most answer headers an attempt keeps. */
export const keptHeaders = 64

/** The most of one answer header's value an attempt keeps, in characters. */
export const keptHeaderBytes = 1024

/**
 * An answer's headers as an attempt keeps them (decision 0010): names in
 * lower case, repeated ones joined with ", ", the first `keptHeaders` only,
 * each value cut at `keptHeaderBytes` and stripped of control characters:
 * a receiver cannot make the log grow without bound.
 */
export const headersOf = (
  raw: Readonly<Record<string, string | ReadonlyArray<string> | number | undefined>>
): Record<string, string> => {
  const kept: Record<string, string> = {}
  let count = 0
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue
    if (count++ >= keptHeaders) break
    const text = typeof value === "string" ? value : typeof value === "number" ? String(value) : value.join(", ")
    kept[name.toLowerCase()] = text.replace(/[\u0000-\u001F\u007F]/g, "").slice(0, keptHeaderBytes)
  }
  return kept
}

/** The most of a receiver's body an attempt keeps, in bytes. */
export const excerptBytes = 1024

/** Whether a body of this media type reads as text (none given: assumed so). */
export const isTextual = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "" ||
  /^\s*(text\/|application\/([\w.+-]*\+)?(json|xml)\b|application\/(x-www-form-urlencoded|problem\+json)\b)/i.test(contentType)

/**
 * The excerpt an attempt keeps of a body's first bytes: at most
 * `excerptBytes`, decoded as UTF-8 (a character cut at the end dropped),
 * control characters but tab and newlines removed; `null` when empty.
 */
export const excerptOf = (bytes: Uint8Array): string | null => {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, excerptBytes))
    .replace(/\uFFFD$/, "")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "")
  return text.trim() === "" ? null : text
}

/**
 * Why an attempt got no answer. `message` is shown to the tenant in the
 * deliveries log: it never names an address the host resolved to, nor what
 * a resolver said (decision 0010).
 */
export class TransportFailure extends TaggedFailure("TransportFailure")<{
  /**
   * `refused`: the egress guard refused every address of the host (private,
   * loopback, link-local...), or the host does not exist: the delivery fails
   * at once, never retried. `dns`: the resolver failed for now (retried);
   * `tls`: the certificate was not trusted.
   */
  readonly reason: "refused" | "dns" | "timeout" | "network" | "tls"
  readonly message: string
}> {}

/**
 * What a refused delivery records, whatever the reason (a private address,
 * no address at all): one text, so the deliveries log is no oracle for what
 * names resolve to inside the service's network.
 */
export const notPublicAddress = "the URL's host is not a public address"

/** Sends webhook attempts. */
export class WebhookTransport extends Context.Service<WebhookTransport, {
  readonly send: (request: Request) => Effect.Effect<Answer, TransportFailure>
}>()("@analytics/core/WebhookTransport") {}

/** Reads a `Retry-After` header given in seconds (the HTTP-date form is not honoured). */
export const retryAfterSeconds = (value: string | undefined | null): number | undefined => {
  if (value === undefined || value === null || !/^\s*\d{1,9}\s*$/.test(value)) return undefined
  return Number(value)
}
