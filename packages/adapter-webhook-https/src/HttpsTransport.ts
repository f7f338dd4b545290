/**
 * The `WebhookTransport` port over Node's HTTPS (decision 0010).
 *
 * - The host is resolved once; the first address the egress guard allows is
 *   pinned for the connection (Node's `lookup` hook answers with it), so a
 *   DNS rebinding between the check and the connect cannot swap it. A host
 *   whose addresses are all refused, or that does not exist, is not
 *   contacted: the failure is `refused` (the delivery fails at once), and
 *   its message is `WebhookTransport.notPublicAddress` alone. Failures
 *   shown to the tenant never name a resolved address or what the resolver
 *   said; the details go to the log (decision 0010).
 * - TLS is verified against Node's root store plus `NODE_EXTRA_CA_CERTS`
 *   (read by Node at start-up), for the URL's host name.
 * - A resolution is reused for a second (the guard still checks it on each
 *   use), so a busy receiver is not looked up per attempt.
 * - 5 s of real time (not the Effect clock: a network wait is physical) for
 *   the whole attempt; redirects are never followed (Node never does); of
 *   the response body the first 1 KB is kept, as text, when it is text
 *   (`WebhookTransport.excerptOf`: the deliveries log shows it), the rest
 *   drained and dropped. The answer's headers are kept, bounded
 *   (`WebhookTransport.headersOf`).
 *
 * @since 0.1.0
 */
import { EgressGuard, WebhookTransport } from "@analytics/core"
import { Effect, Layer } from "effect"
import * as dns from "node:dns"
import * as https from "node:https"
import * as net from "node:net"
import * as tls from "node:tls"

/** How the transport connects. */
export interface Options {
  /** Allow private, loopback and other non-public addresses (`ANALYTICS_WEBHOOK_ALLOW_PRIVATE=true`: tests, private deployments). */
  readonly allowPrivate?: boolean | undefined
  /** Resolves a host name to its addresses (default: the system resolver, `dns.lookup` with `all`). */
  readonly resolve?: ((host: string) => Promise<ReadonlyArray<string>>) | undefined
  /** Extra certificate authorities for this transport only (PEM), on top of Node's (tests). */
  readonly ca?: ReadonlyArray<string> | undefined
  /** Open connections kept per receiver for reuse (default 16). */
  readonly maxSocketsPerHost?: number | undefined
}

/** How long a resolution is reused. */
const resolutionTtlMillis = 1_000
/** Resolutions kept at most (the cache is emptied beyond). */
const maxCachedHosts = 10_000

const systemResolve = (host: string): Promise<ReadonlyArray<string>> =>
  dns.promises.lookup(host, { all: true, verbatim: true }).then((entries) => entries.map((e) => e.address))

const tlsCodes = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_SSL_|HOSTNAME_MISMATCH)/

/** Resolver codes saying the name has no address (NXDOMAIN, no records): not worth retrying. */
const noSuchHost = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"])

const failure = (reason: WebhookTransport.TransportFailure["reason"], message: string) =>
  new WebhookTransport.TransportFailure({ reason, message })

/** A target the guard refuses, or a host with no address: the same words either way. */
const notPublic = () => failure("refused", WebhookTransport.notPublicAddress)

/** Socket errors in words without the address Node's own messages name (`connect ECONNREFUSED 203.0.113.5:443`). */
const networkWords: Record<string, string> = {
  ECONNREFUSED: "the receiver refused the connection",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed while sending",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the receiver's host is unreachable",
  ENETUNREACH: "the receiver's network is unreachable"
}

/**
 * TLS errors in words for the person reading a delivery: Node's own messages
 * speak to whoever runs Node ("try running Node.js with --use-system-ca").
 */
const tlsWords = (code: string): string => {
  if (code === "CERT_HAS_EXPIRED") return "the receiver's certificate has expired"
  if (code === "CERT_NOT_YET_VALID") return "the receiver's certificate is not valid yet"
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH") return "the receiver's certificate is for another name"
  if (code === "DEPTH_ZERO_SELF_SIGNED_CERT" || code === "SELF_SIGNED_CERT_IN_CHAIN" || code.startsWith("UNABLE_TO_") || code.startsWith("CERT_")) {
    return "the receiver's certificate is not signed by a trusted authority"
  }
  return "a secure connection to the receiver could not be made"
}

/** The failure a socket or TLS error stands for. */
const classify = (error: NodeJS.ErrnoException): WebhookTransport.TransportFailure => {
  const code = error.code ?? ""
  if (tlsCodes.test(code)) return failure("tls", tlsWords(code))
  if (code === "") return failure("network", "the connection failed")
  return failure("network", `${code}: ${networkWords[code] ?? "the connection failed"}`)
}

