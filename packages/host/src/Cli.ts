/**
 * `analytics-host serve | migrate`: the packaged service's command line,
 * loaded by `bin.ts` once the process is set up.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
import * as HostConfig from "./HostConfig.ts"
import { migrate, serve } from "./Main.ts"
import * as PinoLogger from "./PinoLogger.ts"

const usage = `Usage: analytics-host <command>

Commands:
  serve     run the service (HTTP API on PORT)
  migrate   apply pending database migrations and exit

Configuration comes from the environment; see the README's configuration table.`

const commands: Record<string, (config: HostConfig.HostConfig) => Effect.Effect<unknown, unknown>> = { serve, migrate }

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

const loaded = await Effect.runPromiseExit(HostConfig.load)
if (Exit.isFailure(loaded)) {
  const problems = Cause.hasFails(loaded.cause) ? Cause.squash(loaded.cause) as ReadonlyArray<string> : [Cause.pretty(loaded.cause)]
  console.error(`analytics-host: invalid configuration\n${problems.map((line) => `  ${line}`).join("\n")}`)
  process.exit(1)
}
const config = loaded.value

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
