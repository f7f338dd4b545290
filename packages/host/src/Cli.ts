/**
 * `analytics-host serve | work | migrate`: the packaged service's command line,
 * loaded by `bin.ts` once the process is set up.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
import * as HostConfig from "./HostConfig.ts"
import { migrate, serve, work } from "./Main.ts"
import * as PinoLogger from "./PinoLogger.ts"

const usage = `Usage: analytics-host <command>

Commands:
  serve     run the service (HTTP API on PORT, and the background work its switches leave on)
  work      run only the background work (exports, webhooks, schedules; no HTTP port) on the
            configured database, beside API processes started with ANALYTICS_EXPORT_WORKER=0,
            ANALYTICS_WEBHOOK_WORKER=0 and ANALYTICS_SCHEDULER=0
  migrate   apply pending database migrations and exit

Configuration comes from the environment; see the README's configuration table.`

const commands: Record<string, (config: HostConfig.HostConfig) => Effect.Effect<unknown, unknown>> = { serve, work, migrate }

const [command = "serve", ...rest] = process.argv.slice(2)
if (command === "--help" || command === "-h" || command === "help") {
  console.log(usage)
  process.exit(0)
}
const run = commands[command]
if (run === undefined || rest.length > 0) {
  console.error(`analytics-host: unknown command "${[command, ...rest].join(" ")}"\n\n${usage}`)
  process.exit(2)
}

// The loader an embedding app uses too (HostConfig.fromEnv): the same variables either way.
const config = await HostConfig.fromEnv().catch((error: unknown) => {
  console.error(`analytics-host: ${error instanceof HostConfig.InvalidConfig ? error.message : String(error)}`)
  return process.exit(1)
})

run(config).pipe(
  Effect.tapCause((cause) =>
    Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(`analytics-host ${command} failed`, cause)
  ),
  Effect.provide(Layer.mergeAll(PinoLogger.layer({ level: config.logLevel }), NodeServices.layer)),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    // A stop by SIGTERM or SIGINT is the normal way to end a server: exit 0 once shut down.
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
  })
)
