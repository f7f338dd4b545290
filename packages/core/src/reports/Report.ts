/**
 * Reports (decision 0013): named pages of visuals, each visual a
 * semantic query of a dataset of the report's workspace and an encoding
 * of its columns (which column is the x axis, which measures are drawn).
 * A report's settings hold its query timeout (decisions 0013 and 0015).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DatasetId } from "../datasets/Dataset.ts"
import { Uuid } from "../platform/Ids.ts"
import { FilterValue, MemberName } from "../datasets/SemanticModel.ts"
import { Query } from "../datasets/SemanticQuery.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import { WorkspaceId } from "../tenancy/Workspace.ts"

/** A report's identifier. */
export const ReportId = Uuid.pipe(Schema.brand("ReportId"))
/** A report's identifier. */
export type ReportId = typeof ReportId.Type

/** The kinds of visual. */
export const VisualType = Schema.Literals(["table", "bar", "stacked_bar", "line", "area", "combo", "scatter", "heatmap", "pie", "kpi"])
/** A kind of visual. */
export type VisualType = typeof VisualType.Type

/** A result column's name (a member, or `<time dimension>__<granularity>`). */
const ColumnRef = Schema.String.check(Schema.isMaxCodePoints(100))

/**
 * Which columns of the query a visual draws:
 * - table: `columns` (all when omitted);
 * - bar, line, area: `x`, one or more `y` measures, an optional `series`;
 * - stacked_bar: the same, stacked by `series` (or by measure when there are several);
 * - combo: `x` and two or more `y` measures, the first as bars, the others as lines;
 * - scatter: a measure on `x`, one on `y`, an optional `series` (one point per row);
 * - heatmap: `x` and `series` dimensions (columns and rows), the `value` measure as colour;
 * - pie: `category` and `value`;
 * - kpi: `value`.
 */
export const Encoding = Schema.Struct({
  columns: Schema.optionalKey(Schema.Array(ColumnRef).check(Schema.isMaxLength(100))),
  x: Schema.optionalKey(ColumnRef),
  y: Schema.optionalKey(Schema.Array(ColumnRef).check(Schema.isMinLength(1), Schema.isMaxLength(20))),
  series: Schema.optionalKey(ColumnRef),
  category: Schema.optionalKey(ColumnRef),
  value: Schema.optionalKey(ColumnRef)
})
/** Which columns a visual draws. */
export type Encoding = typeof Encoding.Type

/** A visual: its id in the report, kind, title, the dataset and query it shows, and the encoding. */
export const Visual = Schema.Struct({
  id: MemberName.annotate({ description: "Unique in the report; exports and embeds refer to it" }),
  type: VisualType,
  title: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(200))),
  dataset_id: DatasetId,
  query: Query,
  encoding: Schema.optionalKey(Encoding)
})
/** A visual. */
export type Visual = typeof Visual.Type

/** A page: its name (exports select pages by it, decision 0015) and its visuals. */
export const Page = Schema.Struct({
  name: Name,
  visuals: Schema.Array(Visual).check(Schema.isMaxLength(50))
})
/** A page. */
export type Page = typeof Page.Type

/**
 * A filter of the report: the name viewers and exports give it a value by,
 * and the dimension it filters. It applies to every visual whose dataset has
 * a dimension of that name (a time dimension takes a date range, any other
 * one value or a list of values); the others are left as they are.
 */
export const ReportFilter = Schema.Struct({
  name: MemberName.annotate({ description: "What an export's `filters` object names it by; unique in the report" }),
  dimension: MemberName.annotate({ description: "The dimension it filters in each visual whose dataset has it" }),
  title: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(200)))
})
/** A filter of the report. */
export type ReportFilter = typeof ReportFilter.Type

/** What a filter of the report is set to: one value, several (any of them), or a date range (`last 3 months`, or two dates). */
export const ReportFilterValue = Schema.Union([
  FilterValue,
  Schema.Array(FilterValue).check(Schema.isMinLength(1), Schema.isMaxLength(1000))
]).annotate({ description: "A value, a list of values (any of them), or for a time dimension a date range: `last 3 months`, `2025`, or [from, to]" })
/** What a filter of the report is set to. */
export type ReportFilterValue = typeof ReportFilterValue.Type

/** Values of the report's filters, by name (decision 0015: `{"region": "EU"}`). */
export const ReportFilterValues = Schema.Record(MemberName, ReportFilterValue).check(Schema.isMaxProperties(50))
/** Values of the report's filters, by name. */
export type ReportFilterValues = typeof ReportFilterValues.Type

/** A report's settings. */
export const Settings = Schema.Struct({
  query_timeout_seconds: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600 })).annotate({
    description: "How long each visual's query may run before it is cancelled (a PDF then shows it blank)"
  })
})
/** A report's settings. */
export type Settings = typeof Settings.Type

/** The settings of a report that names none. */
export const defaultSettings: Settings = { query_timeout_seconds: 60 }

/** A report as stored. */
export interface Report {
  readonly report_id: ReportId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly name: string
  readonly description: string | null
  readonly pages: ReadonlyArray<Page>
  /** Its filters (none for a report made before filters existed). */
  readonly filters: ReadonlyArray<ReportFilter>
  readonly settings: Settings
  readonly created_at: Date
  readonly updated_at: Date
}

const Pages = Schema.Array(Page).check(Schema.isMaxLength(50))
const Filters = Schema.Array(ReportFilter).check(Schema.isMaxLength(50))

/** What a client sends to create a report. */
export const ReportCreate = Schema.Struct({
  workspace_id: WorkspaceId,
  name: Name,
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(2000))),
  pages: Schema.optionalKey(Pages),
  filters: Schema.optionalKey(Filters),
  settings: Schema.optionalKey(Settings)
})
/** What a client sends to create a report. */
export type ReportCreate = typeof ReportCreate.Type

/** What a client may change (pages are replaced whole). */
export const ReportUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  description: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxCodePoints(2000)))),
  pages: Schema.optionalKey(Pages),
  filters: Schema.optionalKey(Filters),
  settings: Schema.optionalKey(Settings)
})
/** What a client may change. */
export type ReportUpdate = typeof ReportUpdate.Type

/** The datasets a report's pages read, each once, in the order its visuals first name them. */
export const datasetIdsOf = (pages: ReadonlyArray<Page>): ReadonlyArray<DatasetId> =>
  [...new Set(pages.flatMap((p) => p.visuals.map((v) => v.dataset_id)))]

/** A visual of a report by id, with its page. */
export const findVisual = (report: Report, visualId: string): { readonly page: Page; readonly visual: Visual } | undefined => {
  for (const page of report.pages) {
    const visual = page.visuals.find((v) => v.id === visualId)
    if (visual !== undefined) return { page, visual }
  }
  return undefined
}
