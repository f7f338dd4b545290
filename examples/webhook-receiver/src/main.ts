/**
 * A webhook receiver for the analytics service on plain `node:http` /
 * `node:https`: it verifies each delivery's signature over the raw body with
 * `WebhookSignature.verifyWebhook` from `@analytics/core`, ignores an event
 * it has already seen (deliveries are at least once: a retry or a
 * redelivery carries the same envelope id), answers 200 at once and
 * processes the event after answering (the service waits 5 s at most).
 *
 * Run it (it must be reachable over HTTPS: give it a certificate, or put it
 * behind your TLS-terminating proxy):
 *
 *   WEBHOOK_SECRETS=whsec_… TLS_KEY_FILE=key.pem TLS_CERT_FILE=cert.pem PORT=8443 \
 *     npm start -w @analytics/example-webhook-receiver
 *
 * During a secret rotation list both secrets (`WEBHOOK_SECRETS=whsec_new,whsec_old`);
 * the service signs with both for 24 hours, so either verifies.
 */
import { fileURLToPath } from "node:url"
import { type Events, WebhookSignature } from "@analytics/core"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"

/** The envelope every delivery carries (decision 0010): `id`, `type`, `created_at`, `workspace_id`, `data`. */
export type Envelope = Events.Envelope

/** How the receiver is set up. */
export interface Options {
  /** The secrets to accept: one, or two during a rotation. */
  readonly secrets: ReadonlyArray<string>
  /** Serve HTTPS with this key and certificate; plain HTTP without (behind a TLS-terminating proxy). */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer } | undefined
  /** Your work for one event, run after the 200 has been sent; at most once per envelope id. */
  readonly onEvent?: ((event: Envelope) => Promise<void> | void) | undefined
  /** The path deliveries are posted to. */
  readonly path?: string | undefined
}

/** A running receiver. */
export interface Receiver {
  readonly url: string
  /** Changes the accepted secrets (a rotation) without a restart. */
  readonly setSecrets: (secrets: ReadonlyArray<string>) => void
  /** What it did, for a dashboard or a test. */
  readonly stats: { accepted: number; duplicates: number; refused: number }
  readonly close: () => Promise<void>
}

/** The largest body accepted; the service's envelopes are far smaller. */
const maxBodyBytes = 1024 * 1024

/**
 * Envelope ids already handled. In production, make this a table with a
 * unique key on the id (insert, and treat a conflict as "already done"), so
 * that every instance of the receiver shares it and it survives restarts.
 * Here: the most recent 100,000 ids in memory (deliveries are retried for
 * about 3 minutes and redelivered by hand, so recent ids are what repeat).
 */
const seenIds = () => {
  const ids = new Set<string>()
  return {
    /** Records `id`; false when it was already there. */
    add: (id: string) => {
      if (ids.has(id)) return false
      ids.add(id)
      if (ids.size > 100_000) ids.delete(ids.values().next().value!)
      return true
    }
  }
}

/** Reads the body as received, up to the cap; `undefined` when it is larger. */
const rawBody = (request: http.IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        resolve(undefined)
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const answer = (response: http.ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

/** Starts the receiver on `port` (0: a free one) on all local addresses. */
export const start = async (port: number, options: Options): Promise<Receiver> => {
  let secrets = options.secrets
  const path = options.path ?? "/webhooks/analytics"
  const seen = seenIds()
  const stats = { accepted: 0, duplicates: 0, refused: 0 }

  const handler = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.url !== path) return answer(response, 404, { error: "not found" })
    if (request.method !== "POST") return answer(response, 405, { error: "POST only" })
    const body = await rawBody(request)
    if (body === undefined) return answer(response, 413, { error: "body too large" })
    // Verify the bytes as received: re-serialised JSON would not match the signature.
    const verified = await WebhookSignature.verifyWebhook(body, request.headers, secrets).then(
      () => undefined,
      (error: WebhookSignature.WebhookVerificationError) => error
    )
    if (verified !== undefined) {
      stats.refused++
      // A 4xx other than 404/410 is retried by the service (a misconfigured
      // secret is often fixed within minutes); 404 or 410 would disable the webhook.
      return answer(response, 400, { error: verified.reason })
    }
    const event = JSON.parse(body) as Envelope
    if (!seen.add(event.id)) {
      stats.duplicates++
      return answer(response, 200, { duplicate: true })
    }
    stats.accepted++
    // Answer first, then work: the service counts anything slower than 5 s as a failure.
    answer(response, 200, { received: event.id })
    if (options.onEvent !== undefined) {
      // Here the event is handed on in process; a real receiver would put it on its own
      // queue (or a table) in the same step that records its id, so a crash loses nothing.
      Promise.resolve(options.onEvent(event)).catch((error) => console.error(`processing ${event.id} failed`, error))
    }
  }

  const server = options.tls === undefined
    ? http.createServer((req, res) => void handler(req, res))
    : https.createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => void handler(req, res))
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, resolve))
  const scheme = options.tls === undefined ? "http" : "https"
  return {
    url: `${scheme}://localhost:${(server.address() as AddressInfo).port}${path}`,
    setSecrets: (next) => void (secrets = next),
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secrets = (process.env["WEBHOOK_SECRETS"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (secrets.length === 0) {
    console.error("Set WEBHOOK_SECRETS to the secret POST /v1/webhooks returned (two, comma-separated, during a rotation)")
    process.exit(1)
  }
  const keyFile = process.env["TLS_KEY_FILE"]
  const certFile = process.env["TLS_CERT_FILE"]
  const receiver = await start(Number(process.env["PORT"] ?? 8443), {
    secrets,
    tls: keyFile !== undefined && certFile !== undefined
      ? { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }
      : undefined,
    onEvent: (event) => console.log(`${event.created_at} ${event.type} ${event.id} ${JSON.stringify(event.data)}`)
  })
  console.log(`Receiving webhooks at ${receiver.url}`)
  process.once("SIGINT", () => void receiver.close())
  process.once("SIGTERM", () => void receiver.close())
}
