/**
 * A throwaway certificate authority and a server certificate it signs, for
 * tests with real HTTPS receivers on loopback. Made with the `openssl` CLI.
 *
 * The server certificate names `localhost`, `receiver.test`, 127.0.0.1 and
 * ::1. Trusting `ca.pem` through `NODE_EXTRA_CA_CERTS` is how receivers are
 * trusted, exactly as an operator trusts a private CA.
 *
 * Runs under Node 24 native type stripping: erasable syntax only.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** Where the files are. */
export interface TestCertificates {
  readonly dir: string
  readonly caCert: string
  readonly serverKey: string
  readonly serverCert: string
}

const openssl = (args: ReadonlyArray<string>, cwd: string) => execFileSync("openssl", args, { cwd, stdio: "pipe" })

/** Writes a CA and a server certificate into `dir` (created if needed). */
export const makeTestCertificates = (dir: string): TestCertificates => {
  fs.mkdirSync(dir, { recursive: true })
  const config = path.join(dir, "server.ext")
  fs.writeFileSync(config, [
    "basicConstraints=CA:FALSE",
    "keyUsage=digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    "subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1"
  ].join("\n"))
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-subj", "/CN=Analytics test CA", "-keyout", "ca.key", "-out", "ca.pem",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], dir)
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
    "-keyout", "server.key", "-out", "server.csr"], dir)
  openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
    "-extfile", "server.ext", "-out", "server.pem"], dir)
  return {
    dir,
    caCert: path.join(dir, "ca.pem"),
    serverKey: path.join(dir, "server.key"),
    serverCert: path.join(dir, "server.pem")
  }
}

/** The certificates of the current test run (made by the vitest global setup), from `TEST_TLS_DIR`. */
export const testCertificates = (): TestCertificates => {
  const dir = process.env.TEST_TLS_DIR
  if (dir === undefined || dir === "") throw new Error("TEST_TLS_DIR is not set: run the tests through vitest's global setup")
  return {
    dir,
    caCert: path.join(dir, "ca.pem"),
    serverKey: path.join(dir, "server.key"),
    serverCert: path.join(dir, "server.pem")
  }
}
