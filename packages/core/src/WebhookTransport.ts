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
import { Context, Data, type Effect } from "effect"

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
}

/** Why an attempt got no answer. */
export class TransportFailure extends Data.TaggedError("TransportFailure")<{
  /** `refused`: the egress guard refused the address; `dns`: the host did not resolve; `tls`: the certificate was not trusted. */
  readonly reason: "refused" | "dns" | "timeout" | "network" | "tls"
  readonly message: string
}> {}

/** Sends webhook attempts. */
export class WebhookTransport extends Context.Service<WebhookTransport, {
  readonly send: (request: Request) => Effect.Effect<Answer, TransportFailure>
}>()("@analytics/core/WebhookTransport") {}

/** Reads a `Retry-After` header given in seconds (the HTTP-date form is not honoured). */
export const retryAfterSeconds = (value: string | undefined | null): number | undefined => {
  if (value === undefined || value === null || !/^\s*\d{1,9}\s*$/.test(value)) return undefined
  return Number(value)
}
