/**
 * The in-process measure of one server (`inproc.ts` runs it in each
 * server's own process): its request handler called directly with Node's
 * own `IncomingMessage` and `ServerResponse` on a socket that is never
 * connected, the response's bytes kept in memory, so no loopback, kernel or
 * load generator shares the CPU. What remains is the server's own work per
 * request: routing, authentication, rate limiting, the use case, encoding
 * and Node's writing of the response head, the same for every server.
 *
 * The scenarios are `run.ts`'s: page 1, page 2 (page 1's cursor) and the
 * POST mix (first sights and replays of pool keys, each pool key used once
 * before the POST is measured, after the pages). Each is measured in rounds of `requests` requests, 50
 * in flight, after a warm-up; the result is CPU microseconds (all threads,
 * GC included) per request, the median and the best round.
 */
import * as Http from "node:http"
import * as Net from "node:net"
import { benchPath, poolSize, postBody, postKey, workspacesPath } from "./mix.ts"

/** One answer, as much of it as the driver checks. */
interface Answer {
  readonly status: number
  readonly body: string
}

/** CPU µs per request of one scenario: the median and the best of its rounds. */
export interface InProcessResult {
  readonly scenario: string
  readonly medianMicros: number
  readonly bestMicros: number
  readonly rounds: ReadonlyArray<number>
}

/** Calls `server`'s request listeners with a request that never touches a socket; resolves with the answer. */
const call = (server: Http.Server, method: string, url: string, headers: Record<string, string>, body?: string) =>
  new Promise<Answer>((resolve) => {
    const request = new Http.IncomingMessage(new Net.Socket())
    request.method = method
    request.url = url
    request.headers = { host: "127.0.0.1", ...headers }
    request.httpVersionMajor = 1
    request.httpVersionMinor = 1
    request.httpVersion = "1.1"
    if (body !== undefined) {
      request.headers["content-length"] = String(Buffer.byteLength(body))
      request.push(body)
    }
    // As Node's parser does once the message is in: marked complete, then ended (a reader that checks `complete`,
    // as Effect's body stream does, would otherwise take the end for a premature close).
    request.complete = true
    request.push(null)
    const response = new Http.ServerResponse(request)
    const chunks: Array<string> = []
    // Node writes the head and body through `_writeRaw`; without a socket they are kept here.
    Object.assign(response, {
      _writeRaw: (data: string | Uint8Array, _encoding: unknown, callback?: unknown) => {
        chunks.push(typeof data === "string" ? data : Buffer.from(data).toString())
        if (typeof callback === "function") callback()
        return true
      }
    })
    const end = response.end.bind(response) as (...args: Array<unknown>) => Http.ServerResponse
    Object.assign(response, {
      end: (...args: Array<unknown>) => {
        const ended = end(...args)
        const text = chunks.join("")
        resolve({ status: response.statusCode, body: text.slice(text.indexOf("\r\n\r\n") + 4) })
        return ended
      }
    })
    // From a macrotask, as a socket's read delivers a request: Node then runs the ticks the handler scheduled
    // (a stream's resume, an end) before the next one. Called from the driver's promise chain instead, every request of
    // a round would run in one drain of the microtask queue, and the ticks (with the requests they hold) would pile up.
    setImmediate(() => server.emit("request", request, response))
  })

/** Runs `count` requests of `send`, `inFlight` at a time; fails on any answer that is not 2xx. */
const drive = async (count: number, send: (n: number) => Promise<Answer>, label: string, inFlight: number) => {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const answer = await send(next++)
      if (answer.status >= 300) throw new Error(`${label}: ${answer.status} ${answer.body.slice(0, 200)}`)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
}

/** Measures `scenarios` on `server` (already prepared, answering `token`). */
export const measureInProcess = async (
  server: Http.Server,
  token: string,
  options: {
    readonly scenarios: ReadonlyArray<string>
    readonly requests: number
    readonly rounds: number
    /** Requests in flight (50; 1 measures one request at a time). */
    readonly inFlight: number
  }
): Promise<ReadonlyArray<InProcessResult>> => {
  const authorization = `Bearer ${token}`
  const first = await call(server, "GET", benchPath, { authorization })
  if (first.status !== 200) throw new Error(`page 1 answered ${first.status}: ${first.body}`)
  const cursor = (JSON.parse(first.body) as { page: { next_cursor: string } }).page.next_cursor
  const post = (key: string) =>
    call(server, "POST", workspacesPath, { authorization, "content-type": "application/json", "idempotency-key": key }, postBody)
  const pool = Array.from({ length: poolSize }, (_, i) => `inproc-pool-${i}`)
  // Used once each (answered 201) just before the POST is measured: the pages before it read the set-up's rows only, as in `run.ts`.
  const fillPool = async () => {
    for (const key of pool) {
      const created = await post(key)
      if (created.status !== 201) throw new Error(`POST answered ${created.status}: ${created.body}`)
    }
  }
  let sent = 0
  const sends: Record<string, (n: number) => Promise<Answer>> = {
    page1: () => call(server, "GET", benchPath, { authorization }),
    page2: () => call(server, "GET", `${benchPath}&cursor=${cursor}`, { authorization }),
    post: () => {
      const n = sent++
      return post(postKey(n, pool, `inproc-${n}`))
    }
  }
  const results: Array<InProcessResult> = []
  for (const scenario of options.scenarios) {
    const send = sends[scenario]
    if (send === undefined) throw new Error(`unknown scenario ${scenario}`)
    if (scenario === "post") await fillPool()
    await drive(Math.min(3000, options.requests), send, scenario, options.inFlight)
    const rounds: Array<number> = []
    for (let round = 0; round < options.rounds; round++) {
      const before = process.cpuUsage()
      await drive(options.requests, send, scenario, options.inFlight)
      const used = process.cpuUsage(before)
      rounds.push((used.user + used.system) / options.requests)
    }
    const sorted = [...rounds].sort((a, b) => a - b)
    results.push({ scenario, medianMicros: sorted[Math.floor(sorted.length / 2)], bestMicros: sorted[0], rounds })
  }
  return results
}