/** Makes a transport; its keep-alive sockets are closed by `close`. */
export const make = (options: Options = {}): WebhookTransport.WebhookTransport["Service"] & { readonly close: () => void } => {
  const resolve = options.resolve ?? systemResolve
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost ?? 16,
    // A secure context made once: a `ca` option would be copied into the agent's key of every request.
    ...(options.ca === undefined ? {} : { secureContext: tls.createSecureContext({ ca: [...tls.getCACertificates("default"), ...options.ca] }) })
  })

  /** Recent answers of the resolver: a busy receiver is not looked up per attempt; the guard still checks each use. */
  const resolved = new Map<string, { readonly addresses: ReadonlyArray<string>; readonly until: number }>()
  const lookup = (host: string): Promise<ReadonlyArray<string>> => {
    const now = Date.now()
    const cached = resolved.get(host)
    if (cached !== undefined && cached.until > now) return Promise.resolve(cached.addresses)
    return resolve(host).then((addresses) => {
      if (resolved.size >= maxCachedHosts) resolved.clear()
      resolved.set(host, { addresses, until: now + resolutionTtlMillis })
      return addresses
    })
  }

  /** The address to connect to: the first the guard allows. */
  const pick = (host: string, deadline: number): Effect.Effect<string, WebhookTransport.TransportFailure> =>
    Effect.gen(function*() {
      const addresses = net.isIP(host) !== 0 ? [host] : yield* Effect.callback<ReadonlyArray<string>, WebhookTransport.TransportFailure>(
        (resume) => {
          const timer = setTimeout(() => resume(Effect.fail(failure("timeout", "the URL's host did not resolve in time"))), deadline - Date.now())
          lookup(host).then(
            (found) => resume(Effect.succeed(found)),
            (error: NodeJS.ErrnoException) =>
              resume(
                Effect.andThen(
                  Effect.logInfo("A webhook receiver's host did not resolve", { host, code: error?.code, error: String(error?.message ?? error) }),
                  Effect.fail(noSuchHost.has(error?.code ?? "") ? notPublic() : failure("dns", "the URL's host could not be resolved for now"))
                )
              )
          ).finally(() => clearTimeout(timer))
        }
      )
      if (addresses.length === 0) {
        return yield* Effect.andThen(Effect.logInfo("A webhook receiver's host has no address", { host }), Effect.fail(notPublic()))
      }
      if (options.allowPrivate === true) return addresses[0]
      const allowed = addresses.find((address) => EgressGuard.refusalOf(address) === undefined)
      if (allowed !== undefined) return allowed
      return yield* Effect.andThen(
        Effect.logInfo("A webhook delivery was refused: its host resolves only to addresses deliveries may not reach", {
          host,
          refused: addresses.map((address) => `${address} (${EgressGuard.refusalOf(address)})`)
        }),
        Effect.fail(notPublic())
      )
    })

  const post = (url: URL, address: string, request: WebhookTransport.Request, deadline: number) =>
    Effect.callback<WebhookTransport.Answer, WebhookTransport.TransportFailure>((resume) => {
      /** Once the status has come: answers with it and what of the body has come. */
      let answerNow: (() => void) | undefined
      const req = https.request(url, {
        method: "POST",
        agent,
        headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
        // The pinned address, whatever the host name resolves to now.
        lookup: (_hostname, lookupOptions, callback) => {
          const family = net.isIP(address)
          if ((lookupOptions as dns.LookupAllOptions).all) callback(null, [{ address, family }] as any)
          else (callback as any)(null, address, family)
        }
      }, (res) => {
        const retryAfter = res.headers["retry-after"]
        const textual = WebhookTransport.isTextual(res.headers["content-type"])
        const chunks: Array<Buffer> = []
        let kept = 0
        let answered = false
        // Answered with the first 1 KB of the body (or all of a shorter one), within the attempt's time;
        // the rest is read to the end and dropped, so the socket can be reused.
        const answer = () => {
          if (answered) return
          answered = true
          clearTimeout(timer)
          resume(Effect.succeed({
            status: res.statusCode ?? 0,
            retryAfterSeconds: WebhookTransport.retryAfterSeconds(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
            bodyExcerpt: textual && kept > 0 ? WebhookTransport.excerptOf(Buffer.concat(chunks)) : null,
            headers: WebhookTransport.headersOf(res.headers)
          }))
        }
        res.on("data", (chunk: Buffer) => {
          if (!textual || kept >= WebhookTransport.excerptBytes) return
          chunks.push(chunk.subarray(0, WebhookTransport.excerptBytes - kept))
          kept += Math.min(chunk.length, WebhookTransport.excerptBytes - kept)
          if (kept >= WebhookTransport.excerptBytes) answer()
        })
        res.on("end", answer)
        // A body cut off: the status still answers.
        res.on("error", answer)
        res.on("aborted", answer)
        answerNow = answer
        if (!textual) answer()
      })
      // Real time, not the Effect clock: the network does not run on a TestClock.
      const timer = setTimeout(() => {
        // The status came but the body is slow: the status answers, with what of the body came.
        if (answerNow !== undefined) answerNow()
        else resume(Effect.fail(failure("timeout", "No answer within the attempt's time")))
        req.destroy()
      }, Math.max(0, deadline - Date.now()))
      req.on("error", (error) => {
        clearTimeout(timer)
        resume(Effect.fail(classify(error)))
      })
      req.end(request.body)
      return Effect.sync(() => {
        clearTimeout(timer)
        req.destroy()
      })
    })

  return {
    send: (request) =>
      Effect.suspend(() => {
        const url = new URL(request.url)
        const deadline = Date.now() + request.timeoutMillis
        const host = url.hostname.replace(/^\[|\]$/g, "")
        return Effect.flatMap(pick(host, deadline), (address) => post(url, address, request, deadline))
      }),
    close: () => agent.destroy()
  }
}

/** The transport as a layer; its sockets close with the layer. */
export const layer = (options: Options = {}): Layer.Layer<WebhookTransport.WebhookTransport> =>
  Layer.effect(
    WebhookTransport.WebhookTransport,
    Effect.map(Effect.acquireRelease(Effect.sync(() => make(options)), (t) => Effect.sync(t.close)), (t) => ({ send: t.send }))
  )
