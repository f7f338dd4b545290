import { type DeliveryStore, EgressGuard, RetrySchedule, WebhookDispatcher, WebhookSecrets, WebhookSignature, WebhookTransport, WebhookUrl } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { createHmac } from "node:crypto"
import Stripe from "stripe"

const body = JSON.stringify({
  id: "evt_01",
  type: "export.succeeded",
  created_at: "2026-11-21T12:00:00.000Z",
  workspace_id: "w",
  data: { é: "☃" }
})
const secret = "whsec_current"
const previous = "whsec_previous"
const t = 1_795_000_000
const now = t * 1000

const reasonOf = (effect: Effect.Effect<unknown, WebhookSignature.WebhookVerificationError>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

describe("WebhookSignature", () => {
  it.effect("the header is t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">, computed independently", () =>
    Effect.gen(function*() {
      const value = yield* WebhookSignature.sign(body, [secret], t)
      const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")
      assert.strictEqual(value, `t=${t},v1=${expected}`)
    }))

  it.effect("Stripe's own verifier accepts our header, and ours accepts Stripe's", () =>
    Effect.gen(function*() {
      const value = yield* WebhookSignature.sign(body, [secret], t)
      assert.isTrue(Stripe.webhooks.signature!.verifyHeader(body, value, secret, 300, undefined, t))
      const theirs = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: t })
      assert.deepStrictEqual(yield* WebhookSignature.verify(body, { "x-service-signature": theirs }, [secret], { now }), {
        timestampSeconds: t
      })
    }))

  it.effect("during a rotation each secret signs, and a receiver on either one verifies", () =>
    Effect.gen(function*() {
      const value = yield* WebhookSignature.sign(body, [secret, previous], t)
      assert.strictEqual(WebhookSignature.parse(value)?.v1.length, 2)
      const headers = new Headers({ "X-Service-Signature": value })
      yield* WebhookSignature.verify(body, headers, [secret], { now })
      yield* WebhookSignature.verify(body, headers, [previous], { now })
      assert.isTrue(Stripe.webhooks.signature!.verifyHeader(body, value, previous, 300, undefined, t))
      assert.strictEqual(yield* reasonOf(WebhookSignature.verify(body, headers, ["whsec_other"], { now })), "no-matching-signature")
    }))

  it.effect("the replay window is 300 s either way, to the second", () =>
    Effect.gen(function*() {
      const headers = { "x-service-signature": yield* WebhookSignature.sign(body, [secret], t) }
      for (const offset of [-300, 0, 300]) yield* WebhookSignature.verify(body, headers, [secret], { now: now + offset * 1000 })
      yield* WebhookSignature.verify(body, headers, [secret], { now: now + 300_999 })
      for (const offset of [-301, 301]) {
        assert.strictEqual(
          yield* reasonOf(WebhookSignature.verify(body, headers, [secret], { now: now + offset * 1000 })),
          "timestamp-outside-tolerance"
        )
      }
      yield* WebhookSignature.verify(body, headers, [secret], { now: now + 3_600_000, toleranceSeconds: 3_600 })
    }))

  it.effect("a changed body, timestamp or signature fails; so do missing and malformed headers", () =>
    Effect.gen(function*() {
      const value = yield* WebhookSignature.sign(body, [secret], t)
      const check = (raw: string, headers: Record<string, string>) => reasonOf(WebhookSignature.verify(raw, headers, [secret], { now }))
      assert.strictEqual(yield* check(`${body} `, { "x-service-signature": value }), "no-matching-signature")
      assert.strictEqual(yield* check(body, { "x-service-signature": value.replace(`t=${t}`, `t=${t + 1}`) }), "no-matching-signature")
      assert.strictEqual(yield* check(body, { "x-service-signature": value.slice(0, -1) + (value.endsWith("0") ? "1" : "0") }), "no-matching-signature")
      assert.strictEqual(yield* check(body, {}), "missing-header")
      for (const malformed of ["v1=abc", "t=abc,v1=00", "t=1,t=2", "garbage", "t=,v1="]) {
        assert.strictEqual(yield* check(body, { "x-service-signature": malformed }), "malformed-header", malformed)
      }
      // A header whose only signatures are of another scheme verifies nothing.
      assert.strictEqual(yield* check(body, { "x-service-signature": `t=${t},v0=${"0".repeat(64)}` }), "no-matching-signature")
    }))

  it("verifyWebhook: the same for receivers outside Effect, as a promise", async () => {
    const value = await Effect.runPromise(WebhookSignature.sign(body, [secret], t))
    assert.deepStrictEqual(await WebhookSignature.verifyWebhook(body, { "x-service-signature": value }, [secret], { now }), {
      timestampSeconds: t
    })
    const error = await WebhookSignature.verifyWebhook(`${body}x`, { "x-service-signature": value }, [secret], { now }).then(
      () => undefined,
      (e: unknown) => e
    )
    assert.instanceOf(error, WebhookSignature.WebhookVerificationError)
  })
})

