/**
 * Export jobs as the browser follows them: `GET /v1/jobs/{job_id}` polled
 * until the job is finished, each poll after the `Retry-After` the service
 * answered (docs/guides/exports.md), its `percent_complete` told as it
 * moves; then its file's signed URL (`GET /v1/jobs/{job_id}/result`), and a
 * download the browser saves under the file's name.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import type { ExportFormats } from "@analytics/core"
import type { MessageKey } from "../i18n/msg.ts"
import type { ApiClient } from "./ApiClient.ts"

/** An export format, as core's table (`ExportFormats`) lists them. */
export type Format = ExportFormats.Format

/**
 * What each format makes a file of, as core's table says. The browser
 * imports core for types only (its size budget), so it keeps this copy of
 * the one column it needs, which the compiler holds to the table: a format
 * the table adds or drops, or one whose kind it changes, fails to compile here.
 */
const renders = {
  pdf: "report",
  xlsx: "report",
  pptx: "report",
  csv: "dataset",
  json: "dataset",
  parquet: "dataset",
  png: "visual",
  sql: "dataset"
} as const satisfies { readonly [F in Format]: ExportFormats.Formats[F]["renders"] }

/** The formats the service exports (`POST /v1/reports/{id}/export`), in the table's order. */
export const formats = Object.keys(renders) as ReadonlyArray<Format>

/** The formats of one visual (its picture, rows or SQL): they name `visual_id`. */
export const visualFormats: ReadonlySet<Format> = new Set(formats.filter((f) => renders[f] !== "report"))

/** The key of a format's words in the console (`export.format.pdf`): a format without them in `en.ts` fails to compile here. */
export const formatWords = (format: Format): MessageKey => `export.format.${format}`

/** A job as `GET /v1/jobs/{job_id}` shows it: its status, how far it is, why it failed, its file once done. */
export type Job = Json<typeof Groups.Exports.JobJson>

/** A job's state. */
export type JobStatus = Job["status"]

/** A finished job's file: where to fetch it (for an hour) and its name. */
export type JobResult = Json<typeof Groups.Exports.JobResultJson>

/** Whether a state is final. */
export const isFinal = (status: JobStatus): boolean => status === "succeeded" || status === "failed" || status === "canceled"

/** How long to wait before the next poll: the service's `Retry-After` (seconds), else a second; never more than ten. */
export const pollDelayMillis = (retryAfter: string | null): number => {
  const seconds = Number(retryAfter)
  return retryAfter !== null && Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : 1000
}

const sleep = (millis: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, millis)
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true })
  })

/**
 * Polls `job` until it is finished (or `signal` aborts: the last job seen
 * is returned), telling `onProgress` of each state.
 */
export const follow = async (client: ApiClient, job: Job, onProgress: (job: Job) => void, signal?: AbortSignal): Promise<Job> => {
  let current = job
  let retryAfter: string | null = null
  while (!isFinal(current.status) && signal?.aborted !== true) {
    await sleep(pollDelayMillis(retryAfter), signal)
    // Aborted while asleep (the compiler cannot see the listener's change).
    if ((signal as AbortSignal | undefined)?.aborted === true) break
    current = await client.get(`v1/jobs/${encodeURIComponent(current.job_id)}`, { onHeaders: (h) => (retryAfter = h.get("retry-after")) })
    onProgress(current)
  }
  return current
}

/** The finished job's file: its signed URL and name. */
export const resultOf = (client: ApiClient, jobId: string): Promise<JobResult> => client.get(`v1/jobs/${encodeURIComponent(jobId)}/result`)

/**
 * Has the browser save the file at `url` as `filename`: a link followed
 * with `download` (the service's own URL; an object store's signed URL
 * names the file in its `Content-Disposition`), so the file streams to
 * disk rather than through the page's memory.
 */
export const download = (url: string, filename: string): void => {
  const link = document.createElement("a")
  link.href = url
  link.download = filename
  link.rel = "noopener"
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
}

/** A file's size in words (`12 KB`, `1.4 MB`). */
export const sizeWords = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
