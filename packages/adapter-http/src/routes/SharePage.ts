/**
 * The HTML of shared content: a report drawn on the server (cards, charts
 * as SVG, tables), which the report viewer's script then brings to life
 * (its only script, same-origin: no inline script, no eval), the password
 * form of a protected link, and the page of a refusal. Pure functions of
 * what `SharedViews` decided; every value is escaped.
 *
 * @since 0.1.0
 */
import { type AnalyticsEngine, type Comments, type ExportJob, type ReportViews, type SharedSubjects } from "@analytics/core"
import { brandTokens, ViewerData } from "@analytics/viewer"
import * as SharedReport from "./SharedReport.ts"

type Row = AnalyticsEngine.Row

/** Escapes text for HTML content and attribute values. */
export const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;")

/**
 * The export form's `filters` field: the values of the report's filters in
 * force, as `?filters=` holds them; empty when none is set.
 */
export const filtersField = (values: Readonly<Record<string, unknown>> | undefined): string =>
  values === undefined || Object.keys(values).length === 0 ? "" : JSON.stringify(values)

/** The most rows a visual or a dataset's preview shows on the page (the rest are in its download, when allowed). */
export const rowsShown = SharedReport.rowsShown

/** How the page looks: the tenant's branding over the service's (decision 0014). */
export interface Branding {
  readonly name: string
  readonly primaryColor: string
  /** The tenant's logo, a PNG, JPEG or WebP `data:` URL (`TenantBranding` checked it); none: the name alone. */
  readonly logo?: string | null | undefined
}

/**
 * The page's styles: the console's palette (light, and dark by
 * `prefers-color-scheme`, as the console's theme), the accent made readable
 * on each (`brandTokens`, at least 4.6:1).
 */
