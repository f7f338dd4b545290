/**
 * The host's configuration, read from the environment and validated at
 * start. The variable names are a public contract.
 *
 * @since 0.1.0
 */
import { Branding, Plan, User } from "@analytics/core"
import { Cause, Config, ConfigProvider, Effect, Exit, Option, Redacted, Result, Schema } from "effect"
import { IpNetwork } from "effect/net"
import * as Os from "node:os"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

/** Where the stores live. */
export const StoreKind = Schema.Literals(["pglite", "memory", "postgres"])
/** Where the stores live. */
export type StoreKind = typeof StoreKind.Type

/**
 * Where rate-limit counts live: this process's memory (one process), the
 * database (several processes on one PostgreSQL), or Redis (when a database
 * round trip per request is too much).
 */
export const RateLimitStoreKind = Schema.Literals(["memory", "database", "redis"])
/** Where rate-limit counts live. */
export type RateLimitStoreKind = typeof RateLimitStoreKind.Type

/** Log levels the host accepts. */
export const LogLevel = Schema.Literals(["trace", "debug", "info", "warn", "error", "fatal"])

/** The validated configuration of a host process. */
export interface HostConfig {
  readonly port: number
  readonly publicBaseUrl: string
  readonly store: StoreKind
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly rateLimitStore: RateLimitStoreKind
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>
  readonly trustedProxies: ReadonlyArray<string>
  readonly operatorToken: Option.Option<Redacted.Redacted<string>>
  readonly bootstrap: Option.Option<{
    readonly token: Redacted.Redacted<string>
    readonly plan: Plan.Plan
    readonly email: string | null
  }>
  readonly demo: boolean
  readonly logLevel: typeof LogLevel.Type
  /**
   * The web console: how people sign in to it (`link`: an e-mailed link, and
   * admins an API token; `off`: the sign-in screen says it is off) and how
   * long its sessions last (decision 0022).
   */
  readonly console: {
    readonly signIn: ConsoleSignIn
    readonly sessions: { readonly idleMinutes: number; readonly absoluteHours: number }
  }
  /** The deployment's primary colour (the share page's accent, exported charts' colours) and the locale documents write numbers in. */
  readonly branding: Branding.Branding
  readonly webhooks: {
    /** Run the delivery worker in this process (several processes on one database share the work). */
    readonly worker: boolean
    /** Let deliveries reach private and loopback addresses (tests, private deployments). */
    readonly allowPrivate: boolean
    /** The fixed addresses deliveries leave from, published for receivers' allowlists. */
    readonly egressAddresses: ReadonlyArray<string>
    /** How long a worker holds a delivery before another may take it (after a crash). */
    readonly leaseSeconds: number
  }
  /**
   * Datasets: where uploaded rows live (a DuckDB file, or `:memory:`; on
   * the PostgreSQL store, that database itself unless a DuckDB file is set,
   * so every host serves them), the PostgreSQL read in place, the largest
   * upload.
   */
  readonly datasets: {
    readonly duckdbPath: Option.Option<string>
    /** Uploaded rows live in the store's PostgreSQL (`analytics_uploads`): the PostgreSQL store without a DuckDB file. */
    readonly uploadsInDatabase: boolean
    /** DuckDB's `memory_limit` (`"1GB"`); past it sorts and groupings spill to disk. DuckDB's own default (80% of memory) when unset. */
    readonly duckdbMemoryLimit: Option.Option<string>
    /**
     * DuckDB's worker threads, shared by every query at once (DuckDB's
     * `threads` is the whole database's; a query runs on its own thread and
     * these). Default: half the CPUs available, at least one, so one query
     * never occupies every core.
     */
    readonly duckdbThreads: number
    readonly warehouseUrl: Option.Option<Redacted.Redacted<string>>
    readonly maxUploadBytes: number
    /**
     * Engine work (queries, exports, imports) run at once in this process,
     * every tenant together, each its fair share (`EngineScheduler`); the
     * rest waits its turn. Default: the CPUs available to the process.
     */
    readonly engineConcurrency: number
    /** Run scheduled dataset refreshes and alert checks in this process (with several hosts on one database, enable it on one). */
    readonly scheduler: boolean
  }
  /**
   * Exports: where result files are kept (a directory, or an S3-compatible
   * bucket; neither keeps them in memory, with the memory store), and
   * whether this process runs the export worker (any number of hosts on one
   * database share the queue).
   */
  readonly exports: {
    readonly directory: Option.Option<string>
    readonly s3: Option.Option<S3Results>
    readonly worker: boolean
    /** How long a worker holds a job before another may take it (after a crash); renewed every third of it while the job runs. */
    readonly leaseSeconds: number
  }
  /** SMTP for e-mail (a disabled webhook's owner); without it mail is logged, not sent. */
  readonly mail: Option.Option<{ readonly url: Redacted.Redacted<string>; readonly from: string }>
  /** An OpenAI-compatible chat-completions API that answers AI questions; without it the built-in answerer does, offline. */
  readonly ai: Option.Option<AiModel>
  /**
   * `GET /metrics` (Prometheus text): on a port of its own, or on the API's
   * port behind a bearer token; `None`: not served.
   */
  readonly metrics: Option.Option<{ readonly port: Option.Option<number>; readonly token: Option.Option<Redacted.Redacted<string>> }>
  /** Traces and metrics exported over OTLP/HTTP (the standard `OTEL_*` variables); `None`: not exported. */
  readonly otlp: Option.Option<OtlpExport>
}

