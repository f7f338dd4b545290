/**
 * Port: sending e-mail (a webhook disabled for its owner, invitations and
 * scheduled exports). The host plugs in SMTP; an embedding app its own
 * mail service; tests the memory mailer. Without one, messages are logged
 * whole and marked as not sent (decision 0015, "Mail without a mail
 * service"), and what records a delivery records it as logged.
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
}> {
  readonly code = "service/unavailable" as const
  /** The sentence its problem says (the message stays in the log). */
  get problemDetail(): string {
    return "The e-mail could not be sent; the invitation is kept: resend it later"
  }
}

/**
 * What became of a message: handed to a mail service (`void`, what a
 * mailer answers unless it says otherwise), or only written to the log
 * (`"logged"`: no mail service is configured, nobody received it).
 */
export type Sent = void | "logged"

/**
 * A message as the log mailer writes it: marked as not sent and why, its
 * recipients, subject and whole text (the links in it included: on a host
 * without mail, the operator's log is the only place a sign-in link or an
 * invitation reaches), its attachments by name and size only.
 */
export const logText = (mail: Mail, reason: string): string =>
  [
    `Mail not sent (${reason}): to ${mail.to.join(", ")}, subject "${mail.subject}"`,
    "",
    mail.text,
    ...(mail.attachments ?? []).map((a) => `[attachment ${a.filename}, ${a.contentType}, ${a.content.byteLength} bytes, not logged]`)
  ].join("\n")

/** A mailer that writes each message whole to the log at info level (`logText`) and answers `"logged"`. */
const logging = (reason: string) => ({
  send: (mail: Mail): Effect.Effect<Sent, MailError> =>
    Effect.as(Effect.logInfo(logText(mail, reason)).pipe(Effect.annotateLogs({ mail: "not sent", to: mail.to.join(", "), subject: mail.subject })), "logged" as const)
})

/** Sends e-mail. */
export class Mailer extends Context.Service<Mailer, {
  /** Sends `mail`; answers `"logged"` when it was only logged, not sent (`Sent`). */
  readonly send: (mail: Mail) => Effect.Effect<Sent, MailError>
}>()("@analytics/core/Mailer") {
  /** Keeps messages in memory instead of sending them: for tests and for hosts without mail. */
  static readonly layerMemory = Layer.sync(Mailer, () => makeMemory().mailer)
  /** Logs each message whole instead of sending it (`logText`): the default where no mail service is configured. */
  static readonly layerLog = Layer.succeed(Mailer, logging("no mail service is configured"))
  /** `layerLog`, its log lines saying why in the deployment's words (the host: "no SMTP_URL"). */
  static readonly layerLogBecause = (reason: string) => Layer.succeed(Mailer, logging(reason))
}

/** A mailer that keeps what it is given, and the list it keeps it in. */
export const makeMemory = (): { readonly mailer: Mailer["Service"]; readonly sent: ReadonlyArray<Mail> } => {
  const sent: Array<Mail> = []
  return { mailer: { send: (mail) => Effect.sync(() => void sent.push(mail)) }, sent }
}
