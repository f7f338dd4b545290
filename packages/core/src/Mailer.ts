/**
 * Port: sending e-mail (a webhook disabled for its owner, later invitations
 * and scheduled exports). The host plugs in SMTP; an embedding app its own
 * mail service; tests the memory mailer.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer } from "effect"

/** One message. */
export interface Mail {
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html?: string | undefined
}

/** The mail service refused or could not be reached; sending may be retried. */
export class MailError extends Data.TaggedError("MailError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Sends e-mail. */
export class Mailer extends Context.Service<Mailer, {
  readonly send: (mail: Mail) => Effect.Effect<void, MailError>
}>()("@analytics/core/Mailer") {
  /** Keeps messages in memory instead of sending them: for tests and for hosts without mail. */
  static readonly layerMemory = Layer.sync(Mailer, () => makeMemory().mailer)
}

/** A mailer that keeps what it is given, and the list it keeps it in. */
export const makeMemory = (): { readonly mailer: Mailer["Service"]; readonly sent: ReadonlyArray<Mail> } => {
  const sent: Array<Mail> = []
  return { mailer: { send: (mail) => Effect.sync(() => void sent.push(mail)) }, sent }
}
