/**
 * The report viewer's look outside the share page (which brings its own
 * styles): its filters, page tabs, cards, charts and tables in the
 * `--analytics-*` tokens, so the console's theme (light and dark) and an
 * embedding app's custom properties apply. A constructed stylesheet, made
 * once and adopted by the document (the console) or by a shadow root
 * (`<analytics-report>`).
 *
 * @since 0.1.0
 */

/** The stylesheet's text. */
export const css = `
report-viewer, filter-bar, visual-card, vega-chart { display: block; }
report-viewer .visuals { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 380px), 1fr)); gap: 16px; }
report-viewer .visuals > *, .tiles > * { min-width: 0; }
.visuals > visual-card:has(.kpi) { align-self: start; }
visual-card.visual > article { height: 100%; display: flex; flex-direction: column; background: var(--analytics-bg); border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); padding: 12px 16px 14px; }
visual-card h3 { margin: 0 0 10px; font-size: 0.95rem; }
visual-card figure { margin: 0; }
.chart { min-height: 120px; }
.chart svg { display: block; max-width: 100%; height: auto; }
/* The spec's colours suit a white page (packages/charts' theme); on the card the chart's text and lines take the theme's, light or dark. */
vega-chart .role-axis-label text, vega-chart .role-legend-label text { fill: var(--analytics-muted, #4b5563); }
vega-chart .role-axis-title text, vega-chart .role-legend-title text, vega-chart .role-title-text text, vega-chart .mark-text.role-mark text { fill: var(--analytics-fg, #111827); }
vega-chart .role-axis-domain line, vega-chart .role-axis-tick line { stroke: var(--analytics-muted, #888888); }
vega-chart .role-axis-grid line { stroke: var(--analytics-border, #dddddd); }
vega-chart .mark-arc path { stroke: var(--analytics-bg, #ffffff); }
.chart[aria-busy="true"]::before { content: attr(data-drawing); display: block; padding: 48px 0; text-align: center; color: var(--analytics-muted); }
.kpi { font-size: 2rem; font-weight: 600; color: var(--analytics-primary); margin: 4px 0 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; max-width: 100%; }
report-viewer table, .tiles table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.9rem; }
report-viewer th, report-viewer td, .tiles th, .tiles td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--analytics-border); white-space: nowrap; }
td.number, th.number { text-align: right; }
details.data { margin-top: 8px; }
details.data summary { font-size: 0.85rem; width: max-content; }
visual-card .state { flex: 1; display: flex; align-items: center; justify-content: center; min-height: 140px; margin: 0; padding: 16px; }
visual-card .state.timed_out { border-color: var(--analytics-danger); }
visual-card[busy] article { opacity: 0.55; transition: opacity 0.2s; }
report-viewer .loading { margin: 4px 0 0; min-height: 1.2em; font-size: 0.8rem; color: var(--analytics-muted); }
report-viewer .problem { margin: 8px 0; }
report-viewer .tabs { display: flex; gap: 4px; margin: 6px 0 12px; border-bottom: 1px solid var(--analytics-border); overflow-x: auto; }
report-viewer .tabs [role="tab"] { font: inherit; font-weight: 400; padding: 8px 14px; border: 0; border-radius: 0; border-bottom: 3px solid transparent; background: none; color: var(--analytics-fg); cursor: pointer; white-space: nowrap; }
report-viewer .tabs [role="tab"]:focus-visible { outline-offset: -3px; }
report-viewer .tabs [role="tab"][aria-selected="true"] { border-bottom-color: var(--analytics-primary); font-weight: 600; }
report-viewer .filters { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: flex-end; margin: 0; padding: 12px 16px; background: var(--analytics-surface); border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); }
.filter { display: flex; flex-direction: column; gap: 4px; min-width: 0; max-width: 100%; margin: 0; padding: 0; border: 0; }
.filter label, .filter legend { font-size: 0.8rem; font-weight: 600; padding: 0; }
.filter.range { display: block; }
.filter.range legend { margin-bottom: 4px; }
.filter.range input { width: 10em; }
.filter select, .filter input { font: inherit; box-sizing: border-box; height: 40px; min-height: 0; padding: 6px 8px; border: 1px solid var(--analytics-muted); border-radius: 6px; background: var(--analytics-bg); color: var(--analytics-fg); min-width: 9em; max-width: 100%; }
.filter.locked small { font-size: 0.8rem; color: var(--analytics-muted); }
.filter.range .invalid { margin: 4px 0 0; font-size: 0.8rem; color: var(--analytics-danger); max-width: 22em; }
.filters .reset { font: inherit; font-weight: 400; padding: 6px 12px; border: 1px solid var(--analytics-muted); border-radius: 6px; background: var(--analytics-bg); color: var(--analytics-fg); cursor: pointer; }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.note { color: var(--analytics-muted); font-size: 0.8rem; margin: 6px 0 0; }
a.download { display: inline-block; margin-top: 8px; font-size: 0.8rem; }
#vg-tooltip-element { font: 12px/1.4 system-ui, sans-serif; }
@media (max-width: 600px) {
  report-viewer .filters { padding: 10px 12px; }
  .filter { flex: 1 1 100%; }
  .filter select { width: 100%; }
  /* a date range's two ends share the line */
  .filter.range input { width: calc(50% - 12px); min-width: 0; }
  visual-card.visual > article { padding: 10px 12px 12px; }
}
`

