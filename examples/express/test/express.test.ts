import { assert, describe, it } from "vitest"
import { call, embeddingContract, serve } from "@analytics/testing/embedding"
import { start } from "../src/main.ts"

describe("Express embedding", () => {
  const app = serve(start)
  embeddingContract(app)

  it("the app's own routes still answer, with their own JSON body parsing", async () => {
    const home = await fetch(`${app.url}/`)
    assert.strictEqual(home.status, 200)
    assert.strictEqual(await home.text(), "Hello from the Express app\n")
    const echo = await call(`${app.url}/echo`, "POST", { body: { hello: "world" } })
    assert.strictEqual(echo.status, 200, echo.text)
    assert.deepStrictEqual(echo.body, { youSent: { hello: "world" } })
  })
})
