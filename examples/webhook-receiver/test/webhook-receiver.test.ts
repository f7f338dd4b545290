/**
 * The receiver registered with a real service: the whole API in process
 * (memory stores) and its delivery worker (`Workers.start` with `webhooks`, over
 * `HttpsTransport`), delivering over real HTTPS to the receiver, whose
 * certificate comes from the test run's throwaway CA (`Receiver.certificates()`
 * from `@analytics/testing/webhooks`: the repository's run's, or one made with
 * openssl when this example runs on its own), trusted by both clients here
 * through `ca`.
 */
import { App } from "@analytics/adapter-http"
import { start as startService } from "@analytics/testing/http"
import { Receiver } from "@analytics/testing/webhooks"
import { MemoryStores } from "@analytics/adapter-memory"
import { HttpsTransport } from "@analytics/adapter-webhook-https"
import { EventPublisher, Mailer, WebhookSignature, Workers } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as https from "node:https"
import { type Envelope, start } from "../src/main.ts"

const tls = Receiver.certificates()

/** Waits in real time until `check` holds (deliveries travel over real sockets). */
const until = <A>(read: () => Promise<A> | A, check: (a: A) => boolean, timeoutMillis = 15_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMillis
    for (;;) {
      const value = await read()
      if (check(value)) return value
      if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

/** Posts to the receiver as anyone could (trusting the test run's CA). */
const post = (url: string, body: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const request = https.request(url, { method: "POST", ca: tls.ca, headers: { "content-type": "application/json", ...headers } }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }))
      })
      request.on("error", reject)
      request.end(body)
    })
  )

describe("a webhook receiver registered with the service", () => {
  it.live("accepts signed deliveries, refuses tampered and stale ones, ignores duplicates, survives a rotation", () =>
    Effect.gen(function*() {
      // Processing is held until the test opens the gate: the 200 must not wait for it.
      let openGate: () => void = () => {}
      const gate = new Promise<void>((resolve) => (openGate = resolve))
      const processed: Array<Envelope> = []
      const receiver = yield* Effect.acquireRelease(
        Effect.promise(() =>
          start(0, {
            secrets: [],
            tls: { key: tls.key, cert: tls.cert },
            onEvent: async (event) => {
              await gate
              processed.push(event)
            }
          })
        ),
        (r) => Effect.promise(() => r.close())
      )

      const service = yield* startService(App, MemoryStores.layer)
      const { token } = yield* service.tenant("scale")
      const call = (method: string, p: string, body?: unknown) => service.request(method, p, { token, body })
      const registered = yield* call("POST", "/v1/webhooks", { url: receiver.url, events: ["export.succeeded", "export.failed"] })
      assert.strictEqual(registered.status, 201, registered.text)
      const webhookId: string = registered.body.webhook_id
      const secret: string = registered.body.secret
      receiver.setSecrets([secret])

      // The delivery worker, as the host runs it (`Workers.start`): the service's stores, HTTPS, a mailer.
      // Built in the test's scope: the loops outlive the call that starts them.
      const services = yield* Layer.build(Layer.mergeAll(HttpsTransport.layer({ allowPrivate: true, ca: [tls.ca] }), Mailer.Mailer.layerLog, EventPublisher.EventPublisher.layer).pipe(
        Layer.provide(Layer.succeedContext(service.stores))
      ))
      yield* Workers.start({ exports: false, webhooks: {}, scheduler: false }).pipe(
        Effect.provideContext(services),
        Effect.provideContext(service.stores)
      )
      const deliveries = () =>
        Effect.runPromise(call("GET", `/v1/webhooks/${webhookId}/deliveries`)).then((r) => r.body.data as Array<any>)

      // 1. A signed event is accepted with 200 before it is processed.
      const sent = yield* call("POST", `/v1/webhooks/${webhookId}/test`, { type: "export.succeeded" })
      assert.strictEqual(sent.status, 202, sent.text)
      const [delivered] = yield* until(deliveries, (list) => list[0]?.status === "succeeded")
      assert.deepStrictEqual(delivered.attempts.map((a: any) => a.status_code), [200])
      assert.strictEqual(receiver.stats.accepted, 1)
      assert.strictEqual(processed.length, 0, "answered before processing")
      openGate()
      yield* until(() => processed.length, (n) => n === 1)
      assert.strictEqual(processed[0].type, "export.succeeded")
      const eventId = processed[0].id

      // 2. Tampered, stale and unsigned requests are refused (400), and nothing is processed.
      const body = JSON.stringify({ ...processed[0], id: crypto.randomUUID() })
      const now = Math.floor(Date.now() / 1000)
      const signed = yield* WebhookSignature.sign(body, [secret], now)
      const tampered = yield* post(receiver.url, body.replace("export.succeeded", "export.failed"), { "x-service-signature": signed })
      assert.deepStrictEqual(tampered, { status: 400, body: { error: "no-matching-signature" } })
      const stale = yield* post(receiver.url, body, { "x-service-signature": yield* WebhookSignature.sign(body, [secret], now - 600) })
      assert.deepStrictEqual(stale, { status: 400, body: { error: "timestamp-outside-tolerance" } })
      const unsigned = yield* post(receiver.url, body, {})
      assert.deepStrictEqual(unsigned, { status: 400, body: { error: "missing-header" } })
      const otherSecret = yield* post(receiver.url, body, { "x-service-signature": yield* WebhookSignature.sign(body, ["whsec_someone_elses_secret_000000"], now) })
      assert.deepStrictEqual(otherSecret, { status: 400, body: { error: "no-matching-signature" } })
      // The same bytes, rightly signed, pass: the refusals above were for the tampering alone.
      assert.strictEqual((yield* post(receiver.url, body, { "x-service-signature": signed })).status, 200)
      assert.strictEqual(receiver.stats.refused, 4)

      // 3. A redelivery carries the same envelope id: answered 200, not processed again.
      const again = yield* call("POST", `/v1/webhooks/${webhookId}/deliveries/${delivered.delivery_id}/redeliver`)
      assert.strictEqual(again.status, 202, again.text)
      yield* until(deliveries, (list) => list.find((d) => d.delivery_id === delivered.delivery_id)?.attempts.length === 2)
      yield* until(() => receiver.stats.duplicates, (n) => n === 1)
      assert.strictEqual(processed.filter((e) => e.id === eventId).length, 1)

      // 4. Rotation: for 24 hours each delivery is signed with both secrets, so a receiver
      //    still on the old one and a receiver already on the new one both verify.
      const rotated = yield* call("POST", `/v1/webhooks/${webhookId}/rotate-secret`, {})
      assert.strictEqual(rotated.status, 200, rotated.text)
      const newSecret: string = rotated.body.secret
      assert.notStrictEqual(newSecret, secret)
      for (const [i, accepted] of [[secret], [newSecret]].entries()) {
        receiver.setSecrets(accepted)
        yield* call("POST", `/v1/webhooks/${webhookId}/test`, { type: "export.failed" })
        yield* until(() => processed.filter((e) => e.type === "export.failed").length, (n) => n === i + 1)
      }
      // A receiver on neither secret refuses; the service retries it (a 400 is not "gone").
      receiver.setSecrets(["whsec_neither_of_them_000000000000"])
      yield* call("POST", `/v1/webhooks/${webhookId}/test`, { type: "export.failed" })
      const [refused] = yield* until(deliveries, (list) => list[0]?.attempts.length === 1 && list[0].status === "retrying")
      assert.strictEqual(refused.attempts[0].status_code, 400)
      assert.strictEqual(processed.length, 4)
    }).pipe(Effect.scoped), 60_000)
})
