import { WebhookTransport } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HttpsTransport } from "../src/index.ts"
import { Receiver } from "@analytics/testing/webhooks"

const request = (url: string, timeoutMillis = 5_000): WebhookTransport.Request => ({
  url,
  body: "{\"id\":\"evt_1\"}",
  headers: { "content-type": "application/json", "x-service-event": "alert.fire" },
  timeoutMillis
})

/** Runs `f` with a receiver and a transport, closing both. */
const withReceiver = <A, E>(
  options: HttpsTransport.Options,
  f: (receiver: Receiver.Receiver, transport: ReturnType<typeof HttpsTransport.make>) => Effect.Effect<A, E>
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => Receiver.start()),
    (receiver) =>
      Effect.acquireUseRelease(Effect.sync(() => HttpsTransport.make(options)), (t) => f(receiver, t), (t) => Effect.sync(t.close)),
    (receiver) => Effect.promise(() => receiver.close())
  )

const failureOf = <A>(exit: Exit.Exit<A, WebhookTransport.TransportFailure>) => {
  assert.isTrue(Exit.isFailure(exit), "expected the attempt to fail")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  return (error as any)?.error as WebhookTransport.TransportFailure
}

describe("HttpsTransport", () => {
  it.live("posts the body and headers over TLS trusted through NODE_EXTRA_CA_CERTS, and reads Retry-After", () =>
    withReceiver({ allowPrivate: true }, (receiver, transport) =>
      Effect.gen(function*() {
        receiver.answer({ status: 503, headers: { "retry-after": "30" } })
        const { headers, ...answer } = yield* transport.send(request(receiver.url("/in?x=1")))
        assert.deepStrictEqual(answer, { status: 503, retryAfterSeconds: 30, bodyExcerpt: null })
        // The answer's headers, kept with the attempt (decision 0010).
        assert.strictEqual(headers?.["retry-after"], "30")
        const [got] = receiver.received
        assert.strictEqual(got.method, "POST")
        assert.strictEqual(got.path, "/in?x=1")
        assert.strictEqual(got.body, "{\"id\":\"evt_1\"}")
        assert.strictEqual(got.headers["x-service-event"], "alert.fire")
        assert.strictEqual(got.headers["host"], `localhost:${receiver.port}`)
      })))

  it.live("keeps the first 1 KB of a text answer as its excerpt (a character cut at the end dropped); none of a binary one", () =>
    withReceiver({ allowPrivate: true }, (receiver, transport) =>
      Effect.gen(function*() {
        receiver.answer({ status: 422, headers: { "content-type": "application/json" }, body: "{\"error\":\"unknown event\"}" })
        const { headers: _, ...unknown } = yield* transport.send(request(receiver.url()))
        assert.deepStrictEqual(unknown, { status: 422, retryAfterSeconds: undefined, bodyExcerpt: "{\"error\":\"unknown event\"}" })
        // 1023 ASCII bytes then "é" (2 bytes) and more: the excerpt stops before the cut character.
        const long = `${"a".repeat(1023)}é${"b".repeat(100_000)}`
        receiver.answer({ status: 500, headers: { "content-type": "text/plain; charset=utf-8" }, body: long })
        const answer = yield* transport.send(request(receiver.url()))
        assert.strictEqual(answer.bodyExcerpt, "a".repeat(1023))
        receiver.answer({ status: 200, headers: { "content-type": "application/octet-stream" }, body: new Uint8Array([0, 1, 2, 3]) })
        assert.strictEqual((yield* transport.send(request(receiver.url()))).bodyExcerpt, null)
        receiver.answer({ status: 200, headers: { "content-type": "text/plain" }, body: "ok\u0000\u0007 done\n" })
        assert.strictEqual((yield* transport.send(request(receiver.url()))).bodyExcerpt, "ok done\n")
      })))

  it.live("keeps the answer's headers bounded: lower-case names, repeats joined, at most 64, each value at most 1,024 characters", () =>
    withReceiver({ allowPrivate: true }, (receiver, transport) =>
      Effect.gen(function*() {
        const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`X-Many-${i}`, `v${i}`]))
        receiver.answer({ status: 200, headers: { "X-Long": "y".repeat(5_000), ...many } })
        const { headers } = yield* transport.send(request(receiver.url()))
        assert.strictEqual(Object.keys(headers ?? {}).length, WebhookTransport.keptHeaders)
        assert.strictEqual(headers?.["x-long"], "y".repeat(WebhookTransport.keptHeaderBytes))
        assert.deepStrictEqual(WebhookTransport.headersOf({ "Set-Cookie": ["a=1", "b=2"], "x-n": 3, gone: undefined }), { "set-cookie": "a=1, b=2", "x-n": "3" })
      })))

  it.live("never follows a redirect", () =>
    withReceiver({ allowPrivate: true }, (receiver, transport) =>
      Effect.gen(function*() {
        receiver.answer((r) => r.path === "/hook" ? { status: 302, headers: { location: receiver.url("/elsewhere") } } : { status: 200 })
        const answer = yield* transport.send(request(receiver.url()))
        assert.strictEqual(answer.status, 302)
        yield* Effect.sleep("100 millis")
        assert.deepStrictEqual(receiver.received.map((r) => r.path), ["/hook"])
      })))

  it.live("gives up after the attempt's time, in real time", () =>
    withReceiver({ allowPrivate: true }, (receiver, transport) =>
      Effect.gen(function*() {
        receiver.answer("hang")
        const started = Date.now()
        const failure = failureOf(yield* Effect.exit(transport.send(request(receiver.url(), 300))))
        assert.strictEqual(failure.reason, "timeout")
        assert.isAtLeast(Date.now() - started, 290)
      })))

  it.live("refuses loopback, private and metadata addresses unless allowed, by IP or by a name resolving to one", () =>
    withReceiver({}, (receiver, transport) =>
      Effect.gen(function*() {
        for (const url of [
          receiver.url(),
          `https://127.0.0.1:${receiver.port}/hook`,
          `https://[::1]:${receiver.port}/hook`,
          `https://[::ffff:127.0.0.1]:${receiver.port}/hook`,
          "https://169.254.169.254/latest/meta-data",
          "https://10.0.0.1/",
          "https://100.64.0.1/"
        ]) {
          const failure = failureOf(yield* Effect.exit(transport.send(request(url))))
          assert.strictEqual(failure.reason, "refused", url)
          // One generic reason: never the address, nor which kind of address it is.
          assert.strictEqual(failure.message, WebhookTransport.notPublicAddress, url)
        }
        assert.strictEqual(receiver.received.length, 0)
      })))

  it.live("a name resolving to an internal address, or to none, is refused in the same words; a resolver failing for now is retryable", () =>
    Effect.gen(function*() {
      const resolver = (answer: ReadonlyArray<string> | string) => async (): Promise<ReadonlyArray<string>> => {
        if (typeof answer !== "string") return answer
        throw Object.assign(new Error(`getaddrinfo ${answer} db.internal.example`), { code: answer })
      }
      const messages: Array<string> = []
      for (const answer of [["10.1.2.3"], ["fd00:ec2::254"], ["169.254.169.254", "127.0.0.1"], [], "ENOTFOUND", "ENODATA"]) {
        const transport = HttpsTransport.make({ resolve: resolver(answer) })
        try {
          const failure = failureOf(yield* Effect.exit(transport.send(request("https://db.internal.example/hook"))))
          assert.strictEqual(failure.reason, "refused", String(answer))
          messages.push(failure.message)
        } finally {
          transport.close()
        }
      }
      assert.deepStrictEqual(new Set(messages), new Set([WebhookTransport.notPublicAddress]))
      const flaky = HttpsTransport.make({ resolve: resolver("EAI_AGAIN") })
      try {
        const failure = failureOf(yield* Effect.exit(flaky.send(request("https://db.internal.example/hook"))))
        assert.strictEqual(failure.reason, "dns")
        assert.notInclude(failure.message, "getaddrinfo")
        assert.notInclude(failure.message, "EAI_AGAIN")
      } finally {
        flaky.close()
      }
    }))

  it.live("a connection failure's message names no address", () =>
    Effect.gen(function*() {
      // A port nothing listens on, behind a name (allowed here): Node's own message would say "connect ECONNREFUSED 127.0.0.1:<port>".
      const closed = yield* Effect.promise(() => Receiver.start())
      const port = closed.port
      yield* Effect.promise(() => closed.close())
      const transport = HttpsTransport.make({ allowPrivate: true, resolve: async () => ["127.0.0.1"] })
      try {
        const failure = failureOf(yield* Effect.exit(transport.send(request(`https://receiver.test:${port}/hook`))))
        assert.strictEqual(failure.reason, "network")
        assert.strictEqual(failure.message, "ECONNREFUSED: the receiver refused the connection")
      } finally {
        transport.close()
      }
    }))

  it.live("connects to the address it checked, however the name resolves later (no rebinding), verifying TLS for the name", () =>
    Effect.gen(function*() {
      let lookups = 0
      // First answer loopback (allowed here), then a different address: the connection must use the first.
      const resolve = async (host: string) => {
        assert.strictEqual(host, "receiver.test")
        return ++lookups === 1 ? ["127.0.0.1"] : ["192.0.2.1"]
      }
      yield* withReceiver({ allowPrivate: true, resolve }, (receiver, transport) =>
        Effect.gen(function*() {
          const answer = yield* transport.send(request(`https://receiver.test:${receiver.port}/hook`))
          assert.strictEqual(answer.status, 200)
          assert.strictEqual(lookups, 1)
          assert.strictEqual(receiver.received[0].headers["host"], `receiver.test:${receiver.port}`)
        }))
      // A name resolving to loopback and a public address is pinned to the public one, never loopback.
      // (1.1.1.1 is public; whether it answers on this port here does not matter, only that loopback is never used.)
      const mixed = async () => ["127.0.0.1", "1.1.1.1"]
      yield* withReceiver({ resolve: mixed }, (receiver, transport) =>
        Effect.gen(function*() {
          const failure = failureOf(yield* Effect.exit(transport.send(request(`https://receiver.test:${receiver.port}/hook`, 500))))
          assert.oneOf(failure.reason, ["timeout", "network", "tls"])
          assert.strictEqual(receiver.received.length, 0)
        }))
    }))

  it.live("rejects a certificate no trusted CA signed, and refuses an unknown host (permanently) even where private addresses are allowed", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "untrusted-"))
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", "k.pem", "-out", "c.pem"], {
        cwd: dir,
        stdio: "pipe"
      })
      const receiver = yield* Effect.promise(() =>
        Receiver.start({ tls: { key: fs.readFileSync(path.join(dir, "k.pem")), cert: fs.readFileSync(path.join(dir, "c.pem")) } })
      )
      const transport = HttpsTransport.make({ allowPrivate: true })
      try {
        const failure = failureOf(yield* Effect.exit(transport.send(request(receiver.url()))))
        assert.strictEqual(failure.reason, "tls")
        // In words for the admin reading the delivery, not Node's hint to whoever runs Node.
        assert.strictEqual(failure.message, "the receiver's certificate is not signed by a trusted authority")
        assert.notInclude(failure.message, "--use-system-ca")
        assert.strictEqual(receiver.received.length, 0)
        // .invalid never resolves (RFC 6761); a resolver with no network at all may say "try again" (dns, retried) instead.
        const unknown = failureOf(yield* Effect.exit(transport.send(request("https://no-such-host.invalid/hook"))))
        assert.oneOf(unknown.reason, ["refused", "dns"])
        assert.notInclude(unknown.message, "getaddrinfo")
      } finally {
        transport.close()
        yield* Effect.promise(() => receiver.close())
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))
})
