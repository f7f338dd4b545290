/**
 * Use cases on reports (decision 0013): records in a workspace whose visuals are
 * checked against their datasets' models when written, and whose visuals'
 * queries run for a principal with the report's timeout.
 *
 * @since 0.1.0
 */
import { Duration, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import * as Datasets from "../datasets/Datasets.ts"
import * as DateRange from "../datasets/DateRange.ts"
import { NotFound, TaggedFailure } from "../platform/Errors.ts"
import {
  datasetIdsOf,
  defaultSettings,
  findVisual,
  type Page as ReportPage,
  type Report,
  type ReportCreate,
  type ReportFilter,
  type ReportFilterValue,
  type ReportFilterValues,
  type ReportUpdate,
  type Visual
} from "./Report.ts"
import { reports, type ReportStore } from "./ReportStore.ts"
import * as SemanticModel from "../datasets/SemanticModel.ts"
import * as SemanticQuery from "../datasets/SemanticQuery.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import * as WorkspaceRecordUseCases from "../tenancy/WorkspaceRecordUseCases.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The report's pages do not hold together; `detail` says where. */
export class ReportInvalid extends TaggedFailure("ReportInvalid")<{
  readonly detail: string
}> {
  readonly code = "report/invalid" as const
}

/** The columns an encoding may name for each visual type, and which it must. */
const encodingFields: Record<
  Visual["type"],
  {
    readonly required: ReadonlyArray<"x" | "y" | "series" | "category" | "value">
    readonly allowed: ReadonlyArray<string>
    /** At least this many `y` measures. */
    readonly minY?: number
    /** The encodings that must name a measure (`y` and `value` always do). */
    readonly measuresOn?: ReadonlyArray<string>
  }
> = {
  table: { required: [], allowed: ["columns"] },
  bar: { required: ["x", "y"], allowed: ["x", "y", "series"] },
  stacked_bar: { required: ["x", "y"], allowed: ["x", "y", "series"] },
  line: { required: ["x", "y"], allowed: ["x", "y", "series"] },
  area: { required: ["x", "y"], allowed: ["x", "y", "series"] },
  combo: { required: ["x", "y"], allowed: ["x", "y"], minY: 2 },
  scatter: { required: ["x", "y"], allowed: ["x", "y", "series"], measuresOn: ["x"] },
  heatmap: { required: ["x", "series", "value"], allowed: ["x", "series", "value"] },
  pie: { required: ["category", "value"], allowed: ["category", "value"] },
  kpi: { required: ["value"], allowed: ["value"] }
}

/**
 * Checks pages against the tenant's datasets: page names and visual ids
 * unique, each visual's dataset in the report's workspace, its query valid
 * for the dataset's model, and its encoding naming columns the query
 * selects, as its type needs.
 */
const checkPages = (tenantId: TenantId, workspaceId: WorkspaceId, pages: ReadonlyArray<ReportPage>) =>
  Effect.gen(function*() {
    const pageNames = new Set<string>()
    const visualIds = new Set<string>()
    for (const page of pages) {
      if (pageNames.has(page.name)) return yield* new ReportInvalid({ detail: `Two pages are named "${page.name}"` })
      pageNames.add(page.name)
      for (const visual of page.visuals) {
        const where = `Visual "${visual.id}" (page "${page.name}")`
        if (visualIds.has(visual.id)) return yield* new ReportInvalid({ detail: `Two visuals have the id "${visual.id}"` })
        visualIds.add(visual.id)
        const dataset = yield* Datasets.get(tenantId, visual.dataset_id).pipe(
          Effect.catchTag("NotFound", () => Effect.fail(new ReportInvalid({ detail: `${where}: no dataset ${visual.dataset_id}` })))
        )
        if (dataset.workspace_id !== workspaceId) {
          return yield* new ReportInvalid({ detail: `${where}: dataset ${visual.dataset_id} is in another workspace` })
        }
        const model = SemanticModel.check(dataset.model)
        if (model instanceof SemanticModel.ModelInvalid) return yield* new ReportInvalid({ detail: `${where}: ${model.detail}` })
        // Checked as a principal every policy applies to, so that only the query's own faults show.
        const plan = SemanticQuery.plan(model, visual.query, { roles: [], attributes: {} }, new Date(0))
        if (plan instanceof SemanticQuery.QueryInvalid) return yield* new ReportInvalid({ detail: `${where}: ${plan.detail}` })
        const columns = new Set(plan.columns.map((c) => c.name))
        const measures = new Set(plan.columns.filter((c) => c.kind === "measure").map((c) => c.name))
        const encoding = visual.encoding ?? {}
        const fields = encodingFields[visual.type]
        for (const [field, value] of Object.entries(encoding)) {
          if (!fields.allowed.includes(field)) return yield* new ReportInvalid({ detail: `${where}: a ${visual.type} has no "${field}" encoding` })
          for (const column of Array.isArray(value) ? value : [value]) {
            if (!columns.has(column)) return yield* new ReportInvalid({ detail: `${where}: "${column}" is not a column of its query` })
            if ((field === "y" || field === "value" || fields.measuresOn?.includes(field) === true) && !measures.has(column)) {
              return yield* new ReportInvalid({ detail: `${where}: "${column}" is drawn as a value but is not a measure` })
            }
          }
        }
        const missing = fields.required.find((field) => encoding[field] === undefined)
        if (missing !== undefined) return yield* new ReportInvalid({ detail: `${where}: a ${visual.type} needs a "${missing}" encoding` })
        if ((encoding.y?.length ?? 0) < (fields.minY ?? 0)) {
          return yield* new ReportInvalid({ detail: `${where}: a ${visual.type} needs at least ${fields.minY} "y" measures` })
        }
      }
    }
  })

/** The datasets a report's pages read, each read once (one deleted since is left out). */
export const datasetsOf = (tenantId: TenantId, pages: ReadonlyArray<ReportPage>) =>
  Effect.map(
    Effect.forEach(datasetIdsOf(pages), (id) => Effect.orElseSucceed(Datasets.get(tenantId, id), () => undefined)),
    (found) => found.filter((d) => d !== undefined)
  )

/**
 * Checks the report's filters: names unique, and each dimension one of a
 * visual's dataset's (so that it filters something).
 */
const checkFilters = (tenantId: TenantId, pages: ReadonlyArray<ReportPage>, filters: ReadonlyArray<ReportFilter>) =>
  Effect.gen(function*() {
    const names = new Set<string>()
    for (const filter of filters) {
      if (names.has(filter.name)) return yield* new ReportInvalid({ detail: `Two filters are named "${filter.name}"` })
      names.add(filter.name)
    }
    if (filters.length === 0) return
    const dimensions = new Set((yield* datasetsOf(tenantId, pages)).flatMap((d) => d.model.dimensions.map((dimension) => dimension.name)))
    for (const filter of filters) {
      if (!dimensions.has(filter.dimension)) {
        return yield* new ReportInvalid({ detail: `Filter "${filter.name}": no visual's dataset has a dimension "${filter.dimension}"` })
      }
    }
  })

/** Values given to a report's filters, or query filters added as they are (the richer form: `[{member, operator, values}]`). */
export type ViewFilters = ReportFilterValues | NonNullable<SemanticQuery.Query["filters"]>

/** What a report filter's value adds to a visual's query on a dimension: a date range, or a condition. */
type Applied =
  | { readonly _tag: "Range"; readonly time: typeof SemanticQuery.TimeDimension.Type }
  | { readonly _tag: "Condition"; readonly filter: QueryFilter }

/** A filter of a semantic query. */
export type QueryFilter = NonNullable<SemanticQuery.Query["filters"]>[number]

/** A report filter's value on a dimension of a visual's model: what it adds to the query, or why it cannot. */
const applied = (dimension: SemanticModel.Dimension, value: ReportFilterValue): Applied | string => {
  const values = Array.isArray(value) ? value : [value]
  if (dimension.type === "time") {
    const range: string | readonly [string, string] | undefined = typeof value === "string"
      ? value
      : values.length === 2 && values.every((v) => typeof v === "string")
      ? [values[0] as string, values[1] as string]
      : undefined
    if (range === undefined) return `"${dimension.name}" is a time dimension: give a date range ("last 3 months", "2025") or two dates`
    // Checked now; resolved when the query runs (a relative range at its time).
    const resolved = DateRange.resolve(range, new Date(0))
    if (typeof resolved === "string") return resolved
    return { _tag: "Range", time: { dimension: dimension.name, date_range: range } }
  }
  return { _tag: "Condition", filter: { member: dimension.name, operator: "equals", values } }
}

/**
 * Checks values given to a report's filters: each names a filter of the
 * report, and fits the dimension it filters in every dataset that has it.
 * `undefined` when they do; the reason otherwise.
 */
export const checkFilterValues = (report: Report, given: ViewFilters | undefined) =>
  Effect.gen(function*() {
    if (given === undefined || Array.isArray(given)) return undefined
    const datasets = yield* datasetsOf(report.tenant_id, report.pages)
    for (const [name, value] of Object.entries(given as ReportFilterValues)) {
      const filter = report.filters.find((f) => f.name === name)
      if (filter === undefined) {
        const known = report.filters.map((f) => f.name)
        return `filters: the report has no filter "${name}"${known.length === 0 ? " (it has none)" : `; it has ${known.join(", ")}`}`
      }
      for (const dataset of datasets) {
        const dimension = dataset.model.dimensions.find((d) => d.name === filter.dimension)
        if (dimension === undefined) continue
        const result = applied(dimension, value)
        if (typeof result === "string") return `filters.${name}: ${result}`
      }
    }
    return undefined
  })

/** Values given to a report's filters in words (`Region: EU, US`), for a document's cover. */
export const describeFilters = (report: Report, given: ViewFilters | undefined): ReadonlyArray<string> => {
  if (given === undefined) return []
  if (Array.isArray(given)) {
    return (given as ReadonlyArray<QueryFilter>).map((filter) =>
      "member" in filter
        ? `${filter.member} ${filter.operator.replace(/_/g, " ")}${filter.values === undefined ? "" : ` ${filter.values.map((v) => JSON.stringify(v)).join(", ")}`}`
        : JSON.stringify(filter))
  }
  return Object.entries(given as ReportFilterValues).map(([name, value]) => {
    const filter = report.filters.find((f) => f.name === name)
    const shown = (Array.isArray(value) ? value : [value]).map(String)
    return `${filter?.title ?? name}: ${Array.isArray(value) && value.length === 2 && filter !== undefined && shown.every((v) => /^\d{4}-/.test(v)) ? shown.join(" to ") : shown.join(", ")}`
  })
}

/** A report of the tenant, or NotFound. */
export const get: WorkspaceRecordUseCases.Get<Report, ReportStore> = (tenantId, reportId) =>
  WorkspaceRecordUseCases.get(reports, tenantId, reportId)

/** A report as its audit entries show it: its definition (pages, filters, settings), no data. */
export const shown: AuditLog.Shown<Report> = {
  type: "report",
  id: (r) => r.report_id,
  workspace: (r) => r.workspace_id,
  detail: (r) => ({ report_id: r.report_id, name: r.name, description: r.description, pages: r.pages, filters: r.filters, settings: r.settings })
}

/** Creates a report in a workspace of the tenant (`report.created`). */
export const create: WorkspaceRecordUseCases.Create<
  ReportCreate,
  Report,
  NotFound | ReportInvalid,
  ReportStore | DatasetStore | WorkspaceStore | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, input, by) =>
  AuditLog.created(tenantId, shown, by, WorkspaceRecordUseCases.createIn(reports, tenantId, input.workspace_id, () =>
    Effect.gen(function*() {
      const pages = input.pages ?? []
      const filters = input.filters ?? []
      yield* checkPages(tenantId, input.workspace_id, pages)
      yield* checkFilters(tenantId, pages, filters)
      return { name: input.name, description: input.description ?? null, pages, filters, settings: input.settings ?? defaultSettings }
    })))

