/**
 * An embed's locked filters checked against the data they filter
 * (decision 0014, "Embeds in the console"): each names a dimension of the
 * shared subject's datasets and one of its values, as the embed's maker
 * sees them. A value the dimension does not have ("Europe" for a region
 * of EU, US…, "last year" for a date) would only show an empty embed, so it
 * is refused in words that name the values it has.
 *
 * @since 0.1.0
 */
import { Duration, Effect } from "effect"
import type { Dataset } from "../datasets/Dataset.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import { titleOf } from "../datasets/SemanticQuery.ts"
import * as Dashboards from "../reports/Dashboards.ts"
import type { DashboardStore } from "../reports/DashboardStore.ts"
import * as Reports from "../reports/Reports.ts"
import type { ReportStore } from "../reports/ReportStore.ts"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { Member } from "../auth/Principal.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { SubjectType } from "./Grant.ts"
import type { LockedParams } from "./ShareTokens.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** What checking reads. */
export type Services = ReportStore | DashboardStore | DatasetStore | DirectoryStore | Datasets.Engines

/**
 * Why `maker` cannot lock an embed of `subject` with `params`, or
 * `undefined` when they can (`refusal` over the subject's datasets, as the
 * maker sees them).
 */
export const check = (
  maker: Member,
  subject: { readonly type: SubjectType; readonly id: string },
  params: LockedParams
): Effect.Effect<string | undefined, StoreError, Services> =>
  Effect.gen(function*() {
    if (Object.keys(params).length === 0) return undefined
    const datasets = yield* datasetsOf(maker.tenantId, subject)
    if (datasets === undefined) return undefined
    return yield* refusal(maker.tenantId, datasets, params, yield* makerSecurity(maker))
  })

/** How long one check's query may take: it runs while a person waits for the dialog. */
const checkTimeout = Duration.seconds(10)

/** The most values a refusal names. */
const valuesNamed = 8

/**
 * The datasets a shared subject reads: a report's visuals', a dashboard's
 * tiles' reports', a dataset itself; `undefined` for a workspace (its
 * locked filters apply to whichever of its reports is opened).
 */
export const datasetsOf = (
  tenantId: TenantId,
  subject: { readonly type: SubjectType; readonly id: string }
): Effect.Effect<ReadonlyArray<Dataset> | undefined, StoreError, Services> =>
  Effect.gen(function*() {
    switch (subject.type) {
      case "workspace":
        return undefined
      case "dataset":
        return yield* Effect.orElseSucceed(Effect.map(Datasets.get(tenantId, subject.id), (d) => [d]), () => [])
      case "report":
        return yield* Effect.orElseSucceed(
          Effect.flatMap(Reports.get(tenantId, subject.id), (report) => Reports.datasetsOf(tenantId, report.pages)),
          () => []
        )
      case "dashboard": {
        const dashboard = yield* Effect.orElseSucceed(Dashboards.get(tenantId, subject.id), () => undefined)
        if (dashboard === undefined) return []
        const reports = yield* Effect.forEach(
          [...new Set(dashboard.tiles.map((t) => t.report_id))],
          (id) => Effect.orElseSucceed(Reports.get(tenantId, id), () => undefined)
        )
        const datasets = yield* Effect.forEach(reports.filter((r) => r !== undefined), (r) => Reports.datasetsOf(tenantId, r.pages))
        const byId = new Map(datasets.flat().map((d) => [d.dataset_id, d]))
        return [...byId.values()]
      }
    }
  })

/**
 * The rows an embed's maker may lock it to: every row for an admin (an
 * admin's embed is the organisation's, decision 0014, whatever the
 * policies give the role `admin`), a delegate's own rows (their embed
 * never shows more).
 */
export const makerSecurity = (maker: Member): Effect.Effect<SecurityContext, StoreError, DirectoryStore> =>
  maker.roles.includes("admin") ? Effect.succeed({ roles: [], attributes: {}, service: true }) : Datasets.securityContext(maker)

/** Up to `limit` values of a dimension as `security` sees them, in order; none when they cannot be read. */
export const valuesOf = (
  tenantId: TenantId,
  dataset: Dataset,
  dimension: string,
  security: SecurityContext,
  limit: number
): Effect.Effect<ReadonlyArray<string | number | boolean>, StoreError, DatasetStore | Datasets.Engines> =>
  Datasets.query(tenantId, dataset.dataset_id, { dimensions: [dimension], order: [{ member: dimension, direction: "asc" }], limit }, security, checkTimeout).pipe(
    Effect.map((result) =>
      result.compiled.hidden === true ? [] : result.rows.flatMap((row) => {
        const value = row[dimension]
        return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? [value] : []
      })
    ),
    Effect.catch((error: { readonly _tag: string }) => error._tag === "StoreError" ? Effect.fail(error as StoreError) : Effect.succeed([]))
  )

/** Whether a dimension has `value` for `security`: a row equal to it. */
const hasValue = (tenantId: TenantId, dataset: Dataset, dimension: string, value: string | number | boolean, security: SecurityContext) =>
  Datasets.query(
    tenantId,
    dataset.dataset_id,
    { dimensions: [dimension], filters: [{ member: dimension, operator: "equals", values: [value] }], limit: 1 },
    security,
    checkTimeout
  ).pipe(
    Effect.map((result) => result.compiled.hidden !== true && result.rows.length > 0),
    // A value the dimension's type cannot hold ("last year" for a date) is no value of it.
    Effect.catch((error: { readonly _tag: string }) => error._tag === "StoreError" ? Effect.fail(error as StoreError) : Effect.succeed(false))
  )

/**
 * Why `params` cannot lock `datasets` (the subject's), or `undefined` when
 * they can: each key a dimension of one of them, each value one that
 * dimension has for `security` (the maker's: nobody locks to a value they
 * cannot see). Said as `params.<dimension>: …`, with the values it has.
 */
export const refusal = (
  tenantId: TenantId,
  datasets: ReadonlyArray<Dataset>,
  params: LockedParams,
  security: SecurityContext
): Effect.Effect<string | undefined, StoreError, DatasetStore | Datasets.Engines> =>
  Effect.gen(function*() {
    for (const [member, value] of Object.entries(params)) {
      const holding = datasets.filter((d) => d.model.dimensions.some((dim) => dim.name === member))
      if (holding.length === 0) {
        const known = [...new Set(datasets.flatMap((d) => d.model.dimensions.map((dim) => dim.name)))]
        return `params.${member}: the shared data has no dimension "${member}"${known.length === 0 ? "" : `; its dimensions are ${known.join(", ")}`}`
      }
      let found = false
      for (const dataset of holding) {
        if (yield* hasValue(tenantId, dataset, member, value, security)) {
          found = true
          break
        }
      }
      if (found) continue
      const dimension = holding[0]!.model.dimensions.find((dim) => dim.name === member)!
      const title = titleOf(dimension)
      if (dimension.type === "time") {
        return `params.${member}: ${title} is a date; a locked value is one moment it has, and "${value}" is none (lock another filter, or leave the dates to the viewer)`
      }
      const some = yield* valuesOf(tenantId, holding[0]!, member, security, valuesNamed + 1)
      const named = some.slice(0, valuesNamed).map(String).join(", ")
      return `params.${member}: ${title} has no value "${value}"` +
        (some.length === 0 ? "" : `; its values are ${named}${some.length > valuesNamed ? "…" : ""}`)
    }
    return undefined
  })
