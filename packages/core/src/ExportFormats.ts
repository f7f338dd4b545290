/**
 * Making an export's file from its job: the rows of one visual as CSV or
 * JSON (with its columns' schema), or the SQL it compiles to in a chosen
 * dialect. Each runs as the job's requester (their row-level security) with
 * the job's filters added to the visual's own.
 *
 * @since 0.1.0
 */
import { Effect, Stream } from "effect"
import type { EngineError } from "./AnalyticsEngine.ts"
import * as Csv from "./Csv.ts"
import * as Datasets from "./Datasets.ts"
import type { DatasetStore } from "./DatasetStore.ts"
import { NotFound } from "./Errors.ts"
import type { ExportJob } from "./ExportJob.ts"
import { findVisual, type Visual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import type { ReportStore } from "./ReportStore.ts"

/** A made file, ready to keep. */
export interface Rendered {
  readonly filename: string
  readonly contentType: string
  readonly body: Stream.Stream<Uint8Array, EngineError>
  readonly warnings: ReadonlyArray<string>
}

const encoder = new TextEncoder()
const text = (value: string) => Stream.make(encoder.encode(value))

/** A file name from a visual's id, safe in a `Content-Disposition` header. */
const fileName = (visual: Visual, extension: string) => `${visual.id.replace(/[^A-Za-z0-9_.-]/g, "_")}.${extension}`

/** The visual a single-visual export names, in the job's report. */
const visualOf = (job: ExportJob) =>
  Effect.gen(function*() {
    const report = yield* Reports.get(job.tenant_id, job.report_id)
    const found = findVisual(report, job.request.visual_id ?? "")
    if (found === undefined) return yield* new NotFound({ resource: "visual", id: job.request.visual_id ?? "" })
    return { report, visual: found.visual }
  })

const rowsOf = (job: ExportJob) =>
  Reports.queryVisual(job.tenant_id, job.report_id, job.request.visual_id ?? "", job.security, job.request.filters ?? [])

/** Makes the file of a job whose format this service produces (`Exports.availableFormats`). */
export const render = (job: ExportJob) =>
  Effect.gen(function*() {
    switch (job.request.format) {
      case "csv": {
        const { compiled, rows, visual } = yield* rowsOf(job)
        return {
          filename: fileName(visual, "csv"),
          contentType: "text/csv; charset=utf-8",
          body: text(Csv.table(compiled.columns.map((c) => c.name), rows)),
          warnings: []
        } satisfies Rendered
      }
      case "json": {
        const { compiled, rows, visual } = yield* rowsOf(job)
        const document = {
          visual: { id: visual.id, type: visual.type, title: visual.title ?? null, dataset_id: visual.dataset_id },
          columns: compiled.columns.map((c) => ({ name: c.name, member: c.member, kind: c.kind, type: c.type, granularity: c.granularity ?? null })),
          row_count: rows.length,
          rows
        }
        return { filename: fileName(visual, "json"), contentType: "application/json", body: text(JSON.stringify(document)), warnings: [] } satisfies Rendered
      }
      case "parquet": {
        const { visual } = yield* visualOf(job)
        const query = { ...visual.query, filters: [...(visual.query.filters ?? []), ...(job.request.filters ?? [])] }
        const body = yield* Datasets.parquet(job.tenant_id, visual.dataset_id, query, job.security)
        return { filename: fileName(visual, "parquet"), contentType: "application/vnd.apache.parquet", body, warnings: [] } satisfies Rendered
      }
      case "sql": {
        const { visual } = yield* visualOf(job)
        const query = { ...visual.query, filters: [...(visual.query.filters ?? []), ...(job.request.filters ?? [])] }
        const { compiled, dialect } = yield* Datasets.compile(job.tenant_id, visual.dataset_id, query, job.security, job.request.dialect)
        const header = [
          `-- Visual ${visual.id} of report ${job.report_id}, compiled for ${dialect}`,
          ...compiled.params.map((value, i) => `-- parameter ${i + 1}: ${JSON.stringify(value)}`)
        ]
        return { filename: fileName(visual, "sql"), contentType: "application/sql; charset=utf-8", body: text(`${[...header, compiled.sql].join("\n")};\n`), warnings: [] } satisfies Rendered
      }
      default:
        return yield* Effect.die(new Error(`The ${job.request.format} format is not produced (refused when asked)`))
    }
  })

/** What rendering reads. */
export type Services = ReportStore | DatasetStore | Datasets.Engines
