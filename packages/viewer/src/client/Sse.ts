/**
 * Server-sent events read from a POST: `EventSource` can only GET, so the
 * answer of `POST /v1/ai/ask` (`Accept: text/event-stream`) is read with
 * `fetch` and its body's `ReadableStream`, each `event:`/`data:` frame
 * handed on as it arrives. A refusal before the stream begins is a
 * problem+json answer, thrown as the API client throws it.
 *
 * @since 0.1.0
 */
import { ApiProblem, networkProblem, problemOf } from "./ApiClient.ts"
import { currentSession } from "./Session.ts"

/** One event: its name and its data (JSON). */
export interface ServerEvent {
  readonly event: string
  readonly data: unknown
}

/** Splits the text so far into whole frames; returns the events and what is left of an unfinished one. */
export const frames = (buffer: string): { readonly events: ReadonlyArray<ServerEvent>; readonly rest: string } => {
  const events: Array<ServerEvent> = []
  const parts = buffer.replace(/\r\n/g, "\n").split("\n\n")
  const rest = parts.pop() ?? ""
  for (const part of parts) {
    let event = "message"
    const data: Array<string> = []
    for (const line of part.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim()
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
    }
    if (data.length === 0) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(data.join("\n"))
    } catch {
      parsed = data.join("\n")
    }
    events.push({ event, data: parsed })
  }
  return { events, rest }
}

/**
 * POSTs `body` as JSON to `path` (relative to the page's base) asking for
 * an event stream, and calls `onEvent` for each event as it arrives.
 * `signal` hangs up (the service stops the work).
 */
export const postForEvents = async (
  path: string,
  body: unknown,
  onEvent: (event: ServerEvent) => void,
  options: { readonly signal?: AbortSignal; readonly onUnauthorized?: () => void } = {}
): Promise<void> => {
  const headers: Record<string, string> = { accept: "text/event-stream", "content-type": "application/json" }
  const csrf = currentSession()?.csrf_token
  if (csrf !== undefined) headers["x-csrf-token"] = csrf
  let response: Response
  try {
    response = await fetch(new URL(path, document.baseURI), {
      method: "POST",
      headers,
      credentials: "same-origin",
      body: JSON.stringify(body),
      ...(options.signal === undefined ? {} : { signal: options.signal })
    })
  } catch (error) {
    if (options.signal?.aborted === true) return
    throw new ApiProblem(networkProblem())
  }
  if (!response.ok || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream") || response.body === null) {
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    if (response.status === 401) options.onUnauthorized?.()
    throw new ApiProblem(problemOf(response.ok ? 502 : response.status, json, response.headers.get("retry-after")))
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value
      const { events, rest } = frames(buffer)
      buffer = rest
      for (const event of events) onEvent(event)
    }
  } catch {
    if (options.signal?.aborted === true) return
    throw new ApiProblem(networkProblem())
  }
  for (const event of frames(`${buffer}\n\n`).events) onEvent(event)
}