/** Where and how traces and metrics are exported over OTLP/HTTP. */
export interface OtlpExport {
  /** The collector's base URL; signals go to `/v1/traces` and `/v1/metrics` below it. */
  readonly endpoint: string
  readonly protocol: "http/protobuf" | "http/json"
  /** Sent with every export (an API key, say): redacted. */
  readonly headers: Redacted.Redacted<Record<string, string>>
  readonly serviceName: string
  /** `OTEL_RESOURCE_ATTRIBUTES`, beside `service.name` and `service.version`. */
  readonly resourceAttributes: Record<string, string>
  readonly metricsIntervalMillis: number
  readonly tracesDelayMillis: number
}

/** The OpenAI-compatible model that answers AI questions. */
export interface AiModel {
  /** The API's base URL, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string
  /** Its key, sent as a bearer token; `None` for servers that need none (a local Ollama or vLLM). */
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly model: string
  /** How long to wait for a plan, and for each piece of a streamed answer. */
  readonly timeoutSeconds: number
}

/** Results kept on an S3-compatible bucket, downloaded at its presigned URLs. */
export interface S3Results {
  /** The service's URL; `None` is AWS S3 in `region`. */
  readonly endpoint: Option.Option<string>
  readonly region: string
  readonly bucket: string
  /** Before every key: empty, or ending with `/`. */
  readonly prefix: string
  /** `None`: the AWS default chain (environment, profile, instance or pod role). */
  readonly credentials: Option.Option<{ readonly accessKeyId: string; readonly secretAccessKey: Redacted.Redacted<string> }>
  readonly forcePathStyle: boolean
}

/** S3's bucket naming rules: 3 to 63 lowercase letters, digits, dots and hyphens. */
const BucketName = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: "Expected a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens" })
)

const HttpUrl = Schema.String.check(
  Schema.isPattern(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: "Expected an http:// or https:// URL" })
)

/** A comma-separated list, trimmed, empty entries dropped. */
const commaList = <S extends Schema.Codec<string, string>>(item: S) =>
  Schema.String.pipe(
    Schema.decodeTo(
      Schema.Array(item),
      SchemaTransformation.transform({
        decode: (list: string): ReadonlyArray<string> => list.split(",").map((entry) => entry.trim()).filter((entry) => entry !== ""),
        encode: (entries: ReadonlyArray<string>) => entries.join(",")
      })
    )
  )