/** One page of a workspace's reports, newest first; NotFound for a workspace not of the tenant. */
export const list: WorkspaceRecordUseCases.List<Report, ReportStore> = (tenantId, workspaceId, request) =>
  WorkspaceRecordUseCases.list(reports, tenantId, workspaceId, request)

/** Changes a report: name, description, settings, or its pages (replaced whole, checked again); `report.updated`. */
export const update: WorkspaceRecordUseCases.Update<ReportUpdate, Report, ReportInvalid, ReportStore | DatasetStore | AuditLog.Recording, [by: AuditLog.Actor]> = (
  tenantId,
  reportId,
  change,
  by
) =>
  AuditLog.updated(tenantId, shown, by, get(tenantId, reportId), (found) => WorkspaceRecordUseCases.update(reports, reportId, Effect.succeed(found), (current) =>
    Effect.gen(function*() {
      if (change.pages !== undefined) yield* checkPages(tenantId, current.workspace_id, change.pages)
      if (change.pages !== undefined || change.filters !== undefined) {
        yield* checkFilters(tenantId, change.pages ?? current.pages, change.filters ?? current.filters)
      }
      return {
        ...current,
        name: change.name ?? current.name,
        description: change.description === undefined ? current.description : change.description,
        pages: change.pages ?? current.pages,
        filters: change.filters ?? current.filters,
        settings: change.settings ?? current.settings
      }
    })))

