/**
 * What the service says about itself: version, public URLs, branding and
 * features, served by `GET /api/config/public`.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"

/** The service's public description. */
export interface ServiceInfoShape {
  readonly version: string
  /** The public base URL clients reach the API at, without a trailing slash (e.g. `https://analytics.example.com`). */
  readonly publicBaseUrl: string
  readonly branding: {
    readonly name: string
    readonly logoUrl: string | null
    readonly primaryColor: string
    /** The locale shared pages write numbers in (`en-US` when not set), as documents do (core's `Branding`). */
    readonly locale?: string | undefined
  }
  readonly features: Readonly<Record<string, boolean>>
  /** The fixed addresses webhook deliveries leave from, for receivers to allowlist (decision 0010); none when not fixed. */
  readonly webhookEgressAddresses: ReadonlyArray<string>
}

/** The service's public description. */
export class ServiceInfo extends Context.Service<ServiceInfo, ServiceInfoShape>()("@analytics/adapter-http/ServiceInfo") {
  /** A description with defaults for everything but the public base URL. */
  static readonly layer = (options: Partial<ServiceInfoShape> & { readonly publicBaseUrl: string }) =>
    Layer.succeed(ServiceInfo, {
      version: "0.1.0",
      branding: { name: "Analytics", logoUrl: null, primaryColor: "#2563eb" },
      features: {},
      webhookEgressAddresses: [],
      ...options,
      publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, "")
    })
}

/** The body of `GET /api/config/public`, which the console's shell also inlines as its boot data. */
export const publicConfig = (info: ServiceInfoShape) => ({
  version: info.version,
  urls: {
    api: `${info.publicBaseUrl}/v1`,
    openapi: `${info.publicBaseUrl}/v1/openapi.json`,
    reference: `${info.publicBaseUrl}/v1/docs`
  },
  branding: {
    name: info.branding.name,
    logo_url: info.branding.logoUrl,
    primary_color: info.branding.primaryColor
  },
  features: info.features,
  webhooks: { egress_ips: info.webhookEgressAddresses }
})
