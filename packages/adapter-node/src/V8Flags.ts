/**
 * The V8 settings a Node process serving the API runs best with; the host
 * applies them at start, an embedding app may (docs/decisions/0008-http-throughput.md).
 *
 * `--no-allocation-site-pretenuring`: V8 allocates an object literal straight
 * in the old generation once most objects from its place in the code outlive
 * a young collection. Effect builds an app's long-lived contexts and scopes
 * with the same literals that make each request's, so V8 decides so for them
 * while the app is built, and every request's context and scope then start
 * out old. Dead, they still hold the request's young objects through the
 * next young collections, which copy and promote them all: about 3.9 KB per
 * request on `GET /healthz`, against 0.4 KB with the setting, and the time
 * per request rises in step. The decision is made per site and never undone.
 *
 * @since 0.1.0
 */
import * as V8 from "node:v8"

/** The flags, in V8's command-line form. */
export const serving: ReadonlyArray<string> = ["--no-allocation-site-pretenuring"]

/** A flag's name without its `--` or `--no-` and with `_` as `-`: `--no-foo_bar` and `--foo-bar` are the same flag. */
const nameOf = (flag: string): string => flag.replace(/^--(no-)?/, "").replace(/=.*$/, "").replaceAll("_", "-")

/**
 * Sets `serving` in this process, except a flag the command line already
 * gives either way (`node --allocation-site-pretenuring` keeps V8's default).
 * V8 reads these flags while it runs, so setting them at start is enough.
 */
export const applyServing = (execArgv: ReadonlyArray<string> = process.execArgv): ReadonlyArray<string> => {
  const given = new Set(execArgv.filter((a) => a.startsWith("--")).map(nameOf))
  const applied = serving.filter((flag) => !given.has(nameOf(flag)))
  for (const flag of applied) V8.setFlagsFromString(flag)
  return applied
}
