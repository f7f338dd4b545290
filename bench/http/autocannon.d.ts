/** The part of autocannon 9's programmatic API the runner uses (the package ships no types). */
declare module "autocannon" {
  interface Histogram {
    readonly average: number
    readonly mean: number
    readonly stddev: number
    readonly min: number
    readonly max: number
    readonly total: number
    readonly p50: number
    readonly p90: number
    readonly p99: number
  }
  interface Options {
    readonly url: string
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly connections?: number
    readonly pipelining?: number
    readonly duration?: number
    readonly body?: string
    readonly requests?: ReadonlyArray<Request>
  }
  /** One request of the sequence each connection cycles through. */
  interface Request {
    readonly method?: string
    readonly path?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    /** Called before every send of this request (with `requests`): returns the request to send. */
    readonly setupRequest?: (request: Request & { headers: Record<string, string> }, context: unknown) => Request
  }
  interface Result {
    readonly duration: number
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly "2xx": number
    readonly requests: Histogram & { readonly sent: number }
    readonly latency: Histogram & { readonly totalCount: number }
    readonly throughput: Histogram
  }
  function autocannon(options: Options): PromiseLike<Result>
  export default autocannon
}