const styles = (branding: Branding) => {
  const accent = brandTokens(/^#[0-9a-fA-F]{3,8}$/.test(branding.primaryColor) ? branding.primaryColor : "#2563eb")
  return `
  :root { color-scheme: light dark; --accent: ${accent.light}; --on-accent: ${accent.onLight};
    --page: #f6f8fa; --card: #ffffff; --fg: #1b1f24; --fg-2: #374151; --muted: #57606a; --border: #d0d7de; --line: #eaeef2;
    --control: #6b7280; --disabled: #f3f4f6; --state-bg: #f6f8fa; --dashed: #d1d5db;
    --warn-fg: #92400e; --warn-bg: #fffbeb; --warn-border: #fcd34d; --danger-fg: #991b1b; --danger-bg: #fef2f2; --danger-border: #fecaca; --shadow: rgb(0 0 0 / 0.22); }
  @media (prefers-color-scheme: dark) {
    :root { --accent: ${accent.dark}; --on-accent: ${accent.onDark};
      --page: #121417; --card: #1b1f24; --fg: #e6e8eb; --fg-2: #c9d1d9; --muted: #9aa4ae; --border: #30363d; --line: #262c33;
      --control: #8b949e; --disabled: #262c33; --state-bg: #161a1e; --dashed: #3d444d;
      --warn-fg: #e3b341; --warn-bg: #2a2212; --warn-border: #6b5316; --danger-fg: #ff9b8f; --danger-bg: #2a1512; --danger-border: #6e2b24; --shadow: rgb(255 255 255 / 0.28); }
    /* a page without script keeps the server's light drawing: it sits on a light panel */
    body.static .chart > svg { background: #ffffff; border-radius: 6px; }
    .watermark { filter: invert(1); }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--page); }
  a { color: var(--accent); }
  /* the header's content sits on the content's grid: the same width and side padding as main */
  header.masthead { background: var(--card); border-bottom: 3px solid var(--accent); }
  header.masthead .inner, main { max-width: 1200px; margin: 0 auto; padding-left: 24px; padding-right: 24px; }
  header.masthead .inner { padding-top: 14px; padding-bottom: 14px; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; }
  header.masthead .titles { flex: 1 1 20rem; min-width: 0; }
  .brand { display: flex; align-items: center; gap: 10px; margin: 0; font-weight: 600; font-size: 15px; color: var(--fg); flex: 1 0 100%; }
  .brand img { display: block; height: 32px; width: auto; max-width: 160px; object-fit: contain; }
  header h1 { margin: 0; font-size: 20px; overflow-wrap: anywhere; }
  header p { margin: 4px 0 0; color: var(--muted); }
  main { padding-top: 16px; padding-bottom: 32px; }
  section.page h2 { font-size: 16px; margin: 24px 0 8px; color: var(--fg-2); }
  report-viewer, filter-bar, visual-card, vega-chart { display: block; }
  .visuals { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); gap: 16px; }
  .visuals > * { min-width: 0; }
  /* a key figure is short: its card does not stretch to its row's chart */
  .visuals > visual-card:has(.kpi) { align-self: start; }
  .dashboard > article.visual { display: flex; flex-direction: column; min-width: 0; }
  article.visual, visual-card.visual > article { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 12px 16px 14px; overflow: auto; }
  visual-card.visual > article { height: 100%; overflow: visible; display: flex; flex-direction: column; position: relative; }
  article.visual h3, visual-card h3 { margin: 0 0 10px; font-size: 14px; }
  visual-card .card-head { display: flex; align-items: flex-start; gap: 8px; }
  visual-card .card-head h3 { flex: 1; min-width: 0; overflow-wrap: anywhere; }
  figure { margin: 0; }
  .chart { min-height: 120px; }
  .chart svg { display: block; max-width: 100%; height: auto; }
  /* The spec's text and lines suit a white card (packages/charts' theme): drawn live, they take the page's, light or dark, as the console's do. */
  body.live vega-chart .role-axis-label text, body.live vega-chart .role-legend-label text { fill: var(--muted); }
  body.live vega-chart .role-axis-title text, body.live vega-chart .role-legend-title text, body.live vega-chart .role-title-text text,
  body.live vega-chart .mark-text.role-mark text { fill: var(--fg); }
  body.live vega-chart .role-axis-domain line, body.live vega-chart .role-axis-tick line { stroke: var(--muted); }
  body.live vega-chart .role-axis-grid line { stroke: var(--border); }
  body.live vega-chart .mark-arc path { stroke: var(--card); }
  .chart[aria-busy="true"]::before { content: attr(data-drawing); display: block; padding: 48px 0; text-align: center; color: var(--muted); }
  .kpi { font-size: 32px; font-weight: 600; color: var(--accent); margin: 4px 0 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  .kpi[title] { cursor: help; }
  /* a table wider than its card shows shadows at the edges it scrolls to (no script needed); the viewer adds words */
  .table-scroll { overflow-x: auto; max-width: 100%;
    background: linear-gradient(to right, var(--card) 30%, transparent) left / 32px 100% no-repeat local,
      linear-gradient(to left, var(--card) 30%, transparent) right / 32px 100% no-repeat local,
      radial-gradient(farthest-side at 0 50%, var(--shadow), transparent) left / 12px 100% no-repeat scroll,
      radial-gradient(farthest-side at 100% 50%, var(--shadow), transparent) right / 12px 100% no-repeat scroll; }
  .table-scroll:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .scroll-hint { margin: 0 0 4px; font-size: 12px; color: var(--muted); }
  .scroll-hint[hidden] { display: none; }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { font-weight: 600; color: var(--fg-2); }
  td.number, th.number { text-align: right; }
  details.data { margin-top: 8px; }
  details.data summary { cursor: pointer; font-size: 13px; color: var(--fg); width: max-content; padding: 2px 0; }
  details.data[open] summary { margin-bottom: 6px; }
  .state { flex: 1; display: flex; align-items: center; justify-content: center; min-height: 140px; margin: 0; padding: 16px;
    color: var(--muted); background: var(--state-bg); border: 1px dashed var(--dashed); border-radius: 6px; text-align: center; }
  .state.timed_out { color: var(--warn-fg); background: var(--warn-bg); border-color: var(--warn-border); }
  visual-card[busy] article { opacity: 0.55; transition: opacity 0.2s; }
  .loading { margin: 4px 0 0; min-height: 1.2em; font-size: 12px; color: var(--muted); }
  .tabs { display: flex; gap: 4px; margin: 6px 0 12px; border-bottom: 1px solid var(--border); overflow-x: auto; }
  .tabs [role="tab"] { font: inherit; padding: 8px 14px; border: 0; border-bottom: 3px solid transparent; background: none; color: var(--fg-2); cursor: pointer; white-space: nowrap; }
  .tabs [role="tab"]:focus-visible { outline-offset: -3px; }
  .tabs [role="tab"][aria-selected="true"] { border-bottom-color: var(--accent); color: var(--fg); font-weight: 600; }
  :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .filters { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: flex-start; margin: 8px 0 0; padding: 12px 16px;
    background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
  .filter { display: flex; flex-direction: column; gap: 4px; min-width: 0; max-width: 100%; margin: 0; padding: 0; border: 0; }
  .filter label, .filter legend { font-size: 12px; font-weight: 600; color: var(--fg-2); padding: 0; }
  .filter.range { display: block; }
  .filter.range legend { margin-bottom: 4px; }
  .filter.range input { width: 9.5em; }
  .filter select, .filter input { font: inherit; min-height: 36px; padding: 6px 8px; border: 1px solid var(--control); border-radius: 6px; background: var(--card); color: var(--fg); min-width: 9em; max-width: 100%; }
  .filter select:disabled { background: var(--disabled); color: var(--fg-2); }
  .filter.locked small { font-size: 12px; color: var(--muted); }
  .filters .reset, button.plain { align-self: flex-end; font: inherit; padding: 6px 12px; border: 1px solid var(--control); border-radius: 6px; background: var(--card); color: var(--fg); cursor: pointer; }
  ul.chips { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; margin: 8px 0 0; padding: 0; }
  ul.chips[hidden] { display: none; }
  ul.chips button { font: inherit; font-size: 13px; display: inline-flex; align-items: center; gap: 6px; min-height: 32px; padding: 4px 10px;
    border: 1px solid var(--accent); border-radius: 999px; background: var(--card); color: var(--fg); cursor: pointer; max-width: 100%; overflow-wrap: anywhere; text-align: left; }
  ul.chips button span[aria-hidden] { font-size: 16px; line-height: 1; color: var(--accent); }
  details.menu { position: relative; flex: none; }
  details.menu > summary { list-style: none; cursor: pointer; min-width: 32px; min-height: 32px; display: flex; align-items: center; justify-content: center;
    border: 1px solid transparent; border-radius: 6px; color: var(--fg-2); font-size: 18px; line-height: 1; }
  details.menu > summary::-webkit-details-marker { display: none; }
  details.menu > summary:hover, details.menu[open] > summary { border-color: var(--border); background: var(--page); }
  details.menu ul { position: absolute; right: 0; top: calc(100% + 4px); z-index: 5; min-width: 190px; list-style: none; margin: 0; padding: 4px;
    background: var(--card); border: 1px solid var(--border); border-radius: 8px; box-shadow: 0 8px 24px rgb(0 0 0 / 0.18); }
  details.menu li > a, details.menu li > button { display: block; width: 100%; padding: 8px 10px; font: inherit; text-align: left; color: var(--fg);
    background: none; border: 0; border-radius: 4px; text-decoration: none; cursor: pointer; }
  details.menu li > a:hover, details.menu li > button:hover { background: var(--page); }
  visual-card:fullscreen, visual-card.visual:fullscreen { background: var(--page); padding: 24px; overflow: auto; }
  visual-card:fullscreen > article { min-height: 100%; }
  visual-card:fullscreen .chart svg { width: 100%; }
  .problem { margin: 12px 0 0; padding: 8px 12px; color: var(--danger-fg); background: var(--danger-bg); border: 1px solid var(--danger-border); border-radius: 6px; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  form.export button { font: inherit; padding: 6px 12px; border: 1px solid var(--control); border-radius: 6px; background: var(--card); color: var(--fg); cursor: pointer; }
  #vg-tooltip-element { font: 12px/1.4 system-ui, sans-serif; }
  @media (max-width: 600px) {
    /* a dashboard's grid is one column on a phone, its tiles in the grid's order */
    .dashboard { display: flex !important; flex-direction: column; }
    header.masthead .inner, main { padding-left: 12px; padding-right: 12px; }
    header.masthead .inner { padding-top: 12px; padding-bottom: 12px; }
    visual-card.visual > article { padding: 10px 12px 12px; }
    .filters { padding: 10px 12px; }
    .filter { flex: 1 1 100%; }
    .filter select { width: 100%; }
  }
  @media print {
    :root { color-scheme: light; }
    body { background: #fff; }
    header.masthead { border-bottom-width: 2px; }
    main { max-width: none; padding: 8px 0; }
    filter-bar, .tabs, form.export, a.download, details.data, details.menu, ul.chips, .scroll-hint, .loading { display: none !important; }
    section.page[hidden] { display: block !important; }
    section.page h2.visually-hidden { position: static; width: auto; height: auto; margin: 16px 0 8px; clip: auto; overflow: visible; }
    section.page h2 { break-after: avoid; }
    /* a table keeps its columns: the whole row is its */
    .visuals > visual-card:has(> article > .table-scroll) { grid-column: 1 / -1; }
    .table-scroll { overflow: visible; }
    .visuals { grid-template-columns: repeat(2, minmax(0, 1fr)); }
    visual-card, article.visual { break-inside: avoid; }
    .watermark { position: fixed; }
  }
  .note { color: var(--muted); font-size: 12px; margin: 6px 0 0; }
  .unavailable { color: var(--muted); font-style: italic; }
  a.download { display: inline-block; margin-top: 8px; font-size: 12px; color: var(--accent); }
  .watermark { position: fixed; inset: 0; pointer-events: none; z-index: 10; }
  form.password { max-width: 360px; margin: 10vh auto; background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 24px; }
  form.password h1 { font-size: 18px; margin: 0 0 8px; }
  form.password label { display: block; margin-bottom: 8px; font-weight: 600; }
  form.password input { width: 100%; padding: 8px; font: inherit; color: var(--fg); background: var(--card); border: 1px solid var(--control); border-radius: 6px; }
  form.password button { margin-top: 12px; padding: 8px 16px; font: inherit; color: var(--on-accent); background: var(--accent); border: 0; border-radius: 6px; cursor: pointer; }
  .error { color: var(--danger-fg); margin: 8px 0 0; }
  .message { max-width: 480px; margin: 10vh auto; text-align: center; }
  .message h1 { font-size: 22px; }
  .message p { color: var(--muted); }
`
}

/** The comment section's styles, only on a page that has one (a view-only page names no comment at all, rule 1). */
const commentStyles = `
  section.comments { margin: 32px 0 0; }
  section.comments h2 { font-size: 16px; margin: 0 0 8px; color: var(--fg-2); }
  section.comments h3 { font-size: 14px; margin: 16px 0 6px; color: var(--fg-2); }
  ol.thread, ol.replies { list-style: none; margin: 0; padding: 0; }
  ol.replies { margin: 8px 0 0 24px; }
  li.comment { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px; margin: 0 0 8px; }
  li.comment .meta { margin: 0; color: var(--muted); font-size: 12px; }
  li.comment .text { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  li.comment .deleted { margin: 4px 0 0; color: var(--muted); font-style: italic; }
`

const document = (title: string, branding: Branding, body: string, extraStyles = "", bodyClass = "static") =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escape(title)} · ${escape(branding.name)}</title>
<style>${styles(branding)}${extraStyles}</style>
</head>
<body class="${bodyClass}">
${body}
</body>
</html>
`

/** Who sends the page: the tenant's logo (when it set one) and name, above what is shared. */
const brand = (branding: Branding) =>
  `<p class="brand">${branding.logo == null || !/^data:image\/(png|jpeg|webp);base64,/.test(branding.logo) ? "" : `<img src="${escape(branding.logo)}" alt="">`}` +
  `<span class="brand-name">${escape(branding.name)}</span></p>`

/** The page's header: the brand, then `titles` (a heading, a description, controls), on the content's grid. */
const masthead = (branding: Branding, titles = "", after = "") =>
  `<header class="masthead"><div class="inner">${brand(branding)}${titles === "" ? "" : `<div class="titles">${titles}</div>`}${after}</div></header>`

/** The watermark: `text` tiled diagonally over the whole view, drawn as an SVG background (no script, no font to load). */
const watermark = (text: string) => {
  const label = escape(text)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="200">` +
    `<text x="180" y="100" text-anchor="middle" transform="rotate(-30 180 100)" ` +
    `font-family="sans-serif" font-size="16" fill="rgba(17,24,39,0.16)">${label}</text></svg>`
  return `<div class="watermark" data-watermark="${label}" aria-hidden="true" ` +
    `style="background-image: url(&quot;data:image/svg+xml,${escape(encodeURIComponent(svg))}&quot;)"></div>`
}

