/** A free TCP port for the throwaway test servers. */
import * as net from "node:net"

/** Binds port 0 on 127.0.0.1, reads the assigned port and releases it. */
export const pickFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on("error", reject)
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = server.address()
      if (address === null || typeof address === "string") {
        server.close()
        reject(new Error("could not determine a free port"))
        return
      }
      const port = address.port
      server.close((err) => (err ? reject(err) : resolve(port)))
    })
  })
