/**
 * A real SMTP server for tests (smtp-server, in process, on a free loopback
 * port, for the scope): what it receives, envelope and raw message.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

/** One message the server accepted. */
export interface Received {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** An SMTP server on a free loopback port for the scope (`refuse`: answer 550); what it received. */
export const start = (options: { readonly refuse?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly port: number; readonly received: Array<Received>; readonly server: SMTPServer }>((resume) => {
      const received: Array<Received> = []
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        onData(stream, session, callback) {
          let raw = ""
          stream.setEncoding("utf8")
          stream.on("data", (chunk: string) => (raw += chunk))
          stream.on("end", () => {
            if (options.refuse) return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }))
            received.push({
              from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address),
              raw
            })
            callback()
          })
        }
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ port: (server.server.address() as AddressInfo).port, received, server })))
    }),
    ({ server }) => Effect.callback<void>((resume) => server.close(() => resume(Effect.void)))
  )

