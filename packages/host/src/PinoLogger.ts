/**
 * pino as the backend of Effect's Logger: one JSON line per log event, with
 * the fiber's annotations and spans as fields.
 *
 * @since 0.1.0
 */
import { type Layer, Logger, type LogLevel } from "effect"
import { pino } from "pino"

const levels: Record<LogLevel.LogLevel, "trace" | "debug" | "info" | "warn" | "error" | "fatal" | undefined> = {
  All: "trace",
  Trace: "trace",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "fatal",
  None: undefined
}

/** A logger writing through the given pino instance. */
export const make = (log: pino.Logger): Logger.Logger<unknown, void> =>
  Logger.map(Logger.formatStructured, (entry) => {
    const level = levels[entry.level.charAt(0) + entry.level.slice(1).toLowerCase() as LogLevel.LogLevel]
    if (level === undefined || !log.isLevelEnabled(level)) return
    const fields: Record<string, unknown> = { ...entry.annotations }
    if (Object.keys(entry.spans).length > 0) fields.spans = entry.spans
    if (entry.cause !== undefined) fields.cause = entry.cause
    const message = typeof entry.message === "string" ? entry.message : JSON.stringify(entry.message)
    log[level](fields, message)
  })

/** Replaces Effect's default logger with pino at the given level. */
export const layer = (options: { readonly level: string; readonly name?: string }): Layer.Layer<never> =>
  Logger.layer([make(pino({ level: options.level, name: options.name ?? "analytics-host" }))])
