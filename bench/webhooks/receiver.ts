/**
 * The loopback receiver of `bench:webhooks`, in its own process so it does
 * not share the sender's CPU: an HTTPS server answering 200 at once, which
 * keeps the arrival time of every event id. The parent asks for them over
 * IPC (`{ report: true }`), which also clears them.
 *
 * Environment: TLS_KEY, TLS_CERT (paths).
 */
import * as Fs from "node:fs"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"

let arrivals: Array<[id: string, at: number]> = []
let other = 0

const server = Https.createServer({
  key: Fs.readFileSync(process.env.TLS_KEY!),
  cert: Fs.readFileSync(process.env.TLS_CERT!),
  keepAlive: true
}, (req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const at = Date.now()
    try {
      arrivals.push([JSON.parse(Buffer.concat(chunks).toString("utf8")).id, at])
    } catch {
      other++
    }
    res.writeHead(200)
    res.end()
  })
})

server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }))
process.on("message", (message: { report?: boolean }) => {
  if (message.report !== true) return
  process.send!({ arrivals, other })
  arrivals = []
  other = 0
})
process.on("disconnect", () => process.exit(0))