/** A cell of a dataset's preview (its columns carry no format): numbers grouped, with at most two decimals. */
const cell = (value: Row[string] | undefined) =>
  typeof value === "number"
    ? `<td class="number">${escape(value.toLocaleString("en-US", { maximumFractionDigits: 2 }))}</td>`
    : `<td>${escape(String(value ?? ""))}</td>`

/** A comment and its replies. */
interface Thread {
  readonly first: Comments.SharedComment
  readonly replies: Array<Comments.SharedComment>
}

const commentItem = (shared: Comments.SharedComment, replies: ReadonlyArray<Comments.SharedComment>): string => {
  const { comment } = shared
  const when = comment.created_at.toISOString()
  const meta = `<p class="meta"><span class="author">${escape(shared.authorName)}</span> · <time datetime="${when}">${escape(when.slice(0, 16).replace("T", " "))} UTC</time>${
    comment.edited_at === null ? "" : " · edited"
  }</p>`
  const body = comment.deleted ? `<p class="deleted">This comment was deleted.</p>` : `<p class="text">${escape(comment.text)}</p>`
  const nested = replies.length === 0 ? "" : `<ol class="replies">${replies.map((r) => commentItem(r, [])).join("")}</ol>`
  return `<li class="comment" data-comment="${escape(comment.comment_id)}">${meta}${body}${nested}</li>`
}