describe("RetrySchedule", () => {
  it("the first attempt, then retries after 5, 10, 20, 40, 60, 60 s; then the delivery is failed", () => {
    const start = 1_000_000
    const attempts = [start]
    for (let failed = 1;; failed++) {
      const next = RetrySchedule.nextAttemptAt(failed, attempts[attempts.length - 1])
      if (next === undefined) break
      attempts.push(next)
    }
    assert.deepStrictEqual(attempts.map((at) => (at - start) / 1000), [0, 5, 15, 35, 75, 135, 195])
  })

  it("outcomes: 2xx succeeds, 404/410 is gone, everything else (3xx included) is retried", () => {
    assert.deepStrictEqual([200, 204, 299].map((s) => RetrySchedule.outcome(s)._tag), ["Succeeded", "Succeeded", "Succeeded"])
    assert.deepStrictEqual([404, 410].map((s) => RetrySchedule.outcome(s)._tag), ["Gone", "Gone"])
    assert.deepStrictEqual(
      [undefined, 301, 302, 400, 401, 429, 500, 503].map((s) => RetrySchedule.outcome(s)._tag),
      Array(8).fill("Retryable")
    )
  })

  it("Retry-After of a 429 or 503 lengthens a wait up to the schedule's longest, never shortens it", () => {
    const retryAfterOf = (status: number, seconds: number) => {
      const result = RetrySchedule.outcome(status, seconds)
      return result._tag === "Retryable" ? result.retryAfterSeconds : undefined
    }
    assert.strictEqual(retryAfterOf(429, 30), 30)
    assert.strictEqual(retryAfterOf(500, 30), undefined)
    assert.strictEqual(RetrySchedule.nextAttemptAt(1, 0, 30), 30_000)
    assert.strictEqual(RetrySchedule.nextAttemptAt(1, 0, 3_600), 60_000)
    assert.strictEqual(RetrySchedule.nextAttemptAt(3, 0, 1), 20_000)
  })
})

describe("WebhookDispatcher.settlementOf", () => {
  // Only the delivery's failure count is read.
  const claim = (failures: number) => ({ delivery: { failures } }) as unknown as DeliveryStore.Claim
  const at = new Date(now)
  const failing = (reason: WebhookTransport.TransportFailure["reason"], message: string) => ({
    failure: new WebhookTransport.TransportFailure({ reason, message })
  })

  it("a target the egress guard refuses fails the delivery at once, recording a generic reason whatever the transport said", () => {
    for (const failures of [0, 3]) {
      const settled = WebhookDispatcher.settlementOf(
        claim(failures),
        failing("refused", "db.internal resolves only to 10.1.2.3 (private)"),
        at,
        12,
        RetrySchedule.defaultWaitsSeconds,
        { "x-service-event": "alert.fire" }
      )
      assert.deepStrictEqual(settled, {
        attempt: {
          attempted_at: at,
          status_code: null,
          latency_ms: 12,
          error: "refused: the URL's host is not a public address",
          // What was sent is kept; there was no answer to keep headers of.
          request_headers: { "x-service-event": "alert.fire" },
          response_headers: null
        },
        status: "failed",
        failures: failures + 1,
        nextAttemptAt: null
      })
    }
  })

  it("other transport failures are retried by the schedule", () => {
    for (const reason of ["dns", "timeout", "network", "tls"] as const) {
      const settled = WebhookDispatcher.settlementOf(claim(0), failing(reason, "x"), at, 0, RetrySchedule.defaultWaitsSeconds)
      assert.strictEqual(settled.status, "retrying", reason)
      assert.strictEqual(settled.nextAttemptAt?.getTime(), now + 5_000)
    }
  })

  it("an answer's headers are kept with the attempt, beside the headers it was sent with", () => {
    const answer = { status: 503, retryAfterSeconds: undefined, bodyExcerpt: null, headers: { "x-trace": "abc" } }
    const settled = WebhookDispatcher.settlementOf(claim(0), { answer }, at, 3, RetrySchedule.defaultWaitsSeconds, { "user-agent": "u" })
    assert.deepStrictEqual(settled.attempt.request_headers, { "user-agent": "u" })
    assert.deepStrictEqual(settled.attempt.response_headers, { "x-trace": "abc" })
    assert.isNull(WebhookDispatcher.settlementOf(claim(0), failing("timeout", "x"), at, 3, RetrySchedule.defaultWaitsSeconds).attempt.response_headers)
  })
})