/** Comma-separated networks (`10.0.0.0/8, 192.168.1.7/32`) whose `X-Forwarded-For` is believed. */
const TrustedProxies = commaList(Schema.String.check(Schema.makeFilter((cidr) =>
  Result.isSuccess(IpNetwork.fromString(cidr)) || `Expected a network such as 10.0.0.0/8, got "${cidr}"`
)))

/** Comma-separated IP addresses (`203.0.113.7, 2001:db8::7`). */
const IpList = commaList(Schema.String.check(Schema.makeFilter((ip) =>
  Result.isSuccess(IpNetwork.fromString(ip.includes(":") ? `${ip}/128` : `${ip}/32`)) || `Expected an IP address, got "${ip}"`
)))

/**
 * OpenTelemetry's `key=value` lists (`OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_RESOURCE_ATTRIBUTES`): comma-separated, values percent-decoded.
 */
const KeyValueList = Schema.String.check(Schema.makeFilter((list) => {
  for (const entry of keyValueEntries(list)) {
    if (entry[0] === "" || entry[1] === undefined) return `Expected key=value pairs separated by commas (values percent-encoded), got "${entry[0]}=…"`
  }
  return true
})).pipe(
  Schema.decodeTo(
    Schema.Record(Schema.String, Schema.String),
    SchemaTransformation.transform({
      decode: (list: string): Record<string, string> => Object.fromEntries(keyValueEntries(list).map(([key, value]) => [key, value ?? ""])),
      encode: (record: Record<string, string>) => Object.entries(record).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(",")
    })
  )
)

/** The entries of a `key=value,…` list; a value that does not decode is `undefined`. */
function keyValueEntries(list: string): Array<readonly [string, string | undefined]> {
  return list.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
    const at = entry.indexOf("=")
    if (at <= 0) return ["", undefined] as const
    try {
      return [entry.slice(0, at).trim(), decodeURIComponent(entry.slice(at + 1).trim())] as const
    } catch {
      return [entry.slice(0, at).trim(), undefined] as const
    }
  })
}

/** OTLP over HTTP; gRPC is not supported. */
const OtlpProtocol = Schema.Literals(["http/protobuf", "http/json"]).annotate({
  message: "Expected http/protobuf or http/json (gRPC is not supported)"
})

/** A BCP 47 locale `Intl` knows (`en-US`, `de-DE`). */
const Locale = Schema.String.check(Schema.makeFilter((tag) => {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length === 1 || `Expected a locale such as en-US or de-DE, got "${tag}"`
  } catch {
    return `Expected a locale such as en-US or de-DE, got "${tag}"`
  }
}))

const Millis = (maximum: number) => Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum }))

/**
 * How people sign in to the host's console. The App's third way,
 * `embedded`, needs an embedding app's own authentication, which a
 * standalone host has not.
 */
const ConsoleSignIn = Schema.Literals(["link", "off"]).annotate({
  message: "Expected link (an e-mailed link; admins also an API token) or off (no sign-in screen)"
})
/** How people sign in to the host's console. */
export type ConsoleSignIn = typeof ConsoleSignIn.Type

/** A whole number of minutes or hours between 1 and `maximum`. */
const WholeBetween = (maximum: number, unit: string) =>
  Schema.FiniteFromString.check(Schema.isInt({ message: `Expected a whole number of ${unit}` }), Schema.isBetween({ minimum: 1, maximum }, { message: `Expected 1 to ${maximum} ${unit}` }))

