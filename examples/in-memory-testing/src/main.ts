/**
 * A team's own integration with the analytics service — the code their
 * test (`test/partner-portal.test.ts`) exercises in milliseconds against
 * the in-memory service under a TestClock.
 *
 * The team runs a partner portal. Each week it publishes a partner's sales
 * as a report in its own workspace and shares it by a public link that
 * expires; when the service reports a new share (the `sharing.grant.created`
 * webhook), the portal records a notice for the partner in its own store.
 * Nothing here knows about tests: it talks to the API over HTTP and
 * receives webhooks as a fetch-style handler.
 */
import { WebhookSignature } from "@analytics/core"

/** Where the analytics API is and the portal's tenant token. */
export interface Analytics {
  readonly url: string
  readonly token: string
}

/** What one publication made. */
export interface Publication {
  readonly workspaceId: string
  readonly datasetId: string
  readonly reportId: string
  readonly grantId: string
  readonly linkUrl: string
  readonly expiresAt: string
}

const call = async (api: Analytics, method: string, path: string, body?: unknown, contentType = "application/json") => {
  const response = await fetch(api.url + path, {
    method,
    headers: { authorization: `Bearer ${api.token}`, ...(body === undefined ? {} : { "content-type": contentType }) },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

/**
 * Publishes a partner's sales (CSV with `region` and `amount` columns) as
 * the report "<partner> sales", shared by a link valid `validForDays` days.
 */
export const publishPartnerReport = async (
  api: Analytics,
  options: { readonly partner: string; readonly email: string; readonly csv: string; readonly validForDays: number }
): Promise<Publication> => {
  const workspace = await call(api, "POST", "/v1/workspaces", { name: options.partner })
  const dataset = await call(api, "POST", "/v1/datasets", {
    workspace_id: workspace.workspace_id,
    name: "Sales",
    source: { type: "upload" }
  })
  // The model is suggested from the columns: a `count` and `total_amount` measure, a `region` dimension.
  await call(api, "PUT", `/v1/datasets/${dataset.dataset_id}/data`, options.csv, "text/csv")
  const report = await call(api, "POST", "/v1/reports", {
    workspace_id: workspace.workspace_id,
    name: `${options.partner} sales`,
    pages: [{
      name: "Sales",
      visuals: [{
        id: "by_region",
        type: "bar",
        title: "Sales by region",
        dataset_id: dataset.dataset_id,
        query: { measures: ["total_amount"], dimensions: ["region"], order: [{ member: "region" }] },
        encoding: { x: "region", y: ["total_amount"] }
      }]
    }]
  })
  const expiresAt = new Date(Date.now() + options.validForDays * 86_400_000).toISOString()
  const grant = await call(api, "POST", "/v1/sharing/grants", {
    subject_type: "report",
    subject_id: report.report_id,
    principal_type: "link",
    actions: ["view"],
    email: options.email,
    expires_at: expiresAt
  })
  return {
    workspaceId: workspace.workspace_id,
    datasetId: dataset.dataset_id,
    reportId: report.report_id,
    grantId: grant.grant_id,
    linkUrl: grant.link_url,
    expiresAt
  }
}

/** The portal's own store of notices (a database table in real life). */
export interface NoticeStore {
  /** Records a notice once per event id; false when it was already recorded. */
  readonly record: (eventId: string, notice: { readonly grantId: string; readonly expiresAt: string | null }) => Promise<boolean>
}

/**
 * The portal's webhook endpoint, fetch-style (`Request` -> `Response`):
 * verifies the signature over the raw body, records a notice for each
 * new link, and answers 503 when its store is down, so the service retries.
 */
export const webhookEndpoint = (options: { readonly secret: () => string; readonly notices: NoticeStore }) =>
async (request: Request): Promise<Response> => {
  const body = await request.text()
  try {
    await WebhookSignature.verifyWebhook(body, request.headers, [options.secret()])
  } catch {
    return new Response("bad signature", { status: 400 })
  }
  const event = JSON.parse(body)
  if (event.type !== "sharing.grant.created" || event.data.principal_type !== "link") return new Response(null, { status: 204 })
  try {
    await options.notices.record(event.id, { grantId: event.data.grant_id, expiresAt: event.data.expires_at })
  } catch {
    return new Response("try again later", { status: 503 })
  }
  return new Response(null, { status: 204 })
}
