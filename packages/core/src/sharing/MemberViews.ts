/**
 * A report or dashboard as a member of the tenant sees it (the console's
 * view): the policy's `view` operation decided on it (their grants, their
 * teams' and executive roles', an admin always), then every visual run
 * with their own row-level security, as a share's viewer has theirs. The
 * watermark, when their grant asks for one, is their own address, as on
 * their exports (decision 0014).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Datasets from "../datasets/Datasets.ts"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { Forbidden, NotFound, StoreError } from "../platform/Errors.ts"
import type { ReportFilterValues } from "../reports/Report.ts"
import * as DashboardViews from "../reports/DashboardViews.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import type { Member } from "../auth/Principal.ts"
import type { ShareExpired } from "./Grants.ts"
import type { GrantStore } from "./GrantStore.ts"
import * as Policy from "./Policy.ts"
import type * as Subjects from "./Subjects.ts"

/** What deciding and running a member's view reads. */
export type Services = DashboardViews.Services | GrantStore | DirectoryStore | Subjects.Services

/** Why a member's view is refused: not theirs to view, an id of nothing of their tenant, or their grants expired. */
export type Refusal = Forbidden | NotFound | ShareExpired

/** The text tiled across a watermarked view: the member's address, which tells where a leak came from. */
const watermarkOf = (member: Member, watermarked: boolean): string | null =>
  watermarked ? member.email ?? `User ${member.userId}` : null

/** A report as the member sees it, with its filters' controls and the watermark their grant asks for. */
export interface ReportView {
  readonly view: ReportViews.ReportView
  readonly controls: ReadonlyArray<ReportViews.FilterControl>
  readonly watermark: string | null
}

/**
 * The report as `member` sees it: `view` decided by the policy, their
 * row-level security, its filters set to `values` (checked), only `pages`
 * when given.
 */
export const report = (
  member: Member,
  reportId: string,
  values: ReportFilterValues,
  pages?: ReadonlyArray<string>
): Effect.Effect<ReportView, Refusal | ReportViews.FiltersRefused | StoreError, Services> =>
  Effect.gen(function*() {
    const { watermark } = yield* Policy.onSubject(member, "reports.view", reportId)
    const security = yield* Datasets.securityContext(member)
    const request = { tenantId: member.tenantId, reportId, security }
    const view = yield* ReportViews.renderWithValues({ ...request, values, pages })
    const controls = yield* ReportViews.filterControls(request)
    return { view, controls, watermark: watermarkOf(member, watermark) }
  })

/** A dashboard as the member sees it, and the watermark their grant asks for. */
export interface DashboardView {
  readonly view: DashboardViews.DashboardView
  readonly watermark: string | null
}

/** The dashboard as `member` sees it: `view` decided by the policy, each tile run with their row-level security. */
export const dashboard = (member: Member, dashboardId: string): Effect.Effect<DashboardView, Refusal | StoreError, Services> =>
  Effect.gen(function*() {
    const { watermark } = yield* Policy.onSubject(member, "dashboards.view", dashboardId)
    const security = yield* Datasets.securityContext(member)
    const view = yield* DashboardViews.render({ tenantId: member.tenantId, dashboardId, security })
    return { view, watermark: watermarkOf(member, watermark) }
  })