/** Each variable on its own, so that every invalid one is reported at once. */
const variables = {
  port: Config.Port("PORT").pipe(Config.withDefault(3000)),
  publicBaseUrl: Config.option(Config.schema(HttpUrl, "PUBLIC_BASE_URL")),
  store: Config.schema(StoreKind, "ANALYTICS_STORE").pipe(Config.withDefault("pglite" as const)),
  dataDir: Config.NonEmptyString("ANALYTICS_DATA_DIR").pipe(Config.withDefault(".data")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  rateLimitStore: Config.option(Config.schema(RateLimitStoreKind, "ANALYTICS_RATE_LIMIT_STORE")),
  redisUrl: Config.option(Config.Redacted("REDIS_URL")),
  trustedProxies: Config.schema(TrustedProxies, "ANALYTICS_TRUSTED_PROXIES").pipe(Config.withDefault([] as ReadonlyArray<string>)),
  operatorToken: Config.option(Config.Redacted("ANALYTICS_OPERATOR_TOKEN")),
  bootstrapToken: Config.option(Config.Redacted("ANALYTICS_BOOTSTRAP_TOKEN")),
  bootstrapPlan: Config.schema(Plan.Plan, "ANALYTICS_BOOTSTRAP_PLAN").pipe(Config.withDefault("growth" as const)),
  bootstrapEmail: Config.option(Config.schema(User.Email, "ANALYTICS_BOOTSTRAP_EMAIL")),
  demo: Config.Boolean("ANALYTICS_DEMO").pipe(Config.withDefault(false)),
  primaryColor: Config.schema(
    Schema.String.check(Schema.isPattern(/^#[0-9a-fA-F]{6}$/, { message: "Expected a colour such as #2563eb" })),
    "ANALYTICS_PRIMARY_COLOR"
  ).pipe(Config.withDefault(Branding.defaults.primaryColor)),
  locale: Config.schema(Locale, "ANALYTICS_LOCALE").pipe(Config.withDefault(Branding.defaults.locale)),
  logLevel: Config.schema(LogLevel, "LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  consoleSignIn: Config.schema(ConsoleSignIn, "ANALYTICS_CONSOLE_SIGN_IN").pipe(Config.withDefault("link" as const)),
  // Up to a day unused, and a month in all: a console session is a browser's, not a service's credential.
  sessionIdleMinutes: Config.schema(WholeBetween(1440, "minutes"), "ANALYTICS_SESSION_IDLE_MINUTES").pipe(Config.withDefault(60)),
  sessionAbsoluteHours: Config.schema(WholeBetween(720, "hours"), "ANALYTICS_SESSION_ABSOLUTE_HOURS").pipe(Config.withDefault(12)),
  webhookWorker: Config.Boolean("ANALYTICS_WEBHOOK_WORKER").pipe(Config.withDefault(true)),
  webhookAllowPrivate: Config.Boolean("ANALYTICS_WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  webhookEgressIps: Config.schema(IpList, "ANALYTICS_WEBHOOK_EGRESS_IPS").pipe(Config.withDefault([] as ReadonlyArray<string>)),
  // Longer than an attempt (5 s), so a live worker never loses a delivery to another.
  webhookLeaseSeconds: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 6, maximum: 3600 })),
    "ANALYTICS_WEBHOOK_LEASE_SECONDS"
  ).pipe(Config.withDefault(30)),
  duckdbPath: Config.option(Config.NonEmptyString("ANALYTICS_DUCKDB_PATH")),
  duckdbMemoryLimit: Config.option(Config.schema(
    Schema.String.check(Schema.isPattern(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, { message: "Expected a size such as 512MB or 2GB" })),
    "ANALYTICS_DUCKDB_MEMORY_LIMIT"
  )),
  duckdbThreads: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1024 })),
    "ANALYTICS_DUCKDB_THREADS"
  ).pipe(Config.withDefault(Math.max(1, Math.floor(Os.availableParallelism() / 2)))),
  warehouseUrl: Config.option(Config.Redacted("ANALYTICS_WAREHOUSE_URL")),
  engineConcurrency: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1024 })),
    "ANALYTICS_ENGINE_CONCURRENCY"
  ).pipe(Config.withDefault(Os.availableParallelism())),
  scheduler: Config.Boolean("ANALYTICS_SCHEDULER").pipe(Config.withDefault(true)),
  exportsDir: Config.option(Config.NonEmptyString("ANALYTICS_EXPORTS_DIR")),
  s3Bucket: Config.option(Config.schema(BucketName, "ANALYTICS_EXPORTS_S3_BUCKET")),
  s3Endpoint: Config.option(Config.schema(HttpUrl, "ANALYTICS_EXPORTS_S3_ENDPOINT")),
  s3Region: Config.option(Config.NonEmptyString("ANALYTICS_EXPORTS_S3_REGION")),
  s3Prefix: Config.option(Config.schema(
    Schema.String.check(Schema.isPattern(/^[^/\s][^\s]*$/, { message: "Expected a key prefix such as analytics/ (no leading slash, no spaces)" })),
    "ANALYTICS_EXPORTS_S3_PREFIX"
  )),
  s3AccessKeyId: Config.option(Config.NonEmptyString("ANALYTICS_EXPORTS_S3_ACCESS_KEY_ID")),
  s3SecretAccessKey: Config.option(Config.Redacted("ANALYTICS_EXPORTS_S3_SECRET_ACCESS_KEY")),
  s3ForcePathStyle: Config.option(Config.Boolean("ANALYTICS_EXPORTS_S3_FORCE_PATH_STYLE")),
  exportWorker: Config.Boolean("ANALYTICS_EXPORT_WORKER").pipe(Config.withDefault(true)),
  // Renewed every third of its length: a job outlives it, a dead host's job waits for it to run out.
  exportLeaseSeconds: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 6, maximum: 3600 })),
    "ANALYTICS_EXPORT_LEASE_SECONDS"
  ).pipe(Config.withDefault(120)),
  maxUploadMegabytes: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_048_576 })),
    "ANALYTICS_MAX_UPLOAD_MB"
  ).pipe(Config.withDefault(1024)),
  smtpUrl: Config.option(Config.Redacted("SMTP_URL")),
  mailFrom: Config.NonEmptyString("MAIL_FROM").pipe(Config.withDefault("Analytics <noreply@localhost>")),
  aiBaseUrl: Config.option(Config.schema(HttpUrl, "ANALYTICS_AI_BASE_URL")),
  aiApiKey: Config.option(Config.Redacted("ANALYTICS_AI_API_KEY")),
  aiModel: Config.option(Config.NonEmptyString("ANALYTICS_AI_MODEL")),
  aiTimeoutSeconds: Config.option(Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 600 })),
    "ANALYTICS_AI_TIMEOUT_SECONDS"
  )),
  metricsPort: Config.option(Config.Port("ANALYTICS_METRICS_PORT")),
  metricsToken: Config.option(Config.Redacted("ANALYTICS_METRICS_TOKEN")),
  otlpEndpoint: Config.option(Config.schema(HttpUrl, "OTEL_EXPORTER_OTLP_ENDPOINT")),
  otlpProtocol: Config.schema(OtlpProtocol, "OTEL_EXPORTER_OTLP_PROTOCOL").pipe(Config.withDefault("http/protobuf" as const)),
  otlpHeaders: Config.schema(KeyValueList, "OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault({} as Record<string, string>)),
  otelServiceName: Config.NonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("analytics-service")),
  otelResourceAttributes: Config.schema(KeyValueList, "OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault({} as Record<string, string>)),
  otelSdkDisabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  // The specification's defaults: metrics every minute, spans batched for 5 s.
  otelMetricExportInterval: Config.schema(Millis(3_600_000), "OTEL_METRIC_EXPORT_INTERVAL").pipe(Config.withDefault(60_000)),
  otelBspScheduleDelay: Config.schema(Millis(600_000), "OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5_000))
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** One line per problem of a configuration error: `VARIABLE: what is wrong`. */
const describe = (error: Config.ConfigError): Array<string> => {
  const cause = error.cause
  if (!Schema.isSchemaError(cause)) return [error.message]
  return formatIssues(cause.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null && "key" in p ? p.key : p))
    return `${path.join(".")}: ${issue.message}`
  })
}

