/**
 * The hint a table wider than its card shows: words above it ("Scroll
 * sideways to see every column."), which its scroll region is described by,
 * while it overflows; the shadows at its edges are the page's CSS (they
 * need no script). Watched on resize, so a table that fits once the screen
 * turns says nothing.
 *
 * @since 0.1.0
 */

/** A table's scroll region and its hint, as `dataTable` renders them: the hint is the region's previous sibling. */
const update = (region: HTMLElement) => {
  const hint = region.previousElementSibling
  if (!(hint instanceof HTMLElement) || !hint.classList.contains("scroll-hint")) return
  const overflows = region.scrollWidth > region.clientWidth + 1
  hint.hidden = !overflows
  if (overflows) region.setAttribute("aria-describedby", hint.id)
  else region.removeAttribute("aria-describedby")
}

/** Watches every table scroll region under `root` (those rendered later too); `disconnect` stops it. */
export const watch = (root: Element): { disconnect(): void } => {
  const seen = new WeakSet<Element>()
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) update(entry.target as HTMLElement)
  })
  const scan = () => {
    for (const region of root.querySelectorAll<HTMLElement>(".table-scroll")) {
      if (seen.has(region)) continue
      seen.add(region)
      resized.observe(region)
      // A table in a closed "Show data" has no width: it is measured when opened (ResizeObserver tells).
      update(region)
    }
  }
  const added = new MutationObserver(scan)
  added.observe(root, { childList: true, subtree: true })
  scan()
  return {
    disconnect: () => {
      added.disconnect()
      resized.disconnect()
    }
  }
}
