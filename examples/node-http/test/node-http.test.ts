import { describe, it, assert } from "vitest"
import { embeddingContract, serve } from "@analytics/testing/embedding"
import { start } from "../src/main.ts"

describe("node:http embedding", () => {
  const app = serve(start)
  embeddingContract(app)

  it("the app's own route still answers", async () => {
    const response = await fetch(`${app.url}/`)
    assert.strictEqual(response.status, 200)
    assert.strictEqual(await response.text(), "Hello from the host app\n")
  })
})