/** Checks that need several variables at once; returns the problems found. */
const crossCheck = (c: HostConfig): Array<string> => {
  const problems: Array<string> = []
  const { idleMinutes, absoluteHours } = c.console.sessions
  if (idleMinutes > absoluteHours * 60) {
    problems.push(
      `ANALYTICS_SESSION_IDLE_MINUTES (${idleMinutes}) is longer than ANALYTICS_SESSION_ABSOLUTE_HOURS (${absoluteHours} h): ` +
        "a session ends at the absolute lifetime anyway; shorten the idle one or lengthen the absolute one"
    )
  }
  if (c.store === "postgres" && Option.isNone(c.databaseUrl)) {
    problems.push("ANALYTICS_STORE=postgres needs DATABASE_URL (postgres://user:password@host:5432/database)")
  }
  if (c.rateLimitStore === "database" && c.store === "memory") {
    problems.push("ANALYTICS_RATE_LIMIT_STORE=database needs a database: ANALYTICS_STORE=postgres or pglite")
  }
  if (c.rateLimitStore === "redis" && Option.isNone(c.redisUrl)) {
    problems.push("ANALYTICS_RATE_LIMIT_STORE=redis needs REDIS_URL (redis://host:6379)")
  }
  if (Option.isSome(c.metrics) && Option.contains(c.metrics.value.port, c.port)) {
    problems.push("ANALYTICS_METRICS_PORT must differ from PORT (unset it, and set ANALYTICS_METRICS_TOKEN, to serve /metrics on the API's port)")
  }
  return problems
}