/**
 * The report's comments, read-only: its own thread, then each visual's
 * (oldest first, each reply under its first comment). Shown only when the
 * share allows comment (decision 0014); visitors read, members post
 * through the API (decision 0019).
 */
const commentSection = (view: ReportViews.ReportView, shown: NonNullable<ReportPageOptions["comments"]>): string => {
  const threads = new Map<string | null, Array<Thread>>()
  const byId = new Map<string, Thread>()
  for (const shared of shown.comments) {
    const parent = shared.comment.parent_id === null ? undefined : byId.get(shared.comment.parent_id)
    if (parent !== undefined) {
      parent.replies.push(shared)
      continue
    }
    const thread: Thread = { first: shared, replies: [] }
    byId.set(shared.comment.comment_id, thread)
    const key = shared.comment.visual_id
    threads.set(key, [...(threads.get(key) ?? []), thread])
  }
  const titles = new Map(view.pages.flatMap((page) => page.visuals.map((v) => [v.visual.id, v.visual.title ?? v.visual.id] as const)))
  const list = (items: ReadonlyArray<Thread>) => `<ol class="thread">${items.map((t) => commentItem(t.first, t.replies)).join("")}</ol>`
  const parts = [...threads.entries()]
    .sort(([a], [b]) => (a === null ? -1 : b === null ? 1 : 0))
    .map(([visualId, items]) =>
      visualId === null
        ? `<div class="comments-report">${list(items)}</div>`
        : `<div class="comments-visual" data-visual="${escape(visualId)}"><h3>On ${escape(titles.get(visualId) ?? visualId)}</h3>${list(items)}</div>`
    )
  return `<section class="comments" aria-label="Comments"><h2>Comments</h2>${
    parts.length === 0 ? `<p class="note">No comments yet.</p>` : parts.join("")
  }${shown.more ? `<p class="note">The first ${shown.comments.length} comments.</p>` : ""}` +
    `<p class="note">Comments are posted by signed-in members; this page shows them read-only.</p></section>`
}

