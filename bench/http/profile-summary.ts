/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with
 * the most self samples, the functions of this repository with the most
 * inclusive samples, and self samples rolled up by package.
 *
 *   node bench/http/profile-summary.ts bench/http/profiles/ours-....cpuprofile [top=30] [fromMicros toMicros]
 *
 * With a window (monotonic microseconds, the clock of the profile's
 * timestamps), only the samples taken inside it count: the runner passes the
 * measured window, so start-up, set-up and warm-up are left out.
 */
import * as Fs from "node:fs"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
}

const root = new URL("../../", import.meta.url).href

/** Where a frame lives, shortened: `packages/core/src/platform/Crypto.ts`, `effect/dist/internal/effect.js`, `node:internal/...`. */
const where = (url: string): string => {
  if (url === "") return ""
  let path = url.startsWith(root) ? url.slice(root.length) : url
  const nm = path.lastIndexOf("node_modules/")
  if (nm !== -1) path = path.slice(nm + "node_modules/".length)
  return path
}

/** A coarse owner of a frame, for the roll-up. */
const ownerOf = (frame: CallFrame): string => {
  const name = frame.functionName
  if (name === "(idle)" || name === "(garbage collector)" || name === "(program)" || name === "(root)") return name
  const path = where(frame.url)
  if (path === "") return "V8 builtins / native"
  if (path.startsWith("node:")) return "node internals"
  if (path.startsWith("packages/")) return path.split("/").slice(0, 2).join("/")
  if (path.startsWith("bench/")) return "bench"
  if (path.startsWith("@")) return path.split("/").slice(0, 2).join("/")
  return path.split("/")[0]
}

const keyOf = (frame: CallFrame): string =>
  `${frame.functionName || "(anonymous)"}  ${where(frame.url)}${frame.url === "" ? "" : `:${frame.lineNumber + 1}:${frame.columnNumber + 1}`}`

const pct = (n: number, total: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`

/** The summary as text. */
export const summarise = (
  file: string,
  options: { readonly top?: number; readonly window?: { readonly from: number; readonly to: number } | undefined } = {}
): string => {
  const top = options.top ?? 30
  const profile = JSON.parse(Fs.readFileSync(file, "utf8")) as Profile
  const overlaps = options.window !== undefined &&
    options.window.from < profile.endTime && options.window.to > profile.startTime
  const window = overlaps ? options.window : undefined
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const owners = new Map<string, number>()
  const files = new Map<string, number>()
  let idle = 0
  let total = 0
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (window !== undefined && (at < window.from || at > window.to)) continue
    total++
    const node = byId.get(profile.samples[i])
    if (node === undefined) continue
    const key = keyOf(node.callFrame)
    self.set(key, (self.get(key) ?? 0) + 1)
    const owner = ownerOf(node.callFrame)
    owners.set(owner, (owners.get(owner) ?? 0) + 1)
    if (owner === "(idle)") idle++
    const file = where(node.callFrame.url) || owner
    files.set(file, (files.get(file) ?? 0) + 1)
    const seen = new Set<string>()
    for (let up: number | undefined = node.id; up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up)?.callFrame
      if (frame === undefined) continue
      const k = keyOf(frame)
      if (seen.has(k)) continue
      seen.add(k)
      inclusive.set(k, (inclusive.get(k) ?? 0) + 1)
    }
  }
  const busy = total - idle
  const seconds = ((window === undefined ? profile.endTime - profile.startTime : window.to - window.from) / 1e6)
  const lines: Array<string> = []
  if (options.window !== undefined && !overlaps) {
    lines.push("the given window lies outside the profile (another clock?): summarising the whole profile")
  }
  lines.push(
    `${total} samples over ${seconds.toFixed(1)} s${window === undefined ? " (whole profile)" : " (measured window only)"}; ` +
      `${busy} busy (not idle). Shares below are of busy samples.`
  )

  lines.push("", `top ${top} functions by self samples:`)
  const sortedSelf = [...self].filter(([k]) => !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [key, n] of sortedSelf) lines.push(`  ${pct(n, busy)}  ${String(n).padStart(6)}  ${key}`)

  lines.push("", "self samples by owner:")
  for (const [owner, n] of [...owners].filter(([o]) => o !== "(idle)").sort((a, b) => b[1] - a[1])) {
    lines.push(`  ${pct(n, busy)}  ${String(n).padStart(6)}  ${owner}`)
  }

  lines.push("", `top ${top} files by self samples:`)
  for (const [file, n] of [...files].filter(([f]) => f !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(n, busy)}  ${String(n).padStart(6)}  ${file}`)
  }

  lines.push("", `top ${top} functions of this repository (packages/, bench/) by inclusive samples:`)
  const ours = [...inclusive]
    .filter(([k]) => / (packages|bench)\//.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
  for (const [key, n] of ours) lines.push(`  ${pct(n, busy)}  ${String(n).padStart(6)}  ${key}`)
  return lines.join("\n")
}

if (import.meta.main) {
  const [file, top, from, to] = process.argv.slice(2)
  if (file === undefined) {
    console.error("usage: node bench/http/profile-summary.ts <file.cpuprofile> [top] [fromMicros toMicros]")
    process.exit(2)
  }
  console.log(summarise(file, {
    top: top === undefined ? 30 : Number(top),
    window: from !== undefined && to !== undefined ? { from: Number(from), to: Number(to) } : undefined
  }))
}
