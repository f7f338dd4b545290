/**
 * @analytics/adapter-openai: the Answerer port over an OpenAI-compatible
 * chat-completions API.
 *
 * @since 0.1.0
 */
export * as OpenAiAnswerer from "./OpenAiAnswerer.ts"
