/**
 * Charts on a page in dark mode: the server draws a chart's spec in colours
 * for a white card, and names, in `usermeta.darkColors`, the same hues for a
 * dark one (packages/charts' theme: each at least 3:1 on the dark card).
 * In dark mode (`prefers-color-scheme`, which the console's theme follows),
 * each light colour is swapped for its dark counterpart, in the spec before
 * it is drawn and in the server's drawing shown until then.
 *
 * @since 0.1.0
 */

/** The query the console's dark theme answers to. */
const darkQuery = "(prefers-color-scheme: dark)"

/** Whether the page is in dark mode now. */
export const isDark = (): boolean => typeof matchMedia === "function" && matchMedia(darkQuery).matches

/** Calls `then` whenever the page enters or leaves dark mode; the returned object stops it. */
export const onSchemeChange = (then: () => void): { disconnect(): void } => {
  if (typeof matchMedia !== "function") return { disconnect() {} }
  const query = matchMedia(darkQuery)
  query.addEventListener("change", then)
  return { disconnect: () => query.removeEventListener("change", then) }
}

/** The spec's swaps, light (lower case) to dark, or `undefined` when it names none. */
const swapsOf = (spec: unknown): ReadonlyMap<string, string> | undefined => {
  const colors = (spec as { usermeta?: { darkColors?: { from?: unknown; to?: unknown } } } | null)?.usermeta?.darkColors
  const [from, to] = [colors?.from, colors?.to]
  if (!Array.isArray(from) || !Array.isArray(to) || from.length !== to.length) return undefined
  return new Map(from.map((c, i) => [String(c).toLowerCase(), String(to[i])]))
}

/** A copy of `value` with every string that is one of the swaps' colours replaced. */
const swapped = (value: unknown, swaps: ReadonlyMap<string, string>): unknown => {
  if (typeof value === "string") return swaps.get(value.toLowerCase()) ?? value
  if (Array.isArray(value)) return value.map((v) => swapped(v, swaps))
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "usermeta" ? v : swapped(v, swaps)]))
}

/** `spec` in its dark colours when the page is dark and the spec names them; else `spec` itself. */
export const forScheme = (spec: unknown): unknown => {
  const swaps = isDark() ? swapsOf(spec) : undefined
  return swaps === undefined ? spec : swapped(spec, swaps)
}

/** The server's drawing of `spec` in its dark colours when the page is dark (fills and strokes that are the spec's colours). */
export const recolorDrawing = (drawing: Element, spec: unknown): void => {
  const swaps = isDark() ? swapsOf(spec) : undefined
  if (swaps === undefined) return
  for (const element of drawing.querySelectorAll("[fill], [stroke]")) {
    for (const attribute of ["fill", "stroke"]) {
      const dark = swaps.get(element.getAttribute(attribute)?.toLowerCase() ?? "")
      if (dark !== undefined) element.setAttribute(attribute, dark)
    }
  }
}