let sheet: CSSStyleSheet | undefined

/** The viewer's stylesheet, made once. */
export const viewerSheet = (): CSSStyleSheet => {
  if (sheet === undefined) {
    sheet = new CSSStyleSheet()
    sheet.replaceSync(css)
  }
  return sheet
}

/** Adopts the viewer's stylesheet in the document, once. */
export const adoptViewerStyles = (): void => {
  const own = viewerSheet()
  if (!document.adoptedStyleSheets.includes(own)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, own]
}

/** The console's report and dashboard screens around the viewer: breadcrumbs, the header's actions, the tiles' grid, comments. */
export const screenCss = `
main:has(> analytics-report-screen, > analytics-dashboard-screen) { max-width: 1240px; }
.crumbs ol { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0 0 8px; padding: 0; font-size: 0.9rem; }
.crumbs li + li::before { content: "›"; margin-right: 4px; color: var(--analytics-muted); }
.crumbs [aria-current="page"] { color: var(--analytics-muted); }
.screen-head { display: flex; flex-wrap: wrap; align-items: flex-start; justify-content: space-between; gap: 8px 16px; }
.screen-head h1 { margin-bottom: 8px; min-width: 0; overflow-wrap: anywhere; }
.screen-head .actions { display: flex; gap: 8px; flex-wrap: wrap; margin-bottom: 8px; }
.screen-head .actions:empty { display: none; }
.tiles { display: grid; grid-template-columns: repeat(24, minmax(0, 1fr)); grid-auto-rows: minmax(48px, auto); gap: 12px; }
.tiles > visual-card { grid-column: var(--x) / span var(--w); grid-row: var(--y) / span var(--h); }
section.comments { margin-top: 32px; }
.comments-list, .replies { list-style: none; margin: 0 0 16px; padding: 0; }
.comments-list > li { padding: 12px 0; border-top: 1px solid var(--analytics-border); }
.comments-list > li:first-child { border-top: none; padding-top: 0; }
.replies { margin: 8px 0 0 20px; padding-left: 12px; border-left: 3px solid var(--analytics-border); }
.comment-meta { display: flex; flex-wrap: wrap; gap: 4px 10px; margin: 0 0 4px; font-size: 0.9rem; }
.comment-text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 4px; }
.comments .row { gap: 8px 16px; }
.comments button.link { font-size: 0.9rem; }
.replies > li + li { margin-top: 12px; }
.comments form.reply { margin: 8px 0 0 20px; padding-left: 12px; border-left: 3px solid var(--analytics-border); }
.comments form.reply textarea { width: 100%; box-sizing: border-box; }
button.danger { background: var(--analytics-danger); border-color: var(--analytics-danger); color: var(--analytics-bg); }
@media (max-width: 760px) {
  .tiles { display: flex; flex-direction: column; }
}
`

let screenSheet: CSSStyleSheet | undefined

/** Adopts the viewer's and the report screens' stylesheets in the document, once. */
export const adoptScreenStyles = (): void => {
  adoptViewerStyles()
  if (screenSheet === undefined) {
    screenSheet = new CSSStyleSheet()
    screenSheet.replaceSync(screenCss)
  }
  if (!document.adoptedStyleSheets.includes(screenSheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, screenSheet]
}
