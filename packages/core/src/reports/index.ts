/**
 * Reports, their pages and visuals, dashboards and alerts, and what a report
 * view shows.
 *
 * @since 0.1.0
 */
export * as Alert from "./Alert.ts"
export * as AlertStore from "./AlertStore.ts"
export * as Alerts from "./Alerts.ts"
export * as Dashboard from "./Dashboard.ts"
export * as DashboardStore from "./DashboardStore.ts"
/** Deleting a dataset nothing uses; one that reports, dashboards or alerts use is refused naming them. */
export * as DatasetDeletion from "./DatasetDeletion.ts"
export * as DashboardViews from "./DashboardViews.ts"
export * as Dashboards from "./Dashboards.ts"
export * as Report from "./Report.ts"
export * as ReportStore from "./ReportStore.ts"
export * as ReportViews from "./ReportViews.ts"
export * as Reports from "./Reports.ts"
/** The sample sales report over the `SampleSales` model. */
export * as SampleReport from "./SampleReport.ts"