describe("WebhookUrl", () => {
  const reasonOf = (input: string) => {
    const result = WebhookUrl.parse(input)
    return Result.isSuccess(result) ? "accepted" : result.failure.reason
  }

  it("accepts absolute https URLs with a host", () => {
    for (const url of ["https://hooks.example.com/in", "HTTPS://Example.COM:8443/a?b=c", "https://[2001:db8::1]/x", "https://127.0.0.1/"]) {
      assert.strictEqual(reasonOf(url), "accepted", url)
    }
    assert.deepStrictEqual(WebhookUrl.parse("HTTPS://Example.COM:443/a"), Result.succeed("https://example.com/a"))
  })

  it("refuses every other scheme as webhook/scheme-not-allowed, scheme-relative and bare hosts included", () => {
    for (const url of [
      "http://example.com/",
      "file:///etc/passwd",
      "ftp://example.com/",
      "javascript:alert(1)",
      "data:text/plain,x",
      "ws://example.com/",
      "//example.com/in",
      "example.com/in",
      "https//example.com"
    ]) assert.strictEqual(reasonOf(url), "scheme", url)
  })

  it("refuses credentials, fragments, control characters and malformed hosts", () => {
    for (const url of [
      "https://user:pass@example.com/",
      "https://evil.com@example.com/",
      "https://example.com/#frag",
      "https:///path-only",
      "https:\\\\example.com",
      "https://exa mple.com/",
      "https://example.com/\n",
      "https://",
      `https://example.com/${"a".repeat(2_100)}`
    ]) assert.strictEqual(reasonOf(url), "invalid", url)
  })
})

