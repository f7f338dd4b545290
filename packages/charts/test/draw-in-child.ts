/**
 * Draws the demo's time charts and prints their SVG as JSON: the chart
 * tests run it in a child process under another `TZ` (Node reads the time
 * zone once, so only a fresh process honestly has another one) and with
 * `--disallow-code-generation-from-strings` (no eval, no `new Function`).
 */
import { cases, draw } from "./demo.ts"

const drawn: Record<string, string> = {}
for (const name of ["line", "quarterly_bar", "daily_bar"]) drawn[name] = (await draw(cases[name])).svg
const evalBlocked = (() => {
  try {
    return new Function("return false")() as boolean
  } catch {
    return true
  }
})()
process.stdout.write(JSON.stringify({ zone: Intl.DateTimeFormat().resolvedOptions().timeZone, offset: new Date(2025, 0, 1).getTimezoneOffset(), evalBlocked, drawn }))
