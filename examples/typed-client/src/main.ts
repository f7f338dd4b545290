/**
 * Calling the analytics API with the typed client derived from its contract
 * (`Client.make` from `@analytics/api`): every endpoint is a method,
 * payloads are checked and answers decoded by the same schemas the server
 * uses, and problems arrive as typed errors you can `catchTag`.
 *
 * Run it against a host started with the demo data:
 *
 *   ANALYTICS_DEMO=1 ANALYTICS_BOOTSTRAP_TOKEN=ast_local_demo npm start
 *   ANALYTICS_URL=http://localhost:3000 ANALYTICS_TOKEN=ast_local_demo npm start -w @analytics/example-typed-client
 */
import { fileURLToPath } from "node:url"
import { Client } from "@analytics/api"
import { Duration, Effect, Schedule } from "effect"
import { FetchHttpClient } from "effect/http"

/** Where the API is and who calls it. */
export interface Options {
  readonly baseUrl: string
  readonly token: string
}

/** What the tour saw, for the caller to print or check. */
export interface Tour {
  readonly workspaces: ReadonlyArray<string>
  readonly created: { readonly workspaceId: string; readonly replayed: boolean }
  readonly revenueByRegion: ReadonlyArray<{ readonly region: string; readonly revenue: number }>
  readonly refusal: { readonly tag: string; readonly code: string; readonly member: string | undefined }
  readonly export: { readonly jobId: string; readonly polls: number; readonly filename: string; readonly csv: string }
}

/** Polls a job until it is final, at most `attempts` times, `every` apart. */
const untilFinal = (api: Client.Client, jobId: string, every = Duration.millis(250), attempts = 240) =>
  api.exports.job({ params: { job_id: jobId } }).pipe(
    Effect.repeat({
      until: (job) => job.status === "succeeded" || job.status === "failed" || job.status === "canceled",
      schedule: Schedule.spaced(every),
      times: attempts
    })
  )

/**
 * The tour: list and create workspaces (with an idempotency key, sent
 * twice), query the demo's "Sales" dataset, see a refused query as a typed
 * error, then export a visual of "Sales overview" as CSV and poll the job.
 */
export const tour = (options: Options) =>
  Effect.gen(function*() {
    const api = yield* Client.make(options)

    // Lists answer `{ data, page: { next_cursor, has_more } }`; `created_at` is already a Date.
    const listed = yield* api.workspaces.list({ query: { limit: 50, sort: "name" } })
    const demo = listed.data.find((w) => w.name === "Demo workspace")
    if (demo === undefined) return yield* Effect.fail(new Error("No \"Demo workspace\": start the host with ANALYTICS_DEMO=1"))

    // The same Idempotency-Key twice: one workspace, the second answer a replay of the first.
    const key = crypto.randomUUID()
    const first = yield* api.workspaces.create({ payload: { name: "Typed client" }, headers: { "idempotency-key": key } })
    const again = yield* api.workspaces.create({ payload: { name: "Typed client" }, headers: { "idempotency-key": key } })

    const datasets = yield* api.datasets.list({ query: { workspace_id: demo.workspace_id } })
    const sales = datasets.data.find((d) => d.name === "Sales")!
    const result = yield* api.datasets.query({
      params: { id: sales.dataset_id },
      payload: { measures: ["revenue"], dimensions: ["region"], order: [{ member: "region" }] },
      headers: {}
    })
    const revenueByRegion = result.data.map((row) => ({ region: String(row.region), revenue: Number(row.revenue) }))

    // A problem is a typed error: `QueryInvalid` carries the member at fault.
    const refusal = yield* api.datasets.query({
      params: { id: sales.dataset_id },
      payload: { measures: ["profit"] },
      headers: {}
    }).pipe(
      Effect.as({ tag: "none", code: "", member: undefined as string | undefined }),
      Effect.catchTag("QueryInvalid", (problem) =>
        Effect.succeed({ tag: problem._tag, code: problem.code, member: problem.member }))
    )

    // Exports are jobs: 202 with the job, then poll it, then ask for its signed URL.
    const reports = yield* api.reports.list({ query: { workspace_id: demo.workspace_id } })
    const overview = reports.data.find((r) => r.name === "Sales overview")!
    const job = yield* api.exports.export({
      params: { id: overview.report_id },
      payload: { format: "csv", visual_id: "revenue_by_region" },
      headers: { "idempotency-key": crypto.randomUUID() }
    })
    let polls = 0
    const done = yield* untilFinal(api, job.job_id).pipe(Effect.tap(() => Effect.sync(() => polls++)))
    if (done.status !== "succeeded") return yield* Effect.fail(new Error(`export ${done.status}: ${done.error?.detail}`))
    const link = yield* api.exports.result({ params: { job_id: job.job_id } })
    // The signed URL needs no token; it is valid for an hour.
    const csv = yield* Effect.promise(() => fetch(link.url).then((r) => r.text()))

    return {
      workspaces: listed.data.map((w) => w.name),
      created: { workspaceId: first.workspace_id, replayed: again.workspace_id === first.workspace_id },
      revenueByRegion,
      refusal,
      export: { jobId: job.job_id, polls, filename: link.filename, csv }
    } satisfies Tour
  }).pipe(Effect.provide(FetchHttpClient.layer))

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baseUrl = process.env["ANALYTICS_URL"] ?? "http://localhost:3000"
  const token = process.env["ANALYTICS_TOKEN"]
  if (token === undefined) {
    console.error("Set ANALYTICS_TOKEN (the host's ANALYTICS_BOOTSTRAP_TOKEN, or the admin token it printed)")
    process.exit(1)
  }
  const seen = await Effect.runPromise(tour({ baseUrl, token }))
  console.log(`Workspaces: ${seen.workspaces.join(", ")}`)
  console.log(`Created workspace ${seen.created.workspaceId} (same key again replayed it: ${seen.created.replayed})`)
  for (const { region, revenue } of seen.revenueByRegion) console.log(`  ${region.padEnd(6)} ${revenue.toFixed(2)}`)
  console.log(`Asking for "profit": ${seen.refusal.tag} (${seen.refusal.code}, member ${seen.refusal.member})`)
  console.log(`Export ${seen.export.jobId}: ${seen.export.filename} after ${seen.export.polls} polls`)
  console.log(seen.export.csv)
}
