/**
 * The console's look: design tokens as `--analytics-*` custom properties
 * (the brand's primary colour made readable, light and dark by
 * `prefers-color-scheme`) and the styles of its light-DOM elements, as one
 * constructed stylesheet the document adopts. Constructed stylesheets are
 * outside the page policy's `style-src`, so no inline style is needed.
 *
 * @since 0.1.0
 */
import { parseHex, readableOn, type Rgb, textOn, toHex } from "./Colors.ts"

const white: Rgb = [255, 255, 255]
const black: Rgb = [0, 0, 0]
/** The surfaces text sits on, the closer to the primary colour of each theme's two (page and card): readable there, readable on both. */
const lightSurface: Rgb = [246, 248, 250]
const darkSurface: Rgb = [27, 31, 36]

/** The colour tokens for a brand colour: its readable variants on light and dark, and the text on each. */
export const tokens = (primaryColor: string) => {
  const brand = parseHex(primaryColor) ?? [37, 99, 235]
  const light = readableOn(brand, lightSurface, black, 4.6)
  const dark = readableOn(brand, darkSurface, white, 4.6)
  return { light: toHex(light), onLight: toHex(textOn(light)), dark: toHex(dark), onDark: toHex(textOn(dark)) }
}

/** The stylesheet's text for a brand colour. */
export const css = (primaryColor: string): string => {
  const t = tokens(primaryColor)
  return `
:root {
  color-scheme: light dark;
  --analytics-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --analytics-bg: #ffffff; --analytics-surface: #f6f8fa; --analytics-fg: #1b1f24; --analytics-muted: #57606a;
  --analytics-border: #d0d7de; --analytics-danger: #b42318; --analytics-danger-bg: #fef3f2;
  --analytics-ok: #1a7f37; --analytics-warn: #9a6700;
  --analytics-primary: ${t.light}; --analytics-on-primary: ${t.onLight};
  --analytics-radius: 8px;
}
@media (prefers-color-scheme: dark) {
  :root {
    --analytics-bg: #121417; --analytics-surface: #1b1f24; --analytics-fg: #e6e8eb; --analytics-muted: #9aa4ae;
    --analytics-border: #30363d; --analytics-danger: #ff9b8f; --analytics-danger-bg: #2a1512;
    --analytics-ok: #57d364; --analytics-warn: #e3b341;
    --analytics-primary: ${t.dark}; --analytics-on-primary: ${t.onDark};
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--analytics-bg); color: var(--analytics-fg); font: 16px/1.5 var(--analytics-font); }
a { color: var(--analytics-primary); }
:focus-visible { outline: 3px solid var(--analytics-primary); outline-offset: 2px; }
analytics-console { display: flex; flex-direction: column; min-height: 100vh; }
.skip { position: absolute; left: 8px; top: -48px; padding: 8px 12px; background: var(--analytics-primary); color: var(--analytics-on-primary); border-radius: var(--analytics-radius); z-index: 10; }
.skip:focus { top: 8px; }
header.bar { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; padding: 10px 24px; border-bottom: 1px solid var(--analytics-border); background: var(--analytics-surface); }
header.bar .brand { display: flex; align-items: center; gap: 10px; font-weight: 600; font-size: 1.1rem; color: inherit; text-decoration: none; margin-right: auto; }
header.bar .brand img { height: 28px; width: auto; }
header.bar nav ul { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0; padding: 0; }
header.bar nav a { display: block; padding: 6px 10px; border-radius: var(--analytics-radius); color: inherit; text-decoration: none; }
header.bar nav a[aria-current="page"] { background: var(--analytics-bg); font-weight: 600; }
header.bar .who { display: flex; align-items: center; gap: 12px; color: var(--analytics-muted); font-size: 0.9rem; }
main { flex: 1; width: 100%; max-width: 960px; margin: 0 auto; padding: 24px; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 16px; }
h2 { font-size: 1.2rem; margin: 24px 0 8px; }
.card > h2:first-child { margin-top: 0; }
section.card { margin-top: 24px; }
p { margin: 0 0 12px; }
.muted { color: var(--analytics-muted); }
.card { background: var(--analytics-surface); border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); padding: 20px; margin: 0 0 16px; }
.narrow { max-width: 440px; margin: 8vh auto 0; }
form { display: grid; gap: 12px; }
label { font-weight: 600; display: grid; gap: 4px; }
.hint { font-weight: 400; font-size: 0.9rem; color: var(--analytics-muted); }
input, textarea, select { font: inherit; font-weight: 400; color: inherit; background: var(--analytics-bg); border: 1px solid var(--analytics-muted); border-radius: 6px; padding: 8px 10px; width: 100%; }
select { min-height: calc(1.5em + 18px); }
input[type="checkbox"], input[type="radio"] { width: auto; }
fieldset { border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); padding: 8px 16px 12px; margin: 0; min-width: 0; }
legend { font-weight: 600; padding: 0 4px; }
label.check { display: flex; gap: 10px; align-items: flex-start; font-weight: 400; padding: 6px 0; }
label.check input { margin-top: 5px; flex: none; }
label.inline { display: flex; gap: 8px; align-items: center; font-weight: 400; }
label.inline select { width: auto; max-width: 100%; }
.break { overflow-wrap: anywhere; }
/* Names are people's text: one without a space (200 characters of it) wraps instead of widening the page. */
h1, h2, h3, .crumbs li, ul.items li, dialog p { overflow-wrap: anywhere; }
/* A label in such a row is our word, not a person's: it keeps its letters together ("Name", not "Nam" over "e"). */
ul.items li label { overflow-wrap: normal; }
.row .grow { flex: 1 1 14rem; width: auto; min-width: 0; }
.reason { color: var(--analytics-danger); }
.row.spread { justify-content: space-between; }
ol.attempts { list-style: none; margin: 6px 0 4px; padding: 0 0 0 12px; border-left: 2px solid var(--analytics-border); display: grid; gap: 4px; }

code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
button, .button { font: inherit; font-weight: 600; cursor: pointer; border-radius: 6px; padding: 8px 14px; border: 1px solid var(--analytics-primary); background: var(--analytics-primary); color: var(--analytics-on-primary); text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: transparent; color: var(--analytics-primary); }
button.link { background: none; border: none; padding: 0; color: var(--analytics-primary); text-decoration: underline; font-weight: 400; }
button[disabled] { opacity: 0.6; cursor: progress; }
details summary { cursor: pointer; color: var(--analytics-primary); }
details[open] summary { margin-bottom: 12px; }
ul.items { list-style: none; margin: 0; padding: 0; border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); }
ul.items li { padding: 12px 16px; border-top: 1px solid var(--analytics-border); display: grid; gap: 2px; }
ul.items li:first-child { border-top: none; }
ul.items a { font-weight: 600; }
ul.items li.with-actions { grid-template-columns: 1fr auto; align-items: center; column-gap: 12px; }
ul.items li.with-actions > :not(button) { grid-column: 1; }
ul.items li.with-actions > button, ul.items li.with-actions > .actions { grid-column: 2; grid-row: 1 / span 2; }
ul.items li.with-actions > .actions { display: flex; gap: 8px; flex-wrap: wrap; justify-content: end; }
dialog { color: inherit; background: var(--analytics-bg); border: 1px solid var(--analytics-border); border-radius: var(--analytics-radius); box-shadow: 0 12px 40px rgb(0 0 0 / 0.25); width: min(440px, calc(100vw - 32px)); padding: 20px 24px; }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }
dialog h2 { margin: 0 0 8px; }
button.danger { background: var(--analytics-danger); border-color: var(--analytics-danger); color: var(--analytics-bg); }
button.danger.secondary { background: transparent; color: var(--analytics-danger); }
.badge { display: inline-block; font-size: 0.8rem; font-weight: 600; padding: 1px 8px; border-radius: 999px; border: 1px solid currentColor; }
.badge.active { color: var(--analytics-ok); } .badge.paused { color: var(--analytics-warn); } .badge.expired, .badge.revoked { color: var(--analytics-muted); } .badge.failed { color: var(--analytics-danger); }
.field { display: grid; gap: 4px; } .field .hint, .field p { margin: 0; }
ul.items li > .row { margin-top: 8px; gap: 8px; }
ul.items .runs { margin-top: 12px; padding-top: 8px; border-top: 1px dashed var(--analytics-border); } ul.items .runs h3 { font-size: 1rem; margin: 0 0 4px; } ul.items .runs ul { margin: 0; padding-left: 20px; } ul.items .runs li { display: list-item; padding: 2px 0; border: none; overflow-wrap: anywhere; }
.state { padding: 24px; text-align: center; color: var(--analytics-muted); border: 1px dashed var(--analytics-border); border-radius: var(--analytics-radius); }
.problem { border: 1px solid var(--analytics-danger); background: var(--analytics-danger-bg); border-radius: var(--analytics-radius); padding: 12px 16px; margin: 0 0 16px; }
.problem strong { color: var(--analytics-danger); display: block; }
.problem p { margin: 4px 0 0; }
.problem ul.field-errors { margin: 4px 0 0; padding-left: 1.25em; }
.field-error { color: var(--analytics-danger); font-weight: 400; font-size: 0.9rem; margin: 0; overflow-wrap: anywhere; }
.row > .field-error { flex-basis: 100%; }
input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: var(--analytics-danger); border-width: 2px; }
.notice { border-left: 4px solid var(--analytics-primary); padding: 8px 12px; background: var(--analytics-surface); margin: 0 0 16px; }
.row { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.spinner { display: inline-block; width: 1em; height: 1em; border: 2px solid var(--analytics-border); border-top-color: var(--analytics-primary); border-radius: 50%; animation: spin 0.8s linear infinite; vertical-align: -0.15em; margin-right: 8px; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
ul.items ol.attempts li { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; padding: 2px 0; border: none; font-size: 0.95rem; }
details.event pre { margin: 4px 0 0; padding: 8px 12px; background: var(--analytics-surface); border: 1px solid var(--analytics-border); border-radius: 6px; font: 0.85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
details.event[open] summary { margin-bottom: 0; }
ol.attempts details.answer { flex-basis: 100%; }
details.answer pre { margin: 4px 0 0; padding: 6px 10px; background: var(--analytics-surface); border: 1px solid var(--analytics-border); border-radius: 6px; font: 0.85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
form.recover { grid-template-columns: 1fr 1fr auto; align-items: end; }
ol.attempts details.headers { flex-basis: 100%; min-width: 0; }
.headers-title { margin: 4px 0 2px; font-weight: 600; font-size: 0.9rem; }
dl.headers { margin: 0 0 8px; display: grid; gap: 2px; font: 0.85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
dl.headers > div { display: grid; grid-template-columns: minmax(0, 14rem) minmax(0, 1fr); gap: 0 12px; }
dl.headers dt { color: var(--analytics-muted); overflow-wrap: anywhere; }
dl.headers dd { margin: 0; overflow-wrap: anywhere; }
dl.rate { margin: 0 0 8px; display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 12px; }
dl.rate dt { font-weight: 600; }
dl.rate dd { margin: 0; display: grid; gap: 2px; }
.webhook-actions { margin: 0 0 16px; gap: 8px; }
form.edit .field-error { color: var(--analytics-danger); font-weight: 400; font-size: 0.9rem; }
@media (max-width: 600px) {
  form.recover { grid-template-columns: 1fr; }
  dl.headers > div { grid-template-columns: 1fr; }
  header.bar { padding: 8px 16px; gap: 8px 12px; }
  header.bar nav { order: 3; flex: 1 1 100%; }
  header.bar nav a { padding: 6px 8px; }
  main { padding: 16px; }
  ul.items li.with-actions { grid-template-columns: 1fr; }
  ul.items li.with-actions > .actions { grid-column: 1; grid-row: auto; justify-content: start; margin-top: 8px; }
  .narrow { margin-top: 16px; }
}
`
}

/** Adopts the theme for `primaryColor` in the document (once; a second call replaces it). */
export const applyTheme = (primaryColor: string): void => {
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(css(primaryColor))
  document.adoptedStyleSheets = [...document.adoptedStyleSheets.filter((s) => !(s as { analytics?: boolean }).analytics), Object.assign(sheet, { analytics: true })]
}
