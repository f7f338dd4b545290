/**
 * The host's configuration, read from the environment and validated at
 * start. The variable names are a public contract.
 *
 * @since 0.1.0
 */
import { Plan } from "@analytics/core"
import { Config, Option, type Redacted, Schema } from "effect"

/** Where the stores live. */
export const StoreKind = Schema.Literals(["pglite", "memory", "postgres"])
/** Where the stores live. */
export type StoreKind = typeof StoreKind.Type

/** Log levels the host accepts. */
export const LogLevel = Schema.Literals(["trace", "debug", "info", "warn", "error", "fatal"])

/** The validated configuration of a host process. */
export interface HostConfig {
  readonly port: number
  readonly publicBaseUrl: string
  readonly store: StoreKind
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly operatorToken: Option.Option<Redacted.Redacted<string>>
  readonly bootstrap: Option.Option<{ readonly token: Redacted.Redacted<string>; readonly plan: Plan.Plan }>
  readonly demo: boolean
  readonly logLevel: typeof LogLevel.Type
}

const HttpUrl = Schema.String.check(
  Schema.isPattern(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: "Expected an http:// or https:// URL" })
)

/** Reads and validates the configuration from the environment. */
export const config: Config.Config<HostConfig> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(3000)),
  publicBaseUrl: Config.option(Config.schema(HttpUrl, "PUBLIC_BASE_URL")),
  store: Config.schema(StoreKind, "ANALYTICS_STORE").pipe(Config.withDefault("pglite" as const)),
  dataDir: Config.NonEmptyString("ANALYTICS_DATA_DIR").pipe(Config.withDefault(".data")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  operatorToken: Config.option(Config.Redacted("ANALYTICS_OPERATOR_TOKEN")),
  bootstrapToken: Config.option(Config.Redacted("ANALYTICS_BOOTSTRAP_TOKEN")),
  bootstrapPlan: Config.schema(Plan.Plan, "ANALYTICS_BOOTSTRAP_PLAN").pipe(Config.withDefault("growth" as const)),
  demo: Config.Boolean("ANALYTICS_DEMO").pipe(Config.withDefault(false)),
  logLevel: Config.schema(LogLevel, "LOG_LEVEL").pipe(Config.withDefault("info" as const))
}).pipe(
  Config.map((c): HostConfig => ({
    port: c.port,
    publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, ""),
    store: c.store,
    dataDir: c.dataDir,
    databaseUrl: c.databaseUrl,
    operatorToken: c.operatorToken,
    bootstrap: Option.map(c.bootstrapToken, (token) => ({ token, plan: c.bootstrapPlan })),
    demo: c.demo,
    logLevel: c.logLevel
  }))
)

/** Checks that need several variables at once; returns the problems found. */
export const crossCheck = (c: HostConfig): Array<string> => {
  const problems: Array<string> = []
  if (c.store === "postgres" && Option.isNone(c.databaseUrl)) {
    problems.push("ANALYTICS_STORE=postgres needs DATABASE_URL (postgres://user:password@host:5432/database)")
  }
  return problems
}
