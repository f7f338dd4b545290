/**
 * Which answerer the host's AI questions use: the OpenAI-compatible model
 * when `ANALYTICS_AI_BASE_URL` is set, else the built-in one, offline.
 *
 * @since 0.1.0
 */
import { OpenAiAnswerer } from "@analytics/adapter-openai"
import { type Answerer, BuiltInAnswerer } from "@analytics/core"
import { Option, type Layer } from "effect"
import type { HostConfig } from "./HostConfig.ts"

/** The answerer layer the configuration names. */
export const answererLayer = (config: Pick<HostConfig, "ai">): Layer.Layer<Answerer.Answerer> =>
  Option.match(config.ai, {
    onNone: () => BuiltInAnswerer.layer,
    onSome: (ai) =>
      OpenAiAnswerer.layer({
        baseUrl: ai.baseUrl,
        apiKey: Option.getOrUndefined(ai.apiKey),
        model: ai.model,
        timeoutMillis: ai.timeoutSeconds * 1000
      })
  })
