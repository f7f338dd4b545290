/**
 * A handler that reads a service its group did not capture does not
 * compile (`ApiHandlers.group`): the compiled routes give a handler only
 * its request's services, so the compiler, not a request, must refuse it.
 *
 * The same group is compiled twice by `tsc`: with the service captured
 * (no error), and read straight from the handler's context (an error that
 * names the service).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const folder = path.join(import.meta.dirname, "handler-requirements.tmp")
const tsc = path.join(import.meta.dirname, "../../../node_modules/typescript/bin/tsc")

/** A one-endpoint contract whose handler greets through `Greeter`, captured or not. */
const source = (capture: boolean) => `
import { Context, Effect, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import * as ApiHandlers from "../../src/edge/ApiHandlers.ts"
import { captured } from "../../src/handlers/Handling.ts"

class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => Effect.Effect<string> }>()("Greeter") {}

const Api = HttpApi.make("fixture").add(
  HttpApiGroup.make("greetings").add(
    HttpApiEndpoint.get("hello", "/hello/:name", { params: { name: Schema.String }, success: Schema.String })
  )
)

export const greetings = ApiHandlers.group(Api, "greetings", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(${capture ? "Greeter" : ""})
    return handlers.handle("hello", ({ params }) =>
      provide(Effect.flatMap(Greeter, (greeter) => greeter.greet(params.name))))
  }))
`

/**
 * `tsc`'s diagnostics of the fixture itself (the packages it imports are
 * checked under their own projects' options, not the fixture's).
 */
const compile = (capture: boolean): string => {
  fs.writeFileSync(path.join(folder, "Fixture.ts"), source(capture))
  const run = spawnSync(process.execPath, [tsc, "-p", folder], { encoding: "utf8" })
  return `${run.stdout}${run.stderr}`.split("\n").filter((line) => line.includes("Fixture.ts")).join("\n")
}

describe("handler requirements", () => {
  it("a handler reading a service its group did not capture fails to compile, naming the service", () => {
    fs.mkdirSync(folder, { recursive: true })
    try {
      fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({
        extends: "../../../../tsconfig.base.json",
        compilerOptions: { types: ["node"] },
        files: ["Fixture.ts"]
      }))
      expect(compile(true)).toBe("")
      const refused = compile(false)
      expect(refused).toContain("a handler reads services the group did not capture")
      expect(refused).toContain("Greeter")
    } finally {
      fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)
})
