/**
 * The flood of `bench/fairness`, in a process of its own (so its clients
 * do not share the measuring process's event loop): `clients` loops, each
 * posting tenant B's query back to back. A 429 is counted by its problem
 * code and retried after its `Retry-After`. Started by `run.ts` with
 * `fork`; its settings come as JSON in `argv[2]`; it runs until told
 * `"stop"`, then answers its counts and exits.
 */
import { percentile } from "./shared.ts"

interface FloodSettings {
  readonly url: string
  readonly token: string
  readonly datasetId: string
  readonly clients: number
  readonly query: unknown
}

const settings = JSON.parse(process.argv[2]!) as FloodSettings
let stopping = false
const latencies: Array<number> = []
const refused: Record<string, number> = {}
let completed = 0
let failed = 0
let waitedSeconds = 0

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const client = async () => {
  const body = JSON.stringify(settings.query)
  while (!stopping) {
    const start = performance.now()
    try {
      const response = await fetch(`${settings.url}/v1/datasets/${settings.datasetId}/query`, {
        method: "POST",
        headers: { authorization: `Bearer ${settings.token}`, "content-type": "application/json" },
        body
      })
      const text = await response.text()
      if (response.status === 200) {
        completed++
        latencies.push(performance.now() - start)
      } else if (response.status === 429) {
        const code = (JSON.parse(text) as { code?: string }).code ?? "unknown"
        refused[code] = (refused[code] ?? 0) + 1
        const after = Number(response.headers.get("retry-after") ?? "1")
        waitedSeconds += after
        await sleep(after * 1000)
      } else {
        failed++
        await sleep(100)
      }
    } catch {
      failed++
      await sleep(100)
    }
  }
}

const started = performance.now()
const clients = Array.from({ length: settings.clients }, client)
process.on("message", async (message) => {
  if (message !== "stop") return
  stopping = true
  const seconds = (performance.now() - started) / 1000
  await Promise.all(clients)
  process.send!({
    seconds,
    completed,
    perSecond: completed / seconds,
    failed,
    refused,
    waitedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99)
  }, () => process.exit(0))
})
process.send!("ready")