describe("EgressGuard", () => {
  it("refuses every special-purpose address, IPv4 inside IPv6 included", () => {
    const cases: ReadonlyArray<readonly [string, EgressGuard.Refusal]> = [
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["10.1.2.3", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["fd00:ec2::254", "private"],
      ["fc00::1", "private"],
      ["100.64.0.1", "carrier-grade-nat"],
      ["100.127.255.254", "carrier-grade-nat"],
      ["169.254.169.254", "link-local"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["224.0.0.1", "multicast"],
      ["ff02::1", "multicast"],
      ["255.255.255.255", "reserved"],
      ["198.18.0.1", "reserved"],
      ["192.0.2.10", "reserved"],
      ["2001:db8::1", "reserved"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:169.254.169.254", "link-local"],
      ["64:ff9b::10.0.0.1", "private"],
      ["2002:c0a8:0101::1", "ipv4-embedding"],
      ["2002:808:808::1", "ipv4-embedding"],
      ["localhost", "not-an-address"],
      ["2130706433", "not-an-address"]
    ]
    for (const [address, refusal] of cases) assert.strictEqual(EgressGuard.refusalOf(address), refusal, address)
  })

  it("refuses every IPv6 form that embeds or translates IPv4, whatever the IPv4 address inside", () => {
    for (const address of [
      // IPv4-compatible (::/96), as the prober wrote it and in dotted form.
      "::7f00:1",
      "[::7f00:1]",
      "::127.0.0.1",
      "::808:808",
      // IPv4-translated (::ffff:0:0:0/96).
      "::ffff:0:7f00:1",
      "::ffff:0:8.8.8.8",
      // Local-use NAT64 (64:ff9b:1::/48): the deployment's own translator reaches private IPv4.
      "64:ff9b:1::7f00:1",
      "64:ff9b:1::808:808",
      // 6to4 (2002::/16).
      "2002:7f00:1::1"
    ]) assert.strictEqual(EgressGuard.refusalOf(address), "ipv4-embedding", address)
    // Mapped and well-known NAT64 forms are checked as their IPv4 address.
    for (const [address, refusal] of [
      ["::ffff:0.0.0.1", "unspecified"],
      ["::ffff:100.64.0.1", "carrier-grade-nat"],
      ["::ffff:198.18.0.1", "reserved"],
      ["64:ff9b::7f00:1", "loopback"],
      ["64:ff9b::192.168.0.1", "private"],
      ["64:ff9b::240.0.0.1", "reserved"]
    ] as const) assert.strictEqual(EgressGuard.refusalOf(address), refusal, address)
  })

  it("refuses every range of the IANA special-purpose registries, and IPv6 outside global unicast", () => {
    const cases: ReadonlyArray<readonly [string, EgressGuard.Refusal]> = [
      // IPv4 registry.
      ["0.1.2.3", "unspecified"],
      ["100.64.0.0", "carrier-grade-nat"],
      ["192.0.0.8", "reserved"],
      ["192.0.0.170", "reserved"],
      ["192.88.99.1", "reserved"],
      ["198.19.255.255", "reserved"],
      ["198.51.100.7", "reserved"],
      ["203.0.113.9", "reserved"],
      ["240.0.0.1", "reserved"],
      ["239.255.255.250", "multicast"],
      // IPv6 registry.
      ["::", "unspecified"],
      ["0:0:0:0:0:0:0:1", "loopback"],
      ["100::1", "reserved"],
      ["100:0:0:1::1", "reserved"],
      ["2001::1", "reserved"],
      ["2001:1::1", "reserved"],
      ["2001:20::1", "reserved"],
      ["2001:1ff:ffff::1", "reserved"],
      ["2001:db8:1::1", "reserved"],
      ["3fff::1", "reserved"],
      ["5f00::1", "reserved"],
      ["fc00::1", "private"],
      ["fdff:ffff::1", "private"],
      ["fec0::1", "private"],
      ["febf::1", "link-local"],
      ["ff0e::1", "multicast"],
      // Outside 2000::/3: reserved by the IETF, never a receiver.
      ["1::1", "reserved"],
      ["4000::1", "reserved"],
      ["e000::1", "reserved"],
      ["::1:0:0:1", "reserved"]
    ]
    for (const [address, refusal] of cases) assert.strictEqual(EgressGuard.refusalOf(address), refusal, address)
  })

  it("lets public unicast addresses through", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2001:200::1", "2a00:1450:4001::200e"]) {
      assert.strictEqual(EgressGuard.refusalOf(address), undefined, address)
    }
  })
})

describe("WebhookSecrets", () => {
  it.effect("generated secrets are whsec_ and 256 random bits, never twice the same", () =>
    Effect.gen(function*() {
      const a = yield* WebhookSecrets.generate
      const b = yield* WebhookSecrets.generate
      assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(a, b)
    }))

  it.effect("after a rotation both secrets sign for 24 h, then only the new one; receivers on either verify meanwhile", () =>
    Effect.gen(function*() {
      const rotatedAt = now
      const secrets = WebhookSecrets.rotate({ current: previous }, secret, rotatedAt)
      const during = WebhookSecrets.signing(secrets, rotatedAt + WebhookSecrets.overlapMillis - 1)
      assert.deepStrictEqual(during, [secret, previous])
      assert.deepStrictEqual(WebhookSecrets.signing(secrets, rotatedAt + WebhookSecrets.overlapMillis), [secret])
      const header = yield* WebhookSignature.sign(body, during, t)
      yield* WebhookSignature.verify(body, { "x-service-signature": header }, [previous], { now })
      // A second rotation keeps only the secret it replaces.
      const again = WebhookSecrets.rotate(secrets, "whsec_third", rotatedAt + 1_000)
      assert.deepStrictEqual(WebhookSecrets.signing(again, rotatedAt + 2_000), ["whsec_third", secret])
    }))
})
