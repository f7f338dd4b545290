/**
 * The SMTP mailer against a real SMTP server (smtp-server, in process, on a
 * loopback port): what it sends arrives, with its envelope and headers, and
 * a server that refuses or is gone gives a MailError, not a defect.
 */
import { SmtpMailer } from "@analytics/adapter-smtp"
import { Mailer } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SmtpServer } from "@analytics/testing/smtp"

const send = (port: number, mail: Mailer.Mail) =>
  Effect.flatMap(Effect.service(Mailer.Mailer), (mailer) => mailer.send(mail)).pipe(
    Effect.provide(SmtpMailer.layer({ url: `smtp://127.0.0.1:${port}`, from: "Analytics <noreply@analytics.test>" }))
  )

describe("SmtpMailer", () => {
  it.live("delivers to a real SMTP server: envelope, headers and body", () =>
    Effect.gen(function*() {
      const { port, received } = yield* SmtpServer.start()
      yield* send(port, {
        to: ["owner@example.com", "ops@example.com"],
        subject: "Webhook disabled",
        text: "Your webhook https://hooks.example.com/in answered 410 and was disabled."
      })
      assert.strictEqual(received.length, 1)
      const [message] = received
      assert.strictEqual(message.from, "noreply@analytics.test")
      assert.deepStrictEqual(message.to, ["owner@example.com", "ops@example.com"])
      assert.match(message.raw, /^Subject: Webhook disabled\r?$/m)
      assert.match(message.raw, /^From: Analytics <noreply@analytics\.test>\r?$/m)
      assert.include(message.raw.replace(/=\r?\n/g, ""), "answered 410 and was disabled.")
    }).pipe(Effect.scoped))

  it.live("a refusal or an unreachable server is a MailError", () =>
    Effect.gen(function*() {
      const { port } = yield* SmtpServer.start({ refuse: true })
      const refused = yield* Effect.flip(send(port, { to: ["owner@example.com"], subject: "x", text: "y" }))
      assert.strictEqual(refused._tag, "MailError")
      assert.include(refused.message, "550")
      // Nothing listens on the port of a closed server.
      const closed = yield* Effect.scoped(Effect.map(SmtpServer.start(), ({ port }) => port))
      const unreachable = yield* Effect.flip(send(closed, { to: ["owner@example.com"], subject: "x", text: "y" }))
      assert.strictEqual(unreachable._tag, "MailError")
    }).pipe(Effect.scoped))

  it("the memory mailer keeps what it is given", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { mailer, sent } = Mailer.makeMemory()
      yield* mailer.send({ to: ["a@example.com"], subject: "s", text: "t" })
      assert.deepStrictEqual(sent, [{ to: ["a@example.com"], subject: "s", text: "t" }])
    })))
})
