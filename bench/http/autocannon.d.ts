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
