/**
 * Test kit: a real SMTP server in process.
 *
 * @since 0.1.0
 */
export * as SmtpServer from "./SmtpServer.ts"
