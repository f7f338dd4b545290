/**
 * Ours: the full service stack (HttpApi routes, middleware, core use cases,
 * in-memory stores) behind `node:http`, exactly as an embedding app mounts it.
 * The tenant and its workspaces are created through the API itself.
 */
import { App } from "@analytics/adapter-http"
import { NodeCrypto } from "@analytics/adapter-node"
import { MemoryStores } from "@analytics/adapter-memory"
import { RateLimit, ServiceSecrets } from "@analytics/core"
import { Context, Effect, Layer } from "effect"
import * as Http from "node:http"
import { cursorSecret, operatorToken, serve, workspaceCount, workspaceName } from "./shared.ts"

const post = async (base: string, path: string, token: string, body: unknown): Promise<Record<string, unknown>> => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = (await response.json()) as Record<string, unknown>
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(json)}`)
  return json
}

const unlimited = { burst: RateLimit.bucket(1_000_000_000), sustained: RateLimit.window(1_000_000_000) }

/** The in-memory stores, their cursor secret the runner's (the peers seal with it too). */
const stores = MemoryStores.layer.pipe(
  Layer.tap((context) =>
    Context.get(context, ServiceSecrets.ServiceSecrets).getOrCreate(
      "cursor-hmac",
      Effect.succeed(Buffer.from(cursorSecret).toString("base64url"))
    )
  )
)

const server = Http.createServer()
let dispose: () => Promise<void> = () => Promise.resolve()

await serve("ours", server, async (port) => {
  const publicBaseUrl = `http://127.0.0.1:${port}`
  // Rate limiting runs on every request (counted, headers written), with limits no benchmark run reaches.
  const app = await App.nodeHandler({
    stores,
    // On Node, as the host runs: hashes and seals computed synchronously.
    crypto: process.env["BENCH_WEBCRYPTO"] === "1" ? undefined : NodeCrypto.primitives,
    publicBaseUrl,
    operatorToken,
    rateLimits: () => unlimited,
    edgeRateLimits: { anonymous: unlimited, operator: unlimited }
  })
  dispose = app.dispose
  server.on("request", app.handler)

  const tenant = await post(publicBaseUrl, "/v1/tenants", operatorToken, { name: "Bench", plan: "scale" })
  const token = tenant["token"]
  if (typeof token !== "string" || typeof tenant["tenant_id"] !== "string") {
    throw new Error(`POST /v1/tenants answered no token: ${JSON.stringify(tenant)}`)
  }
  for (let i = 1; i <= workspaceCount; i++) {
    await post(publicBaseUrl, "/v1/workspaces", token, { name: workspaceName(i) })
  }
  return token
}, () => dispose())
