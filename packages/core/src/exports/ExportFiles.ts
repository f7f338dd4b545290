/**
 * Making an export's file from its job: a document by the deployment's
 * renderer of its format (`DocumentRenderers`), or, made by core itself
 * (one maker per core format of `ExportFormats`): the rows of one visual as CSV or
 * Parquet (every row of its query, unless the visual names a limit,
 * streamed by the engine into the result) or JSON (with its columns'
 * schema; the visual's displayed rows, bounded), or the SQL it compiles to
 * in a chosen dialect. Each runs as the job's requester (their row-level
 * security) with the job's filters added to the visual's own.
 *
 * @since 0.1.0
 */
import { Effect, Stream } from "effect"
import type { EngineError } from "../datasets/AnalyticsEngine.ts"
import * as Csv from "../platform/Csv.ts"
import { Branding } from "./Branding.ts"
import { DocumentRenderers, printsTotals, type RenderError } from "./DocumentRenderers.ts"
import { type CoreFormat, type DocumentFormat, type Format, formats, isDocumentFormat } from "./ExportFormats.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import { type ExportJob, singleVisualFormats } from "./ExportJob.ts"
import * as Reports from "../reports/Reports.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import type { ReportStore } from "../reports/ReportStore.ts"

/** A made file, ready to keep. */
export interface Rendered {
  readonly filename: string
  readonly contentType: string
  readonly body: Stream.Stream<Uint8Array, EngineError | RenderError>
  /** The same file written by the engine itself at a path, for a result store on a local disk (`BlobStore.putFile`). */
  readonly toFile?: ((path: string) => Effect.Effect<void, EngineError>) | undefined
  readonly warnings: ReadonlyArray<string>
}

const encoder = new TextEncoder()
const text = (value: string) => Stream.make(encoder.encode(value))

/** A file name from a report's name or a visual's id, safe in a `Content-Disposition` header. */
const fileName = (name: string, extension: string) => `${name.replace(/[^A-Za-z0-9_.-]+/g, "_")}.${extension}`

/** The visual a single-visual export names, and its query with the export's filters. */
const visualQueryOf = (job: ExportJob) =>
  Reports.visualQuery(job.tenant_id, job.report_id, job.request.visual_id ?? "", job.request.filters ?? [], job.locked ?? [])

const rowsOf = (job: ExportJob) =>
  Reports.queryVisual(job.tenant_id, job.report_id, job.request.visual_id ?? "", job.security, job.request.filters ?? [], job.locked ?? [])


/** A file's media type and name, as the table gives them (`ExportFormats`). */
const named = (format: Format, name: string) => ({ filename: fileName(name, formats[format].extension), contentType: formats[format].mediaType })

/**
 * What core makes itself, by format: every core format of the table has
 * its maker (the compiler checks it), as every document format has its
 * renderer (`DocumentRenderers.Complete`).
 */
const makers = {
  csv: (job) =>
    Effect.gen(function*() {
      // Every row, streamed by the engine into the result (any row count in bounded memory);
      // an engine that cannot stream gives the bounded result of the visual's query instead.
      const { query, visual } = yield* visualQueryOf(job)
      const streamed = yield* Datasets.csv(job.tenant_id, visual.dataset_id, query, job.security)
      const body = streamed ?? (yield* Effect.map(rowsOf(job), ({ compiled, rows }) => text(Csv.table(compiled.columns.map((c) => c.name), rows))))
      const toFile = yield* Datasets.fileWriter(job.tenant_id, visual.dataset_id, query, job.security, "csv")
      return { ...named("csv", visual.id), body, toFile, warnings: [] }
    }),
  json: (job) =>
    Effect.gen(function*() {
      const { compiled, rows, visual } = yield* rowsOf(job)
      const document = {
        visual: { id: visual.id, type: visual.type, title: visual.title ?? null, dataset_id: visual.dataset_id },
        columns: compiled.columns.map((c) => ({ name: c.name, member: c.member, kind: c.kind, type: c.type, granularity: c.granularity ?? null, ...(c.format === undefined ? {} : { format: c.format }) })),
        row_count: rows.length,
        rows
      }
      return { ...named("json", visual.id), body: text(JSON.stringify(document)), warnings: [] }
    }),
  parquet: (job) =>
    Effect.gen(function*() {
      const { query, visual } = yield* visualQueryOf(job)
      const body = yield* Datasets.parquet(job.tenant_id, visual.dataset_id, query, job.security)
      const toFile = yield* Datasets.fileWriter(job.tenant_id, visual.dataset_id, query, job.security, "parquet")
      return { ...named("parquet", visual.id), body, toFile, warnings: [] }
    }),
  sql: (job) =>
    Effect.gen(function*() {
      const { query, visual } = yield* visualQueryOf(job)
      const { compiled, dialect } = yield* Datasets.compile(job.tenant_id, visual.dataset_id, query, job.security, job.request.dialect)
      const header = [
        `-- Visual ${visual.id} of report ${job.report_id}, compiled for ${dialect}`,
        ...compiled.params.map((value, i) => `-- parameter ${i + 1}: ${JSON.stringify(value)}`)
      ]
      return { ...named("sql", visual.id), body: text(`${[...header, compiled.sql].join("\n")};\n`), warnings: [] }
    })
} satisfies Readonly<Record<CoreFormat, (job: ExportJob) => Effect.Effect<Rendered, unknown, unknown>>>

/** Makes a document with the deployment's renderer of its format. */
const document = (job: ExportJob, format: DocumentFormat) =>
  Effect.gen(function*() {
    const renderer = (yield* DocumentRenderers)[format]
    if (renderer === undefined) return yield* Effect.die(new Error(`No ${format} renderer (refused when asked)`))
    // A single-visual document (png) shows, and runs, only the visual named.
    const visualId = singleVisualFormats.has(format) ? job.request.visual_id : undefined
    const view = yield* ReportViews.render({
      tenantId: job.tenant_id,
      reportId: job.report_id,
      security: job.security,
      filters: job.request.filters ?? [],
      locked: job.locked,
      pages: job.request.pages,
      visualId,
      totals: printsTotals(format)
    })
    const warnings = view.pages.flatMap((page) =>
      page.visuals.flatMap((v) => v._tag === "Unavailable" ? [`${page.name} / ${v.visual.title ?? v.visual.id}: ${v.detail}`] : [])
    )
    const body = renderer(view, {
      watermark: job.watermark,
      filters: [...Reports.describeFilters(view.report, job.request.filters), ...Reports.describeFilters(view.report, job.locked)],
      generatedAt: job.updated_at,
      branding: yield* Branding
    })
    return { ...named(format, visualId ?? view.report.name), body, warnings } satisfies Rendered
  })

/** Makes the file of a job whose format this deployment produces (`Exports.availableFormats`). */
export const render = (job: ExportJob) => {
  const format = job.request.format
  return isDocumentFormat(format) ? document(job, format) : makers[format](job)
}

/** What rendering reads. */
export type Services = ReportStore | DatasetStore | Datasets.Engines | DocumentRenderers