/** Deletes a report (`report.deleted`). */
export const remove: WorkspaceRecordUseCases.Remove<ReportStore | AuditLog.Recording, [by: AuditLog.Actor]> = (tenantId, reportId, by) =>
  Effect.asVoid(AuditLog.deleted(tenantId, shown, by, get(tenantId, reportId), () => WorkspaceRecordUseCases.remove(reports, tenantId, reportId)))

/**
 * A visual of a report, and its query with `filters` added (a viewer's or
 * an export's): query filters as they are, or the report's filters' values
 * on the visual's dataset's dimensions (a filter whose dimension the
 * dataset lacks leaves the visual as it is); `locked` query filters are
 * added in either case (an embed's locked parameters beside the values its
 * viewer chose).
 */
export const visualQuery = (
  tenantId: TenantId,
  reportOrId: string | Report,
  visualId: string,
  filters: ViewFilters = [],
  locked: ReadonlyArray<QueryFilter> = []
) =>
  Effect.gen(function*() {
    // a view of the whole report has read it once already
    const report = typeof reportOrId === "string" ? yield* get(tenantId, reportOrId) : reportOrId
    const found = findVisual(report, visualId)
    if (found === undefined) return yield* new NotFound({ resource: "visual", id: visualId })
    const own = found.visual.query
    if (Array.isArray(filters)) {
      return { report, visual: found.visual, query: { ...own, filters: [...(own.filters ?? []), ...filters as ReadonlyArray<QueryFilter>, ...locked] } satisfies SemanticQuery.Query }
    }
    const model = (yield* Datasets.get(tenantId, found.visual.dataset_id)).model
    const conditions: Array<QueryFilter> = []
    const ranges: Array<typeof SemanticQuery.TimeDimension.Type> = []
    for (const [name, value] of Object.entries(filters as ReportFilterValues)) {
      const filter = report.filters.find((f) => f.name === name)
      const dimension = filter === undefined ? undefined : model.dimensions.find((d) => d.name === filter.dimension)
      if (dimension === undefined) continue
      const added = applied(dimension, value)
      // Checked when asked (checkFilterValues); a model changed since then leaves the visual unfiltered by it.
      if (typeof added === "string") continue
      if (added._tag === "Range") ranges.push(added.time)
      else conditions.push(added.filter)
    }
    const query: SemanticQuery.Query = {
      ...own,
      filters: [...(own.filters ?? []), ...conditions, ...locked],
      ...(ranges.length === 0 ? {} : { time_dimensions: [...(own.time_dimensions ?? []), ...ranges] })
    }
    return { report, visual: found.visual, query }
  })

/**
 * Runs one visual's query for a principal, with `filters` added (a
 * viewer's or an export's), cancelled after the report's query timeout.
 */
export const queryVisual = (
  tenantId: TenantId,
  reportOrId: string | Report,
  visualId: string,
  security: SemanticQuery.SecurityContext,
  filters: ViewFilters = [],
  locked: ReadonlyArray<QueryFilter> = []
) =>
  Effect.gen(function*() {
    const { query, report, visual } = yield* visualQuery(tenantId, reportOrId, visualId, filters, locked)
    const result = yield* Datasets.query(tenantId, visual.dataset_id, query, security, Duration.seconds(report.settings.query_timeout_seconds))
    return { report, visual, ...result }
  })