/** What the report page offers beyond viewing. */
export interface ReportPageOptions {
  readonly branding: Branding
  readonly watermark: string | null
  /** Where the report's PDF is asked for (a form post), when the grant allows download. */
  readonly exportUrl?: string | undefined
  /** The report's comments, when the grant allows comment (decision 0014: absent with view only, and no section at all). */
  readonly comments?: { readonly comments: ReadonlyArray<Comments.SharedComment>; readonly more: boolean } | undefined
  /**
   * The viewer's entry script's URL; without it, or with a watermark, the
   * page is the server's drawing only: the script draws from the rows,
   * which a watermarked share does not serve (decision 0014).
   */
  readonly script?: string | undefined
  /** The URLs of the chunks the entry imports, preloaded with it (no waterfall of imports). */
  readonly preload?: ReadonlyArray<string> | undefined
  /** An embed's token session, run when the viewer is not (a watermarked report's embed): see `SessionScript`. */
  readonly session?: SessionScript | undefined
}

/**
 * The embed entry's script (the viewer's `src/embed/main.ts`), on an embed
 * page that runs no viewer: it renews the page's token through its parent as
 * the viewer does on a report's (decision 0027). Its URL and its chunks' URLs.
 */
export interface SessionScript {
  readonly script: string
  readonly preload: ReadonlyArray<string>
}

/** A module script with the chunks it imports preloaded. */
const moduleScript = (script: string, preload: ReadonlyArray<string>) =>
  `${preload.map((url) => `<link rel="modulepreload" href="${escape(url)}">`).join("")}<script type="module" src="${escape(script)}"></script>`

/** The session's script, or nothing. */
const sessionTags = (session: SessionScript | undefined) => session === undefined ? "" : moduleScript(session.script, session.preload)

const cardTable = (table: ViewerData.TableData, label: string) =>
  `<div class="table-scroll" tabindex="0" role="region" aria-label="${escape(label)}"><table><caption class="visually-hidden">${escape(label)}</caption>` +
  `<thead><tr>${table.columns.map((c) => `<th scope="col" class="${c.numeric ? "number" : ""}">${escape(c.title)}</th>`).join("")}</tr></thead>` +
  `<tbody>${table.cells.map((row) => `<tr>${row.map((cell, i) => `<td class="${table.columns[i]?.numeric ? "number" : ""}">${escape(cell)}</td>`).join("")}</tr>`).join("")}</tbody></table></div>` +
  (table.rows > table.cells.length ? `<p class="note">The first ${table.cells.length} of ${table.rows} rows.</p>` : "")

/**
 * A key figure: compact where it is long (`€52.8M`), its exact value in the
 * tooltip and for screen readers, which read it instead of the short one.
 */
export const kpi = (v: Pick<ViewerData.VisualData, "figure" | "figure_compact">) =>
  v.figure_compact === undefined || v.figure_compact === v.figure
    ? `<p class="kpi">${escape(v.figure ?? "")}</p>`
    : `<p class="kpi" title="${escape(v.figure ?? "")}"><span aria-hidden="true">${escape(v.figure_compact)}</span><span class="visually-hidden">${escape(v.figure ?? "")}</span></p>`

