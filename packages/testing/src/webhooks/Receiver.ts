/**
 * A real HTTPS webhook receiver on loopback for tests: records every request
 * (headers, raw body, arrival time) and answers as the test scripts it.
 *
 * Its certificate comes from `TEST_TLS_DIR` (the test run's CA, trusted
 * through `NODE_EXTRA_CA_CERTS`), or from the `tls` option; `certificates()`
 * makes throwaway ones when the run has none (a suite run from its own
 * directory, without the repository's global setup).
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import type * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** One request the receiver got. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  /** `Date.now()` when the body had arrived. */
  readonly at: number
}

/** How to answer: a status (and headers, and a body), or `"hang"` to never answer. */
export type Answer = {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
} | "hang"

/** A running receiver. */
export interface Receiver {
  /** `https://localhost:<port><path>`. */
  readonly url: (path?: string) => string
  readonly port: number
  readonly received: ReadonlyArray<Received>
  /** Sets how the next requests are answered (default 200); a function decides per request. */
  answer(answer: Answer | ((request: Received) => Answer)): void
  /** Resolves when `count` requests have arrived (or rejects after `timeoutMillis`). */
  waitFor(count: number, timeoutMillis?: number): Promise<ReadonlyArray<Received>>
  close(): Promise<void>
}

/** A server key and certificate for `localhost`, `receiver.test`, 127.0.0.1 and ::1, and the CA that signed them (PEM). */
export interface Certificates {
  readonly key: string
  readonly cert: string
  readonly ca: string
}

let made: Certificates | undefined

/**
 * Writes a throwaway CA (`ca.pem`, `ca.key`) and the server certificate it signs (`server.pem`,
 * `server.key`) into `dir`, with the `openssl` CLI.
 */
export const writeCertificates = (dir: string): void => {
  fs.mkdirSync(dir, { recursive: true })
  const openssl = (args: ReadonlyArray<string>) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" })
  fs.writeFileSync(path.join(dir, "server.ext"), [
    "basicConstraints=CA:FALSE",
    "keyUsage=digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    "subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1"
  ].join("\n"))
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-subj", "/CN=Analytics test CA", "-keyout", "ca.key", "-out", "ca.pem",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
    "-keyout", "server.key", "-out", "server.csr"])
  openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
    "-extfile", "server.ext", "-out", "server.pem"])
}

/** Throwaway certificates in a new temporary directory. */
const makeCertificates = (): Certificates => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-receiver-tls-"))
  writeCertificates(dir)
  return readCertificates(dir)
}

const readCertificates = (dir: string): Certificates => ({
  key: fs.readFileSync(path.join(dir, "server.key"), "utf8"),
  cert: fs.readFileSync(path.join(dir, "server.pem"), "utf8"),
  ca: fs.readFileSync(path.join(dir, "ca.pem"), "utf8")
})

/**
 * The test run's certificates (`TEST_TLS_DIR`, made by the repository's
 * vitest global setup), or throwaway ones made once per process when the
 * run has none; then nothing trusts their CA by itself: pass `ca` to the
 * client (`HttpsTransport.layer({ ca: [ca] })`, `https.request({ ca })`).
 */
export const certificates = (): Certificates => {
  const dir = process.env.TEST_TLS_DIR
  if (dir !== undefined && dir !== "") return readCertificates(dir)
  return made ??= makeCertificates()
}

/** Starts a receiver on 127.0.0.1 (and `localhost`) at a free port. */
export const start = async (options: { readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer } } = {}): Promise<Receiver> => {
  const received: Array<Received> = []
  let decide: (request: Received) => Answer = () => ({ status: 200 })
  const waiters: Array<() => void> = []
  const hung = new Set<http.ServerResponse>()
  const server = https.createServer({ ...(options.tls ?? certificates()), keepAlive: true } as https.ServerOptions, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const request: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now()
      }
      received.push(request)
      for (const wake of waiters.splice(0)) wake()
      const answer = decide(request)
      if (answer === "hang") {
        hung.add(res)
        return
      }
      res.writeHead(answer.status, answer.headers ?? {})
      res.end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (p = "/hook") => `https://localhost:${port}${p}`,
    port,
    received,
    answer(answer) {
      decide = typeof answer === "function" ? answer : () => answer
    },
    waitFor(count, timeoutMillis = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Expected ${count} requests within ${timeoutMillis} ms, got ${received.length}`)),
          timeoutMillis
        )
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer)
            resolve(received.slice())
          } else waiters.push(check)
        }
        check()
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
