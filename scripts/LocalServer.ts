/** What the throwaway test servers (PostgreSQL, Redis) share: finding binaries, a free port, their logs and directories. */
import * as fs from "node:fs"
import * as net from "node:net"

/** A throwaway server started for a test run. */
export interface LocalServer {
  /** How clients connect, e.g. `redis://127.0.0.1:<port>`. */
  readonly url: string
  readonly port: number
  /** The temporary directory holding its files and log. */
  readonly dir: string
  /** Stops the server and removes the temporary directory. Idempotent. */
  readonly stop: () => Promise<void>
}

/** Whether `file` is an executable regular file. */
export const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

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

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The last `lines` lines of `text`. */
export const tail = (text: string, lines: number): string => text.trimEnd().split("\n").slice(-lines).join("\n")

/** The last `lines` lines of a server's log, for error messages. */
export const readLogTail = (logFile: string, lines: number): string => {
  try {
    return tail(fs.readFileSync(logFile, "utf8"), lines)
  } catch {
    return "(no server log)"
  }
}

/** Removes a directory and its contents, best effort. */
export const removeDir = (dir: string): void => {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  } catch {
    // best effort
  }
}