/** What a visual's card holds under its title: its chart (the server's SVG), key figure or table, or the message instead. */
const cardBody = (v: ViewerData.VisualData, svg: string | undefined) =>
  v.state !== "rows"
    ? `<p class="state ${v.state}">${escape(v.message ?? v.unavailable ?? "")}</p>`
    : v.kind === "kpi"
    ? kpi(v)
    : v.vega !== undefined
    ? `<figure><vega-chart class="chart">${svg ?? ""}</vega-chart><figcaption class="visually-hidden">${escape(v.description ?? "")}</figcaption></figure>` +
      (v.table === undefined ? "" : `<details class="data"><summary>Show data</summary>${cardTable(v.table, v.description ?? "Data")}</details>`)
    : v.table === undefined
    ? ""
    : cardTable(v.table, v.title ?? v.id)

/** A visual's CSV with the filters on screen (`?filters=`, which its download route applies). */
export const csvUrl = (downloadUrl: string, values: Readonly<Record<string, unknown>> | undefined): string => {
  const filters = filtersField(values)
  return filters === "" ? downloadUrl : `${downloadUrl}${downloadUrl.includes("?") ? "&" : "?"}filters=${encodeURIComponent(filters)}`
}

/**
 * A visual's card as the viewer's `<visual-card>` renders it, its chart the
 * server's SVG; its menu (a disclosure: no script needed) holds the CSV,
 * with the filters on screen. The viewer adds PNG and full screen.
 */
const card = (v: ViewerData.VisualData, svg: string | undefined, values: Readonly<Record<string, unknown>> | undefined) => {
  const titleId = `visual-${v.id}-title`
  const title = v.title ?? v.id
  const body = cardBody(v, svg)
  const menu = v.download_url === undefined
    ? ""
    : `<details class="menu"><summary><span aria-hidden="true">⋯</span><span class="visually-hidden">Options for ${escape(title)}</span></summary>` +
      `<ul><li><a href="${escape(csvUrl(v.download_url, values))}" download>Download CSV</a></li></ul></details>`
  return `<visual-card class="visual" data-visual="${escape(v.id)}"><article aria-labelledby="${escape(titleId)}"><div class="card-head"><h3 id="${escape(titleId)}">${
    escape(title)
  }</h3>${menu}</div>${body}</article></visual-card>`
}

/** The viewer's data on the page: a table's or key figure's rows are already its cells, only a chart reads its rows. */
const pageData = (data: ViewerData.ReportData): ViewerData.ReportData => ({
  ...data,
  pages: data.pages.map((page) => ({
    ...page,
    visuals: page.visuals.map((v) => {
      if (v.vega !== undefined || v.rows === undefined) return v
      const { rows: _, ...rest } = v
      return rest
    })
  }))
})

/** Data for a script element: JSON that no `</script>` or comment in it can end early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c")

/**
 * A shared report: each page's visuals in cards, charts drawn on the
 * server as SVG, each chart's data in a table behind "Show data"; the
 * viewer's script (when `script` is given) then adds the filters, the page
 * switcher and live charts. The watermark over all of it; with one, no
 * "Show data" (the data carries no table) and no script: every page drawn
 * by the server, one under the other.
 */
export const reportPage = (shared: SharedReport.SharedReport, view: ReportViews.ReportView, options: ReportPageOptions): string => {
  const { data, svgs } = shared
  const pages = data.pages.map((page) =>
    `<section class="page"><h2>${escape(page.name)}</h2><div class="visuals">${page.visuals.map((v) => card(v, svgs.get(v.id), data.filter_values)).join("")}</div></section>`
  ).join("")
  const description = view.report.description === null ? "" : `<p>${escape(view.report.description)}</p>`
  const script = options.script === undefined || options.watermark !== null
    ? ""
    : `<script type="application/json" id="${ViewerData.dataElementId}">${scriptJson(pageData(data))}</script>${moduleScript(options.script, options.preload ?? [])}`
  return document(
    view.report.name,
    options.branding,
    masthead(
      options.branding,
      `<h1>${escape(view.report.name)}</h1>${description}`,
      options.exportUrl === undefined
        ? ""
        : `<form class="export" method="post" action="${escape(options.exportUrl)}"><input type="hidden" name="format" value="pdf">${
          // The filters on screen, so the PDF shows what the page does (the viewer keeps it in step with its controls).
          `<input type="hidden" name="filters" value="${escape(filtersField(shared.data.filter_values))}">`}<button type="submit">Download PDF</button></form>`
    ) + `<main><report-viewer>${pages}</report-viewer>${options.comments === undefined ? "" : commentSection(view, options.comments)}</main>` +
      (options.watermark === null ? "" : watermark(options.watermark)) + (script === "" ? sessionTags(options.session) : script),
    options.comments === undefined ? "" : commentStyles,
    script === "" ? "static" : "live"
  )
}

