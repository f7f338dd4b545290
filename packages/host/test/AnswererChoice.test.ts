/**
 * The AI variables: validated like the others (the host refuses to start
 * naming the bad one), and the answerer they choose: the OpenAI-compatible
 * one on a real loopback chat-completions server when ANALYTICS_AI_BASE_URL
 * is set (its key and model sent), else the built-in one (nothing sent).
 */
import { ChatServer } from "@analytics/testing/openai"
import { Answerer } from "@analytics/core"
import * as AnswererChoice from "../src/AnswererChoice.ts"
import * as HostConfig from "../src/HostConfig.ts"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"

const load = (env: Record<string, string>) =>
  HostConfig.load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ANALYTICS_STORE: "memory", ...env } }))))

const question: Answerer.Question = {
  text: "total amount by region",
  dataset: {
    name: "Sales",
    description: null,
    model: { dimensions: [{ name: "region", type: "string" }], measures: [{ name: "amount", aggregation: "sum", column: "amount" }] }
  },
  context: [],
  now: new Date("2026-03-15T10:00:00Z")
}

const planWith = (config: HostConfig.HostConfig) =>
  Effect.flatMap(Effect.service(Answerer.Answerer), (a) => a.plan(question)).pipe(Effect.provide(AnswererChoice.answererLayer(config)))

describe("AI configuration", () => {
  it.effect("the variables are read, defaulted and checked, each problem naming its variable", () =>
    Effect.gen(function*() {
      const none = yield* load({})
      assert.isTrue(Option.isNone(none.ai))
      const set = yield* load({
        ANALYTICS_AI_BASE_URL: "http://127.0.0.1:11434/v1",
        ANALYTICS_AI_MODEL: "llama3.1",
        ANALYTICS_AI_API_KEY: "sk-secret"
      })
      const ai = Option.getOrThrow(set.ai)
      assert.deepStrictEqual([ai.baseUrl, ai.model, ai.timeoutSeconds], ["http://127.0.0.1:11434/v1", "llama3.1", 30])
      assert.strictEqual(Redacted.value(Option.getOrThrow(ai.apiKey)), "sk-secret")
      assert.notInclude(String(ai.apiKey), "sk-secret")

      const problems = (env: Record<string, string>) => Effect.flip(load(env))
      assert.match((yield* problems({ ANALYTICS_AI_BASE_URL: "ftp://models.example.com", ANALYTICS_AI_MODEL: "m" })).join("\n"), /^ANALYTICS_AI_BASE_URL: /m)
      assert.match((yield* problems({ ANALYTICS_AI_BASE_URL: "https://api.openai.com/v1" })).join("\n"), /^ANALYTICS_AI_BASE_URL needs ANALYTICS_AI_MODEL/m)
      assert.match(
        (yield* problems({ ANALYTICS_AI_BASE_URL: "https://api.openai.com/v1", ANALYTICS_AI_MODEL: "m", ANALYTICS_AI_TIMEOUT_SECONDS: "0" })).join("\n"),
        /^ANALYTICS_AI_TIMEOUT_SECONDS: /m
      )
      assert.deepStrictEqual(yield* problems({ ANALYTICS_AI_MODEL: "m", ANALYTICS_AI_API_KEY: "k" }), [
        "ANALYTICS_AI_API_KEY needs ANALYTICS_AI_BASE_URL (without it the built-in answerer answers, offline)",
        "ANALYTICS_AI_MODEL needs ANALYTICS_AI_BASE_URL (without it the built-in answerer answers, offline)"
      ])
    }))

  it.live("ANALYTICS_AI_BASE_URL chooses the OpenAI-compatible answerer with the key and model; without it the built-in one answers", () =>
    Effect.gen(function*() {
      const server = yield* ChatServer.start
      server.script(ChatServer.toolCall("cannot_answer", { reason: "Asked the configured model." }))
      const configured = yield* load({ ANALYTICS_AI_BASE_URL: server.baseUrl, ANALYTICS_AI_MODEL: "llama3.1", ANALYTICS_AI_API_KEY: "sk-secret" })
      assert.deepStrictEqual(yield* planWith(configured), { _tag: "CannotAnswer", reason: "Asked the configured model." })
      assert.strictEqual(server.received[0].headers.authorization, "Bearer sk-secret")
      assert.strictEqual(server.received[0].body.model, "llama3.1")

      const builtIn = yield* planWith(yield* load({}))
      assert.strictEqual(builtIn._tag, "Query")
      assert.strictEqual(server.received.length, 1)
    }).pipe(Effect.scoped))
})
