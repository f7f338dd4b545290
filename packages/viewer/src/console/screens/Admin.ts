/**
 * What the admin screens (audit log, directory) share: the "not available
 * to you" state a member's deep link shows, names of people by id, a time
 * in the reader's words (a confirmation is `elements/Confirm.ts`).
 *
 * @since 0.1.0
 */
import { html, type TemplateResult } from "lit"
import type { ApiClient } from "../../client/ApiClient.ts"
import { msg } from "../../i18n/msg.ts"

/** A screen for tenant admins, opened by someone else: said in words, with the way back. */
export const notAvailable = (): TemplateResult => html`<h1>${msg("admin.notAvailable.title")}</h1>
  <div class="state"><p>${msg("admin.notAvailable.text")}</p><p><a href="./">${msg("admin.notAvailable.back")}</a></p></div>`

/** The tenant's users' names by id (the first 500; ids stand for the rest). */
export const peopleNames = async (client: ApiClient): Promise<Map<string, string>> => {
  const names = new Map<string, string>()
  try {
    const page = await client.list("v1/users?limit=500")
    for (const u of page.data) names.set(u.user_id, u.name === "" ? u.email : u.name)
  } catch {
    // The ids stand for them.
  }
  return names
}

/** A moment (ISO 8601) in the reader's locale, date and time. */
export const timeWords = (iso: string): string =>
  new Date(iso).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })

let styled = false

/**
 * The admin screens' few styles, adopted once when their chunk first runs
 * (a constructed stylesheet, as the theme's: the policy allows no inline
 * style, and the first screen's bundle stays without them).
 */
export const adoptAdminStyles = (): void => {
  if (styled) return
  styled = true
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(`
select { width: 100%; font: inherit; color: inherit; background: var(--analytics-bg); border: 1px solid var(--analytics-muted); border-radius: 6px; padding: 8px 10px; }
form.filters { grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); align-items: end; margin-bottom: 20px; }
form.filters > .row { grid-column: 1 / -1; }
/* The action's choices read "changed the sharing of (grant.updated)" (about 380 px): a line of its own, or beside the others when there is room. */
form.filters > label:first-child { grid-column: 1 / -1; }
@media (min-width: 960px) { form.filters { grid-template-columns: 5fr 2fr 2fr 2fr; } form.filters > label:first-child { grid-column: auto; } }
ul.tabs-nav { list-style: none; padding: 0; margin: 0 0 20px; border-bottom: 1px solid var(--analytics-border); gap: 4px 20px; }
ul.tabs-nav a { display: inline-block; padding: 8px 2px; text-decoration: none; border-bottom: 3px solid transparent; }
ul.tabs-nav a[aria-current="page"] { border-bottom-color: var(--analytics-primary); font-weight: 600; color: var(--analytics-fg); }
pre.audit-detail { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; background: var(--analytics-surface); padding: 8px 12px; border-radius: 6px; margin: 0; }
ul.items li .row { margin-top: 6px; }
ul.items li .row label { font-weight: 400; display: flex; gap: 8px; align-items: center; }
ul.items li .row select { width: auto; }
.secret input.mono, input.mono { font-family: ui-monospace, monospace; }
.stack { display: grid; gap: 12px; margin-top: 8px; }
form .row label, form.row label { flex: 1 1 200px; }
form.row { align-items: end; margin-bottom: 20px; }
form.row label { max-width: 360px; }
.stack form.row { margin-bottom: 0; }
label input, label select { font-weight: 400; }
form .row button { align-self: end; }
`)
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
}
