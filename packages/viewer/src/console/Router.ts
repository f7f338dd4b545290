/**
 * A small History-API router. Paths are relative to the page's
 * `<base href>` (the console's mount point: `/` or `/analytics/`), so the
 * same code runs at the root and under any prefix. Each route names the
 * custom element of its screen and how to load it (a dynamic `import()`,
 * so a screen's code is fetched the first time it is shown).
 *
 * @since 0.1.0
 */

/** A route: a path pattern (`w/:workspace`, relative, no leading slash), its screen element and its loader. */
export interface Route {
  readonly pattern: string
  readonly tag: string
  readonly load: () => Promise<unknown>
  /** Shown to signed-out people too (sign-in, invitations, not found). */
  readonly public?: boolean
}

/** A route matched: its parameters and the query. */
export interface Match {
  readonly route: Route
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
}

/** The mount point's path, with its trailing slash (`/`, `/analytics/`). */
export const basePath = (): string => new URL(document.baseURI).pathname.replace(/[^/]*$/, "")

/** The current path relative to the mount point, without a leading slash (`""`, `w/ws_1`). */
export const currentPath = (): string => {
  const base = basePath()
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname.replace(/^\/+/, "")
  return path.replace(/\/+$/, "")
}

const segments = (path: string) => path.split("/").filter((s) => s !== "")

/** The first route whose pattern matches `path`, else `fallback`. */
export const match = (routes: ReadonlyArray<Route>, fallback: Route, path: string, search = ""): Match => {
  const query = new URLSearchParams(search)
  const parts = segments(path)
  for (const route of routes) {
    const pattern = segments(route.pattern)
    if (pattern.length !== parts.length) continue
    const params: Record<string, string> = {}
    const ok = pattern.every((p, i) => {
      if (p.startsWith(":")) {
        params[p.slice(1)] = decodeURIComponent(parts[i]!)
        return true
      }
      return p === parts[i]
    })
    if (ok) return { route, path, params, query }
  }
  return { route: fallback, path, params: {}, query }
}

/** The event the router sends on `window` after each navigation. */
export const navigatedEvent = "analytics-navigated"

/** The URL of a console path (relative to the mount point; may carry `?query` and `#hash`). */
export const urlOf = (path: string): URL => new URL(path.replace(/^\/+/, ""), new URL(basePath(), location.origin))

/** Goes to `path` (relative to the mount point), in the history unless `replace`. */
export const navigate = (path: string, options: { readonly replace?: boolean; readonly state?: unknown } = {}): void => {
  const url = urlOf(path)
  if (options.replace === true) history.replaceState(options.state ?? null, "", url)
  else history.pushState(options.state ?? null, "", url)
  window.dispatchEvent(new Event(navigatedEvent))
}

/**
 * Turns clicks on links to console paths into navigations without a page
 * load (a modified click, another target or a download stays the
 * browser's); back and forward navigate too.
 */
export const start = (onChange: () => void): void => {
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement)
    if (anchor === undefined || anchor.target !== "" || anchor.hasAttribute("download")) return
    const url = new URL(anchor.href)
    if (url.origin !== location.origin || !url.pathname.startsWith(basePath()) || url.pathname.startsWith(`${basePath()}assets/`)) return
    if (url.pathname === location.pathname && url.search === location.search && url.hash !== "") return
    event.preventDefault()
    // A link may carry what it names (`data-title`), for the next screen's heading before anything loads.
    const title = anchor.dataset.title
    history.pushState(title === undefined ? null : { title }, "", url)
    onChange()
  })
  window.addEventListener("popstate", onChange)
  window.addEventListener(navigatedEvent, onChange)
}

/** The title the link that led here carried (`data-title`), kept by the history across reloads. */
export const linkTitle = (): string | undefined => {
  const state: unknown = history.state
  return typeof state === "object" && state !== null && typeof (state as { title?: unknown }).title === "string" ? (state as { title: string }).title : undefined
}

/**
 * A relative path that stays in the console (for `?next=`), else `""`: no
 * scheme, no leading `/`, no `//`, `..` or `\\` in its path, no control
 * characters; its query and `#page=` are kept as they were (a report's
 * `?filters=` holds JSON).
 */
export const safeNext = (next: string | null): string => {
  if (next === null || next.startsWith("/") || next.includes("\\") || /[\u0000-\u001f\u007f]/.test(next) || /^[a-z][a-z0-9+.-]*:/i.test(next)) return ""
  const path = next.split(/[?#]/, 1)[0]!
  return path.includes("//") || path.split("/").includes("..") || !/^[\w\-./%]*$/.test(path) ? "" : next
}