/** The form asking for a link's password, posting back to the link. */
export const passwordPage = (branding: Branding, error?: string): string =>
  document(
    "Password required",
    branding,
    `${masthead(branding)}<main><form class="password" method="post" autocomplete="off">
<h1>Password required</h1>
<label for="password">This link is protected. Enter its password.</label>
<input id="password" name="password" type="password" required autofocus>
${error === undefined ? "" : `<p class="error" role="alert">${escape(error)}</p>`}
<button type="submit">Open</button>
</form></main>`
  )

/** An export on its way (the page looks again every 2 s, without script), or why it failed. */
export const exportPage = (branding: Branding, job: Pick<ExportJob.ExportJob, "status" | "percent_complete" | "failure">): string =>
  job.status === "queued" || job.status === "running"
    ? document(
      "Preparing your file",
      branding,
      `<meta http-equiv="refresh" content="2">${masthead(branding)}<main><div class="message"><h1>Preparing your file</h1><p>${
        job.status === "queued" ? "Waiting for its turn" : `${job.percent_complete}% done`
      }; this page opens it when it is ready.</p></div></main>`
    )
    : messagePage(branding, job.status === "canceled" ? "Export canceled" : "Export failed", job.failure?.detail ?? "The file could not be made")

/** A refusal (expired, revoked, not found…) as a page. */
export const messagePage = (branding: Branding, title: string, detail: string): string =>
  document(title, branding, `${masthead(branding)}<main><div class="message"><h1>${escape(title)}</h1><p>${escape(detail)}</p></div></main>`)

/**
 * A share's refusal as its visitor reads it: about the link (or embedded
 * view) they opened, never about grants, which are the sharer's words.
 */
export const refusalPage = (branding: Branding, code: string, detail: string, what: "link" | "view"): string => {
  const it = what === "link" ? "link" : "embedded view"
  const ask = what === "link" ? "Ask whoever sent it for a new link." : "Reload the page that embeds it, or ask its owner."
  switch (code) {
    case "share/revoked":
      return messagePage(branding, `This ${it} was revoked`, `Its owner stopped sharing it. ${ask}`)
    case "share/expired":
      return messagePage(branding, `This ${it} has expired`, `It was shared until a date that has passed. ${ask}`)
    case "share/paused":
      return messagePage(branding, `This ${it} is paused`, "Its owner paused it for now; try again later.")
    case "resource/not-found":
      return messagePage(branding, `There is no such ${it}`, `Check the address, or ${ask.charAt(0).toLowerCase()}${ask.slice(1)}`)
    default:
      return messagePage(branding, what === "link" ? "This link cannot be opened" : "This view cannot be opened", detail)
  }
}

/** What the page of a shared dashboard, dataset or workspace carries beyond its content. */
export interface SubjectPageOptions {
  readonly branding: Branding
  readonly watermark: string | null
  /** An embed's token session (an embed page's only script); none on a link's page. */
  readonly session?: SessionScript | undefined
}

const page = (title: string, heading: string, main: string, options: SubjectPageOptions) =>
  document(
    title,
    options.branding,
    masthead(options.branding, heading) + `<main>${main}</main>` + (options.watermark === null ? "" : watermark(options.watermark)) +
      sessionTags(options.session)
  )

/** The dashboard's grid: 24 columns across the page's 1152 px, rows of 48 px at least, 12 px apart. */
const grid = { columns: 24, width: 1152, row: 48, gap: 12 } as const

/** The size a tile's chart is drawn at: its tile's width less the card's padding, its height less the title's and "Show data"'s. */
export const tileChartSize = (tile: { readonly width: number; readonly height: number }) => ({
  width: Math.max(200, Math.round(tile.width / grid.columns * (grid.width + grid.gap) - grid.gap - 34)),
  height: Math.min(600, Math.max(160, tile.height * (grid.row + grid.gap) - grid.gap - 110))
})

/**
 * A shared dashboard, read-only: its tiles in the grid's order, each its
 * report visual's rows for the viewer, placed on the dashboard's 24-column
 * grid (decision 0014); the watermark over all of it.
 */
export const dashboardPage = (
  view: SharedSubjects.DashboardView,
  options: SubjectPageOptions & {
    /** The URL of a tile's CSV, when the grant allows download and has no watermark (rule 1: absent with view only). */
    readonly downloadUrl?: ((tileId: string) => string) | undefined
    /** Each tile's visual as a card's content (charts drawn as SVG), by tile id. */
    readonly cards: ReadonlyMap<string, { readonly data: ViewerData.VisualData; readonly svg: string | undefined }>
  }
): string => {
  const tiles = view.tiles.map(({ tile, view: v }) => {
    const area = `grid-column: ${tile.x + 1} / span ${tile.width}; grid-row: ${tile.y + 1} / span ${tile.height}`
    const title = v._tag === "Missing" ? tile.id : v.visual.title ?? v.visual.id
    const shown = options.cards.get(tile.id)
    const body = v._tag === "Missing" || shown === undefined
      ? `<p class="state unavailable">${escape(v._tag === "Missing" ? v.detail : "")}</p>`
      : cardBody(shown.data, shown.svg)
    const download = options.downloadUrl !== undefined && v._tag === "Rows"
      ? `<a class="download" href="${escape(options.downloadUrl(tile.id))}" download>Download CSV</a>`
      : ""
    return `<article class="visual tile" data-tile="${escape(tile.id)}" style="${area}"><h3>${escape(title)}</h3>${body}${download}</article>`
  }).join("")
  return page(
    view.dashboard.name,
    `<h1>${escape(view.dashboard.name)}</h1>`,
    `<div class="dashboard" style="display: grid; grid-template-columns: repeat(${grid.columns}, minmax(0, 1fr)); grid-auto-rows: minmax(${grid.row}px, auto); gap: ${grid.gap}px">${tiles}</div>`,
    options
  )
}

