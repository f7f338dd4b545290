/**
 * A real OpenAI-compatible chat-completions server for tests (node:http,
 * in process, on a free loopback port, for the scope), answering
 * `POST /v1/chat/completions` with scripted replies in order: completions
 * with tool calls or content, streamed SSE chunks (ended by `[DONE]`,
 * closed early, cut mid-way, or left hanging), error statuses, and
 * silence. It keeps what it received and sees when a client goes away.
 *
 * @since 0.1.0
 */
import { Effect, type Scope } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A scripted reply. */
export type Reply =
  | { readonly _tag: "Json"; readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly _tag: "Text"; readonly status: number; readonly body: string }
  | {
    readonly _tag: "Stream"
    /** Each event's `data`, sent in order. */
    readonly data: ReadonlyArray<string>
    /** After them: `[DONE]` and the end (`done`), the end without it (`close`), the socket destroyed mid-body (`cut`), or nothing until the client leaves (`hang`). */
    readonly end: "done" | "close" | "cut" | "hang"
  }
  /** No answer at all until the client leaves. */
  | { readonly _tag: "Hang" }

/** A request the server received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  /** The JSON body (undefined when it is not JSON). */
  readonly body: any
  /** Resolves when the client closes the connection before the reply ended. */
  readonly leftEarly: Promise<void>
}

const completion = (message: Record<string, unknown>, finish: string) => ({
  id: "chatcmpl-test",
  object: "chat.completion",
  created: 1_767_225_600,
  model: "test-model",
  choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
})

/** A completion calling one tool; `args` is sent as JSON text (a string is sent as it is, to send malformed JSON). */
export const toolCall = (name: string, args: unknown): Reply => ({
  _tag: "Json",
  status: 200,
  body: completion({
    tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } }]
  }, "tool_calls")
})

/** A completion whose message is text. */
export const content = (text: string): Reply => ({ _tag: "Json", status: 200, body: completion({ content: text }, "stop") })

/** An error status with OpenAI's error body. */
export const error = (status: number, message: string, headers: Readonly<Record<string, string>> = {}): Reply => ({
  _tag: "Json",
  status,
  body: { error: { message, type: "test_error", code: null } },
  headers
})

/** A streamed completion of these content pieces (a first chunk with the role only, as OpenAI sends). */
export const stream = (pieces: ReadonlyArray<string>, end: "done" | "close" | "cut" | "hang" = "done"): Reply => ({
  _tag: "Stream",
  data: [
    { choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    ...pieces.map((piece) => ({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })),
    ...(end === "done" ? [{ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }] : [])
  ].map((chunk) => JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", model: "test-model", ...chunk })),
  end
})

/** No reply until the client leaves. */
export const hang: Reply = { _tag: "Hang" }

/** The running server. */
export interface ChatServer {
  /** The API's base URL, `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string
  /** The requests received, in order. */
  readonly received: Array<Received>
  /** Queues replies for the next requests. */
  readonly script: (...replies: ReadonlyArray<Reply>) => void
  /** Waits until `count` requests have been received. */
  readonly awaitRequests: (count: number) => Effect.Effect<void>
}

const reply = (res: Http.ServerResponse, scripted: Reply | undefined) => {
  if (scripted === undefined) {
    res.writeHead(500, { "content-type": "application/json" })
    return res.end(JSON.stringify({ error: { message: "No scripted reply" } }))
  }
  switch (scripted._tag) {
    case "Json":
      res.writeHead(scripted.status, { "content-type": "application/json", ...scripted.headers })
      return res.end(JSON.stringify(scripted.body))
    case "Text":
      res.writeHead(scripted.status, { "content-type": "text/plain" })
      return res.end(scripted.body)
    case "Hang":
      return
    case "Stream": {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      for (const data of scripted.data) res.write(`data: ${data}\n\n`)
      switch (scripted.end) {
        case "done":
          return res.end("data: [DONE]\n\n")
        case "close":
          return res.end()
        case "cut":
          // Flushed, then the connection dies without the chunked body's end.
          return res.write("", () => res.socket?.destroy())
        case "hang":
          return
      }
    }
  }
}

/** An OpenAI-compatible server on a free loopback port for the scope. */
export const start: Effect.Effect<ChatServer, never, Scope.Scope> = Effect.acquireRelease(
  Effect.callback<{ readonly chat: ChatServer; readonly server: Http.Server }>((resume) => {
    const received: Array<Received> = []
    const queue: Array<Reply> = []
    const waiters = new Set<() => void>()
    const server = Http.createServer((req, res) => {
      const parts: Array<Buffer> = []
      req.on("data", (part: Buffer) => parts.push(part))
      req.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8")
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        const leftEarly = new Promise<void>((resolve) => res.on("close", () => !res.writableFinished && resolve()))
        received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, leftEarly })
        for (const wake of waiters) wake()
        if (req.method !== "POST" || new URL(req.url ?? "/", "http://localhost").pathname !== "/v1/chat/completions") {
          res.writeHead(404, { "content-type": "application/json" })
          return res.end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}` } }))
        }
        reply(res, queue.shift())
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({
        server,
        chat: {
          baseUrl: `http://127.0.0.1:${port}/v1`,
          received,
          script: (...replies) => queue.push(...replies),
          awaitRequests: (count) =>
            Effect.callback<void>((resume) => {
              const wake = () => {
                if (received.length < count) return
                waiters.delete(wake)
                resume(Effect.void)
              }
              waiters.add(wake)
              wake()
              return Effect.sync(() => waiters.delete(wake))
            })
        }
      }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ chat }) => chat))
