import { SignJWT } from "jose"
import { assert, describe, it } from "vitest"
import { assertProblem, call, embeddingContract, operatorToken, serve } from "@analytics/testing/embedding"
import { audience, issuer, start } from "../src/main.ts"

const jwtSecret = "a-test-secret-of-at-least-32-bytes!!"

describe("custom Authenticator embedding", () => {
  let tenantId = ""
  const app = serve(async (port, options) => {
    const running = await start(port, { ...options, jwtSecret })
    tenantId = running.tenantId
    return running
  })
  embeddingContract(app)

  const login = async (user: string) => {
    const answer = await call(`${app.url}/login?user=${user}`, "POST")
    assert.strictEqual(answer.status, 200, answer.text)
    return answer.body.token as string
  }
  const sign = (claims: Record<string, unknown>, options: { secret?: string; expires?: string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("mallory")
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(options.expires ?? "1h")
      .sign(new TextEncoder().encode(options.secret ?? jwtSecret))

  it("the app's own routes still answer", async () => {
    const home = await fetch(`${app.url}/`)
    assert.strictEqual(home.status, 200)
    assert.strictEqual(await home.text(), "Hello from the host app\n")
    assert.strictEqual((await call(`${app.url}/login?user=nobody`, "POST")).status, 401)
  })

  it("the app's session tokens act as members of the app's tenant", async () => {
    const alice = await login("alice")
    const bob = await login("bob")
    const created = await call(`${app.url}/analytics/v1/workspaces`, "POST", { token: alice, body: { name: "Marketing" } })
    assert.strictEqual(created.status, 201, created.text)
    const listed = await call(`${app.url}/analytics/v1/workspaces`, "GET", { token: bob })
    assert.strictEqual(listed.status, 200, listed.text)
    assert.include(listed.body.data.map((w: any) => w.workspace_id), created.body.workspace_id)
  })

  it("a session token is not an operator token", async () => {
    const alice = await login("alice")
    const answer = await call(`${app.url}/analytics/v1/tenants`, "POST", {
      token: alice,
      body: { name: "Sneaky", plan: "scale" }
    })
    assertProblem(answer, 403, "auth/forbidden")
  })

  it("forged, expired or malformed session tokens answer 401", async () => {
    const claims = { email: "m@example.com", tid: tenantId, roles: ["admin"] }
    const forged = await sign(claims, { secret: "another-secret-of-at-least-32-bytes!" })
    const expired = await sign(claims, { expires: "-1m" })
    const badClaims = await sign({ ...claims, tid: "not-a-tenant-id" })
    for (const token of [forged, expired, badClaims, "eyJnot.a.jwt"]) {
      const answer = await call(`${app.url}/analytics/v1/workspaces`, "GET", { token })
      assertProblem(answer, 401, "auth/unauthenticated")
      assert.strictEqual(answer.headers.get("www-authenticate"), "Bearer")
    }
    const valid = await call(`${app.url}/analytics/v1/workspaces`, "GET", { token: await sign(claims) })
    assert.strictEqual(valid.status, 200, valid.text)
  })

  it("the built-in tokens still work beside the session tokens", async () => {
    const provisioned = await call(`${app.url}/analytics/v1/tenants`, "POST", {
      token: operatorToken,
      body: { name: "Other Co", plan: "starter" }
    })
    assert.strictEqual(provisioned.status, 201, provisioned.text)
    assert.notStrictEqual(provisioned.body.tenant_id, tenantId)
    const theirs = await call(`${app.url}/analytics/v1/workspaces`, "GET", { token: provisioned.body.token })
    assert.deepStrictEqual(theirs.body.data, [])
  })
})
