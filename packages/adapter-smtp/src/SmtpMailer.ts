/**
 * The `Mailer` port over SMTP, with nodemailer: one pooled transport per
 * layer, closed with it.
 *
 * @since 0.1.0
 */
import { Mailer } from "@analytics/core"
import { Effect, Layer } from "effect"
import * as Nodemailer from "nodemailer"
import type * as SMTPPool from "nodemailer/lib/smtp-pool"

/** Where and as whom mail is sent. */
export interface Options {
  /** `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`. */
  readonly url: string
  /** The sender, e.g. `Analytics <noreply@example.com>`. */
  readonly from: string
  /** How long to wait for the server, per step (default 10 s). */
  readonly timeoutMillis?: number | undefined
}

/** The Mailer on an SMTP server; the transport is closed when the layer is. */
export const layer = (options: Options): Layer.Layer<Mailer.Mailer> =>
  Layer.effect(
    Mailer.Mailer,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => {
          const timeout = options.timeoutMillis ?? 10_000
          return Nodemailer.createTransport({
            url: options.url,
            pool: true,
            connectionTimeout: timeout,
            greetingTimeout: timeout,
            socketTimeout: timeout
          } as SMTPPool.Options)
        }),
        (transport) => Effect.sync(() => transport.close())
      ),
      (transport) => ({
        send: (mail: Mailer.Mail) =>
          Effect.tryPromise({
            try: () =>
              transport.sendMail({
                from: options.from,
                to: [...mail.to],
                subject: mail.subject,
                text: mail.text,
                ...(mail.html === undefined ? {} : { html: mail.html }),
                ...(mail.attachments === undefined ? {} : {
                  attachments: mail.attachments.map((a) => ({
                    filename: a.filename,
                    contentType: a.contentType,
                    content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength)
                  }))
                })
              }),
            catch: (cause) => new Mailer.MailError({ message: `SMTP: ${String((cause as Error)?.message ?? cause)}`, cause })
          }).pipe(Effect.asVoid)
      })
    )
  )
