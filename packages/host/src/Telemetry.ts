/**
 * Traces and metrics over OTLP/HTTP with Effect's own exporters
 * (`effect/observability`), when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: a
 * server span per request (named `METHOD /route/template`, with its route
 * and status), child spans for dataset queries, and spans for export runs
 * and webhook attempts; and every metric of the process's registry (the
 * same ones `GET /metrics` shows).
 *
 * @since 0.1.0
 */
import { App } from "@analytics/adapter-http"
import { Duration, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpMiddleware } from "effect/http"
import { OtlpExporter, OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { HostConfig } from "./HostConfig.ts"

/** The exporters the configuration asks for; nothing when it names no endpoint. */
export const layer = (config: HostConfig): Layer.Layer<OtlpExporter.Flusher> =>
  Option.match(config.otlp, {
    onNone: () => OtlpExporter.layerFlusher,
    onSome: (otlp) => {
      const resource = {
        serviceName: otlp.serviceName,
        serviceVersion: App.version,
        attributes: otlp.resourceAttributes
      }
      const headers = Redacted.value(otlp.headers)
      return Layer.mergeAll(
        OtlpTracer.layer({
          url: `${otlp.endpoint}/v1/traces`,
          resource,
          headers,
          exportInterval: Duration.millis(otlp.tracesDelayMillis)
        }),
        OtlpMetrics.layer({
          url: `${otlp.endpoint}/v1/metrics`,
          resource,
          headers,
          exportInterval: Duration.millis(otlp.metricsIntervalMillis)
        }),
        // OpenTelemetry's convention: a server span is named by its method and route template, not the raw path.
        Layer.succeed(HttpMiddleware.SpanNameGenerator, App.spanName)
      ).pipe(
        Layer.provide(otlp.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
        Layer.provide(FetchHttpClient.layer)
      )
    }
  })