/** The S3 variables' checks: they need a bucket, keys come in pairs, and one place for results. */
const s3Check = (c: {
  readonly exportsDir: Option.Option<string>
  readonly s3Bucket: Option.Option<string>
  readonly s3AccessKeyId: Option.Option<string>
  readonly s3SecretAccessKey: Option.Option<Redacted.Redacted<string>>
  readonly [name: string]: unknown
}): Array<string> => {
  const problems: Array<string> = []
  const s3Variables = {
    s3Endpoint: "ANALYTICS_EXPORTS_S3_ENDPOINT",
    s3Region: "ANALYTICS_EXPORTS_S3_REGION",
    s3Prefix: "ANALYTICS_EXPORTS_S3_PREFIX",
    s3AccessKeyId: "ANALYTICS_EXPORTS_S3_ACCESS_KEY_ID",
    s3SecretAccessKey: "ANALYTICS_EXPORTS_S3_SECRET_ACCESS_KEY",
    s3ForcePathStyle: "ANALYTICS_EXPORTS_S3_FORCE_PATH_STYLE"
  } as const
  if (Option.isNone(c.s3Bucket)) {
    for (const [key, name] of Object.entries(s3Variables)) {
      if (Option.isSome(c[key] as Option.Option<unknown>)) problems.push(`${name} needs ANALYTICS_EXPORTS_S3_BUCKET (results are kept on S3 only with a bucket)`)
    }
    return problems
  }
  if (Option.isSome(c.exportsDir)) {
    problems.push("ANALYTICS_EXPORTS_DIR and ANALYTICS_EXPORTS_S3_BUCKET: results are kept in one place; unset one")
  }
  if (Option.isSome(c.s3AccessKeyId) !== Option.isSome(c.s3SecretAccessKey)) {
    problems.push(Option.isSome(c.s3AccessKeyId)
      ? "ANALYTICS_EXPORTS_S3_ACCESS_KEY_ID needs ANALYTICS_EXPORTS_S3_SECRET_ACCESS_KEY (or unset both for the AWS default credentials)"
      : "ANALYTICS_EXPORTS_S3_SECRET_ACCESS_KEY needs ANALYTICS_EXPORTS_S3_ACCESS_KEY_ID (or unset both for the AWS default credentials)")
  }
  return problems
}

