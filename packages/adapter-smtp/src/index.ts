/**
 * @analytics/adapter-smtp: the Mailer port over SMTP.
 *
 * @since 0.1.0
 */
export * as SmtpMailer from "./SmtpMailer.ts"
