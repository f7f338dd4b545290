/**
 * An embedding app that authenticates API calls with its own sessions: it
 * signs HS256 JWTs for its users at `POST /login`, and plugs into the API an
 * `Authenticator` that verifies them with `jose`. Other bearer tokens (the
 * operator's, the tenant API tokens) still go to the built-in authenticator.
 */
import { fileURLToPath } from "node:url"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { Authenticator, Errors, Principal, Tenant, Tenants } from "@analytics/core"
import { Effect, Exit, Layer, Option, Redacted, Schema, Scope } from "effect"
import { jwtVerify, SignJWT } from "jose"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants; provisioning is off without one. */
  readonly operatorToken?: string | undefined
  /** The HS256 key the app signs its session tokens with; random per process by default. */
  readonly jwtSecret?: string | undefined
}

/** Who signs the app's session tokens, and for whom. */
export const issuer = "urn:example:host-app"
export const audience = "urn:example:analytics"

/** The app's own users (a stand-in for its user database). */
const users: Record<string, { readonly email: string; readonly roles: ReadonlyArray<string> }> = {
  alice: { email: "alice@example.com", roles: ["admin"] },
  bob: { email: "bob@example.com", roles: ["viewer"] }
}

/** The claims of a session token, checked after the signature. */
const Session = Schema.Struct({
  sub: Schema.String,
  email: Schema.String,
  tid: Tenant.TenantId,
  roles: Schema.Array(Schema.String)
})

/**
 * The port: a bearer credential becomes a principal. Our JWTs become members
 * of the tenant they name; any other token goes to the built-in authenticator.
 */
export const jwtAuthenticator = (secret: Uint8Array, operatorToken: string | undefined) =>
  Layer.effect(
    Authenticator.Authenticator,
    Effect.gen(function*() {
      const builtIn = yield* Authenticator.Authenticator
      const invalid = new Errors.Unauthenticated({ detail: "The session token is not valid" })
      return Authenticator.Authenticator.of({
        authenticate: (credential) => {
          const token = Redacted.value(credential)
          if (!token.startsWith("eyJ")) return builtIn.authenticate(credential) // not a JWT
          return Effect.tryPromise(() => jwtVerify(token, secret, { issuer, audience, algorithms: ["HS256"] })).pipe(
            Effect.flatMap(({ payload }) => Schema.decodeUnknownEffect(Session)(payload)),
            Effect.map((s) => new Principal.Member({ tenantId: s.tid, userId: s.sub, email: s.email, roles: s.roles })),
            Effect.mapError(() => invalid)
          )
        }
      })
    })
  ).pipe(
    Layer.provide(Authenticator.layerTokens({
      operatorToken: Option.map(Option.fromUndefinedOr(operatorToken), Redacted.make)
    }))
  )

export const start = async (port: number, options: Options = {}) => {
  const secretText = options.jwtSecret ?? process.env["JWT_SECRET"]
  const secret = secretText === undefined ? randomBytes(32) : new TextEncoder().encode(secretText)
  const operatorToken = options.operatorToken ?? process.env["ANALYTICS_OPERATOR_TOKEN"]

  // Build the stores once, so that the app can provision its tenant in the same stores the API serves.
  // (With a persistent store, provision once and keep the tenant id with the app's organisation.)
  const scope = Effect.runSync(Scope.make())
  const stores = await Effect.runPromise(Layer.buildWithScope(MemoryStores.layer, scope))
  const { tenant } = await Effect.runPromise(
    Tenants.provision({ name: "Example Co", plan: "growth" }).pipe(Effect.provide(stores))
  )

  // --- embedding: the API with our authenticator in place of the default one
  const api = await App.nodeHandler({
    stores: Layer.succeedContext(stores),
    authenticator: jwtAuthenticator(secret, operatorToken),
    publicBaseUrl: process.env["PUBLIC_BASE_URL"] ?? `http://localhost:${port}/analytics`,
    prefix: "/analytics"
    // no `operatorToken` here: a custom authenticator replaces the built-in one, which jwtAuthenticator wraps
  })
  // --- end of embedding

  /** The app's sign-in (a stand-in without passwords): a session token its users also present to the API. */
  const login = (name: string) => {
    const user = Object.hasOwn(users, name) ? users[name] : undefined
    if (user === undefined) return Promise.resolve(undefined)
    return new SignJWT({ email: user.email, tid: tenant.tenant_id, roles: user.roles })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(name)
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(secret)
  }

  const server = createServer(async (req, res) => {
    if (/^\/analytics(?:[/?]|$)/.test(req.url ?? "/")) return api.handler(req, res)
    const { pathname, searchParams } = new URL(req.url ?? "/", "http://localhost")
    if (req.method === "POST" && pathname === "/login") {
      const token = await login(searchParams.get("user") ?? "")
      if (token === undefined) return void res.writeHead(401).end()
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token }))
    }
    if (req.method === "GET" && pathname === "/") {
      return void res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Hello from the host app\n")
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n")
  })
  await new Promise<void>((resolve) => server.listen(port, resolve))
  const url = `http://localhost:${(server.address() as AddressInfo).port}`
  return {
    url,
    /** The tenant the app's users belong to. */
    tenantId: tenant.tenant_id,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await api.dispose()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env["PORT"] ?? 3000))
  console.log(`Listening on ${url} (analytics API under ${url}/analytics)`)
  console.log(`Sign in: curl -X POST '${url}/login?user=alice'`)
  process.once("SIGINT", () => void close())
  process.once("SIGTERM", () => void close())
}
