/**
 * The service as a host runs it, in a child process of `run.ts`, so that
 * the runner's HTTP client and its own DuckDB connections do not share the
 * service's event loop: the HTTP API (`App.nodeHandler`) on a loopback
 * port, DuckDB for uploads, memory stores, limits no run reaches, V8 on the
 * host's flags (the runner starts it with them).
 *
 * Sends `{ port }` to its parent when it listens. Environment: `BENCH_DIR`
 * (the service's DuckDB file goes there), `BENCH_OPERATOR_TOKEN`.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { NodeCrypto } from "@analytics/adapter-node"
import { RateLimit } from "@analytics/core"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"

if (process.send !== undefined) {
  const server = Http.createServer({ keepAliveTimeout: 600_000 })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const unlimited = { burst: RateLimit.bucket(1_000_000_000), sustained: RateLimit.window(1_000_000_000) }
  const app = await App.nodeHandler({
    stores: MemoryStores.layer,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    operatorToken: process.env["BENCH_OPERATOR_TOKEN"],
    rateLimits: () => unlimited,
    engines: { upload: DuckDbEngine.layer(join(process.env["BENCH_DIR"]!, "service.duckdb")) },
    maxUploadBytes: 4 * 1024 ** 3,
    // As the host: token hashes and sealed cursors computed synchronously, not through Web Crypto's thread pool.
    crypto: NodeCrypto.primitives
  })
  server.on("request", app.handler)
  process.on("disconnect", () => {
    server.closeAllConnections()
    server.close()
    void app.dispose().finally(() => process.exit(0))
  })
  process.send({ port })
}
