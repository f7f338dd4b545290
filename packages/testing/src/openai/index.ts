/**
 * Test kit: a real OpenAI-compatible chat-completions server in process.
 *
 * @since 0.1.0
 */
export * as ChatServer from "./ChatServer.ts"
