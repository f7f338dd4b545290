/**
 * Port: sending e-mail (a webhook disabled for its owner, invitations and
 * scheduled exports). The host plugs in SMTP; an embedding app its own
 * mail service; tests the memory mailer.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { TaggedFailure } from "./Errors.ts"

/** A file sent with a message. */
export interface Attachment {
  readonly filename: string
  readonly contentType: string
  readonly content: Uint8Array
}

/** One message. */
export interface Mail {
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html?: string | undefined
  readonly attachments?: ReadonlyArray<Attachment> | undefined
}

/** The mail service refused or could not be reached; sending may be retried. */
export class MailError extends TaggedFailure("MailError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Sends e-mail. */
export class Mailer extends Context.Service<Mailer, {
  readonly send: (mail: Mail) => Effect.Effect<void, MailError>
}>()("@analytics/core/Mailer") {
  /** Keeps messages in memory instead of sending them: for tests and for hosts without mail. */
  static readonly layerMemory = Layer.sync(Mailer, () => makeMemory().mailer)
  /** Logs each message (recipients and subject) instead of sending it: the default where no mail service is configured. */
  static readonly layerLog = Layer.succeed(Mailer, {
    send: (mail: Mail) =>
      Effect.logWarning("No mail service is configured; this e-mail was not sent").pipe(
        Effect.annotateLogs({ to: mail.to.join(", "), subject: mail.subject })
      )
  })
}

/** A mailer that keeps what it is given, and the list it keeps it in. */
export const makeMemory = (): { readonly mailer: Mailer["Service"]; readonly sent: ReadonlyArray<Mail> } => {
  const sent: Array<Mail> = []
  return { mailer: { send: (mail) => Effect.sync(() => void sent.push(mail)) }, sent }
}
