/** The part of S3rver's API the test server uses (the package ships no types). */
declare module "@20minutes/s3rver" {
  import type { AddressInfo } from "node:net"

  interface Options {
    readonly address?: string
    readonly port?: number
    readonly silent?: boolean
    readonly directory?: string
    readonly resetOnClose?: boolean
    readonly allowMismatchedSignatures?: boolean
    readonly vhostBuckets?: boolean
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string; readonly configs?: ReadonlyArray<string | Buffer> }>
  }

  /** Koa's context, as far as the helper reads and writes it. */
  interface Context {
    readonly method: string
    readonly path: string
    readonly query: Record<string, string | ReadonlyArray<string> | undefined>
    status: number
    type: string
    body: unknown
  }

  export default class S3rver {
    constructor(options: Options)
    /** Koa's middleware, run in order; read when the server starts. */
    readonly middleware: Array<(ctx: Context, next: () => Promise<void>) => Promise<void>>
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