/** The AI variables' checks: a model with the base URL, and nothing else without it. */
const aiCheck = (c: {
  readonly aiBaseUrl: Option.Option<string>
  readonly aiApiKey: Option.Option<Redacted.Redacted<string>>
  readonly aiModel: Option.Option<string>
  readonly aiTimeoutSeconds: Option.Option<number>
}): Array<string> => {
  if (Option.isSome(c.aiBaseUrl)) {
    return Option.isNone(c.aiModel) ? ["ANALYTICS_AI_BASE_URL needs ANALYTICS_AI_MODEL (the model's name on that server, e.g. gpt-4.1-mini)"] : []
  }
  const set = [
    Option.isSome(c.aiApiKey) && "ANALYTICS_AI_API_KEY",
    Option.isSome(c.aiModel) && "ANALYTICS_AI_MODEL",
    Option.isSome(c.aiTimeoutSeconds) && "ANALYTICS_AI_TIMEOUT_SECONDS"
  ].filter((name) => name !== false)
  return set.map((name) => `${name} needs ANALYTICS_AI_BASE_URL (without it the built-in answerer answers, offline)`)
}

/**
 * Reads and validates the configuration from the environment; fails with
 * one line per problem, every invalid variable included.
 */
export const load: Effect.Effect<HostConfig, ReadonlyArray<string>> = Effect.gen(function*() {
  const parsed = yield* Effect.all(
    Object.entries(variables as Record<string, Config.Config<unknown>>).map(([name, variable]) =>
      Effect.map(
        Effect.result(Effect.gen(function*() {
          return yield* variable
        })),
        (result) => [name, result] as const
      )
    )
  )
  const problems = parsed.flatMap(([, result]) => (Result.isFailure(result) ? describe(result.failure) : []))
  if (problems.length > 0) return yield* Effect.fail(problems)
  const c = Object.fromEntries(parsed.map(([name, result]) => [name, Result.getOrThrow(result)])) as {
    readonly [K in keyof typeof variables]: Config.Success<(typeof variables)[K]>
  }
  const config: HostConfig = {
    port: c.port,
    publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, ""),
    store: c.store,
    dataDir: c.dataDir,
    databaseUrl: c.databaseUrl,
    // Processes share a PostgreSQL database, so they share its counts; PGlite and memory serve one process.
    rateLimitStore: Option.getOrElse(c.rateLimitStore, () => (c.store === "postgres" ? "database" : "memory")),
    redisUrl: c.redisUrl,
    trustedProxies: c.trustedProxies,
    operatorToken: c.operatorToken,
    bootstrap: Option.map(c.bootstrapToken, (token) => ({
      token,
      plan: c.bootstrapPlan,
      email: Option.getOrNull(c.bootstrapEmail)
    })),
    demo: c.demo,
    logLevel: c.logLevel,
    console: {
      signIn: c.consoleSignIn,
      sessions: { idleMinutes: c.sessionIdleMinutes, absoluteHours: c.sessionAbsoluteHours }
    },
    branding: { primaryColor: c.primaryColor, locale: c.locale },
    webhooks: {
      worker: c.webhookWorker,
      allowPrivate: c.webhookAllowPrivate,
      egressAddresses: c.webhookEgressIps,
      leaseSeconds: c.webhookLeaseSeconds
    },
    datasets: {
      // With the memory store nothing outlives the process, so neither do uploaded rows.
      duckdbPath: Option.orElse(c.duckdbPath, () =>
        c.store === "memory" ? Option.some(":memory:") : c.store === "pglite" ? Option.some(`${c.dataDir}/analytics.duckdb`) : Option.none()
      ),
      // On the PostgreSQL store every host shares the database, so uploads live there too (a DuckDB file serves one process).
      uploadsInDatabase: c.store === "postgres" && Option.isNone(c.duckdbPath),
      duckdbMemoryLimit: c.duckdbMemoryLimit,
      duckdbThreads: c.duckdbThreads,
      warehouseUrl: c.warehouseUrl,
      maxUploadBytes: c.maxUploadMegabytes * 1024 * 1024,
      engineConcurrency: c.engineConcurrency,
      scheduler: c.scheduler
    },
    exports: {
      // With the memory store nothing outlives the process, so neither do results; a bucket replaces the directory.
      directory: Option.orElse(c.exportsDir, () =>
        c.store === "memory" || Option.isSome(c.s3Bucket) ? Option.none() : Option.some(`${c.dataDir}/exports`)),
      s3: Option.map(c.s3Bucket, (bucket): S3Results => ({
        endpoint: c.s3Endpoint,
        region: Option.getOrElse(c.s3Region, () => "us-east-1"),
        bucket,
        prefix: Option.match(c.s3Prefix, { onNone: () => "", onSome: (prefix) => prefix.endsWith("/") ? prefix : `${prefix}/` }),
        credentials: Option.zipWith(c.s3AccessKeyId, c.s3SecretAccessKey, (accessKeyId, secretAccessKey) => ({ accessKeyId, secretAccessKey })),
        // Self-hosted stores rarely have a DNS name per bucket; AWS prefers one.
        forcePathStyle: Option.getOrElse(c.s3ForcePathStyle, () => Option.isSome(c.s3Endpoint))
      })),
      worker: c.exportWorker,
      leaseSeconds: c.exportLeaseSeconds
    },
    mail: Option.map(c.smtpUrl, (url) => ({ url, from: c.mailFrom })),
    ai: Option.map(c.aiBaseUrl, (baseUrl): AiModel => ({
      baseUrl,
      apiKey: c.aiApiKey,
      model: Option.getOrElse(c.aiModel, () => ""),
      timeoutSeconds: Option.getOrElse(c.aiTimeoutSeconds, () => 30)
    })),
    // A port of its own (the token, if set, still asked there), or the API's port behind the token.
    metrics: Option.isSome(c.metricsPort) || Option.isSome(c.metricsToken)
      ? Option.some({ port: c.metricsPort, token: c.metricsToken })
      : Option.none(),
    otlp: c.otelSdkDisabled ? Option.none() : Option.map(c.otlpEndpoint, (endpoint): OtlpExport => ({
      endpoint: endpoint.replace(/\/+$/, ""),
      protocol: c.otlpProtocol,
      headers: Redacted.make(c.otlpHeaders),
      serviceName: c.otelServiceName,
      resourceAttributes: c.otelResourceAttributes,
      metricsIntervalMillis: c.otelMetricExportInterval,
      tracesDelayMillis: c.otelBspScheduleDelay
    }))
  }
  const crossProblems = [...crossCheck(config), ...s3Check(c), ...aiCheck(c)]
  return crossProblems.length > 0 ? yield* Effect.fail(crossProblems) : config
})

/** The configuration is invalid: `problems` has one line per problem (`VARIABLE: what is wrong`), as `analytics-host` prints them. */
export class InvalidConfig extends Error {
  readonly problems: ReadonlyArray<string>
  constructor(problems: ReadonlyArray<string>) {
    super(`invalid configuration\n${problems.map((line) => `  ${line}`).join("\n")}`)
    this.name = "InvalidConfig"
    this.problems = problems
  }
}

/**
 * The host's configuration from environment variables (by default this
 * process's): the same variables, defaults and checks as `analytics-host`,
 * so moving the service from the host into an embedding app (or back)
 * changes none. Rejects with `InvalidConfig`, every problem listed.
 */
export const fromEnv = async (env: Readonly<Record<string, string | undefined>> = process.env): Promise<HostConfig> => {
  const defined = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
  const exit = await Effect.runPromiseExit(load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: defined })))))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons.find(Cause.isFailReason)
  throw new InvalidConfig(failure === undefined ? [Cause.pretty(exit.cause)] : failure.error)
}
