/**
 * A throwaway certificate authority and a server certificate it signs, for
 * tests with real HTTPS receivers on loopback, made by the test kits' `writeCertificates`
 * (the `openssl` CLI).
 *
 * The server certificate names `localhost`, `receiver.test`, 127.0.0.1 and
 * ::1. Trusting `ca.pem` through `NODE_EXTRA_CA_CERTS` is how receivers are
 * trusted, exactly as an operator trusts a private CA.
 *
 * Runs under Node 24 native type stripping: erasable syntax only.
 */
import * as path from "node:path"
import { writeCertificates } from "../packages/testing/src/webhooks/Receiver.ts"

/** Where the files are. */
export interface TestCertificates {
  readonly dir: string
  readonly caCert: string
  readonly serverKey: string
  readonly serverCert: string
}

/** Writes a CA and a server certificate into `dir` (created if needed). */
export const makeTestCertificates = (dir: string): TestCertificates => {
  writeCertificates(dir)
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