/** A measure's format in words. */
const formatText = (format: SharedSubjects.DatasetView["dataset"]["model"]["measures"][number]["format"]) =>
  format === undefined
    ? ""
    : format.type === "currency"
    ? `${format.currency}${format.decimals === undefined ? "" : `, ${format.decimals} decimals`}`
    : `${format.type}${format.decimals === undefined ? "" : `, ${format.decimals} decimals`}`

/**
 * A shared dataset, read-only: its model (dimensions and measures, with
 * their titles and formats) and the first rows the viewer may see (none
 * when watermarked: rows cannot carry the watermark, decision 0014).
 */
export const datasetPage = (view: SharedSubjects.DatasetView, options: SubjectPageOptions): string => {
  const { dataset, preview } = view
  const dimensions = dataset.model.dimensions.map((d) =>
    `<tr data-dimension="${escape(d.name)}"><td>${escape(d.name)}</td><td>${escape(d.title ?? "")}</td><td>${escape(d.type)}</td></tr>`
  ).join("")
  const measures = dataset.model.measures.map((m) =>
    `<tr data-measure="${escape(m.name)}"><td>${escape(m.name)}</td><td>${escape(m.title ?? "")}</td><td>${escape(formatText(m.format))}</td></tr>`
  ).join("")
  const rows = options.watermark !== null
    ? `<p class="note">This share is watermarked: a dataset's rows are not shown through it.</p>`
    : preview._tag === "Unavailable"
    ? `<p class="unavailable">${escape(preview.detail)}</p>`
    : `<table class="preview"><thead><tr>${preview.columns.map((c) => `<th>${escape(c)}</th>`).join("")}</tr></thead>` +
      `<tbody>${preview.rows.slice(0, rowsShown).map((row) => `<tr>${preview.columns.map((c) => cell(row[c])).join("")}</tr>`).join("")}</tbody></table>` +
      `<p class="note">${preview.rows.length === 0 ? "No rows to show." : `The first ${Math.min(preview.rows.length, rowsShown)} rows.`}</p>`
  const description = dataset.description === null ? "" : `<p>${escape(dataset.description)}</p>`
  return page(
    dataset.name,
    `<h1>${escape(dataset.name)}</h1>${description}`,
    `<section class="page model"><h2>Dimensions</h2><table><thead><tr><th>Name</th><th>Title</th><th>Type</th></tr></thead><tbody>${dimensions}</tbody></table>` +
      `<h2>Measures</h2><table><thead><tr><th>Name</th><th>Title</th><th>Format</th></tr></thead><tbody>${measures}</tbody></table></section>` +
      `<section class="page rows"><h2>Rows</h2><article class="visual">${rows}</article></section>`,
    options
  )
}

/**
 * A shared workspace, read-only: its reports and dashboards by name, each
 * a link that opens it within the share (`href` gives the address).
 */
export const workspacePage = (
  view: SharedSubjects.WorkspaceView,
  options: SubjectPageOptions & { readonly href: (kind: "reports" | "dashboards", id: string) => string }
): string => {
  const list = (items: ReadonlyArray<{ readonly id: string; readonly name: string; readonly kind: "reports" | "dashboards" }>) =>
    items.length === 0
      ? `<p class="note">None.</p>`
      : `<ul>${items.map((i) => `<li data-${i.kind === "reports" ? "report" : "dashboard"}="${escape(i.id)}"><a href="${escape(options.href(i.kind, i.id))}">${escape(i.name)}</a></li>`).join("")}</ul>`
  return page(
    view.workspace.name,
    `<h1>${escape(view.workspace.name)}</h1>`,
    `<section class="page"><h2>Reports</h2>${list(view.reports.map((r) => ({ id: r.report_id, name: r.name, kind: "reports" })))}</section>` +
      `<section class="page"><h2>Dashboards</h2>${list(view.dashboards.map((d) => ({ id: d.dashboard_id, name: d.name, kind: "dashboards" })))}</section>`,
    options
  )
}
