/**
 * `<analytics-share-dialog subject-type="report" subject-id="…">`: Share,
 * then Manage, then Revoke (docs/guides/console.md). A modal `<dialog>`
 * (focus stays inside, Escape closes, focus goes back to what opened it)
 * with two tabs:
 *
 * - **Share**: who (people, teams and executive roles through the
 *   directory's picker, several at once as removable chips, typed e-mail
 *   addresses invited, one grant each, with those who already have access
 *   listed under it; anyone with a link, with an optional password and
 *   expiry; an embed of a report, with filters locked to values picked from
 *   theirs, who views it (their e-mail, the attributes row-level security
 *   reads) and what they would see, asked live of
 *   `POST /v1/sharing/embed-previews` with a warning and its fix when
 *   they would see nothing), what they may do (the
 *   API's actions, in words), a watermark (for a link, with the viewer's
 *   e-mail it tiles, else it names the link), a link's or an embed's label.
 *   A new link's URL, or an embed's snippet, is shown once with a copy
 *   button; an embed's, live beneath it (`<analytics-embed-preview>`: what
 *   the other site's page will show).
 * - **Manage** (ShareManage.ts): every grant of the subject with its state, label, maker and
 *   (a link's or an embed's) last opening in words; copy a
 *   link's URL again (decision 0014, "Links copied again"); edit (actions,
 *   expiry, watermark, a link's password, a label), pause and resume a link, revoke
 *   behind a confirmation naming who loses access.
 *
 * Methods `show()` and `close()`; events `analytics-grant-created`,
 * `analytics-grant-updated` and `analytics-grant-revoked` with
 * `{ grant }`, bubbling out of shadow roots. Calls go through `client`
 * when the console hands one, else to `base-url` (default: the
 * `<meta name="analytics-base-url">`, else the page's base) with the
 * session's cookie and CSRF token.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { css, html, LitElement, nothing, type TemplateResult } from "lit"
import { type ApiClient, type Problem, problemIn } from "../client/ApiClient.ts"
import type { PayloadAt } from "../client/ApiPaths.ts"
import { type MessageKey, msg } from "../i18n/msg.ts"
import {
  type Action,
  actions as allActions,
  actionsWords,
  type Audience,
  audienceActions,
  endOfDay,
  type Grant,
  labelMax,
  rememberName,
  today,
  whoWords
} from "./Grants.ts"
import { detailAsField, fieldWords } from "../client/ProblemWords.ts"
import { clearFields, showRefusal } from "../console/FormErrors.ts"
import { ModalController, modalStyles, noticeLine, problemBox } from "./Modal.ts"
import { ShareManage, shareManageStyles } from "./ShareManage.ts"
import "./EmbedPreviewFrame.ts"

/** Someone the picker offers (`GET /v1/directory/people`), or an address to invite. */
type Person = Json<typeof Groups.Sharing.PersonJson> & {
  /** An address that is no one in the directory yet: the grant invites it. */
  readonly invite?: boolean
}

/** A recipient picked for the next Share (a chip), with why sharing with them last failed. */
interface Chip extends Person {
  readonly reason?: string
}

/** A chip's key: one grant per principal (an address for an invitation). */
const chipKey = (p: Person): string => `${p.type}:${p.invite === true ? (p.email ?? p.id).toLowerCase() : p.id}`

/** A chip's name with its address, as the grant's row names it. */
const fullName = (p: Person): string => p.email === null || p.email === p.name ? p.name : `${p.name} (${p.email})`

/** Names in a list, in the reader's words ("A, B and C"). */
const listWords = (names: ReadonlyArray<string>): string => new Intl.ListFormat(undefined, { type: "conjunction" }).format(names)

/** Why a chip's grant was refused, in words: gone from the directory, what a field says, else the problem itself. */
const reasonWords = (problem: Problem): string => {
  const named = detailAsField(problem.detail)
  const errors = [...(problem.errors ?? []), ...(named === undefined ? [] : [named])]
  if (errors.some((e) => e.path.at(-1) === "principal_id")) return msg("share.chip.gone")
  if (errors.length > 0) return errors.map((e) => fieldWords(e.message)).join(" ")
  return problem.detail === "" ? problem.title : problem.detail
}

/** How many of the subject's people with access the Share tab lists before "and N more". */
const accessShown = 5

type Scalar = string | number | boolean

/** What an embed would show (`POST /v1/sharing/embed-previews`): rows per visual, warnings, what to lock and what to give. */
type EmbedPreview = Json<typeof Groups.Sharing.EmbedPreviewJson>

type Kind = Audience

/** A grant as the dialog asks for it (`POST /v1/sharing/grants`). */
type GrantRequest = PayloadAt<"POST", "v1/sharing/grants">

/** What every grant of one Share has alike: the subject, the actions, the watermark and the expiry. */
type GrantCommon = Pick<GrantRequest, "subject_type" | "subject_id" | "actions" | "watermark" | "expires_at">
type Tab = "share" | "manage"

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** How long typing pauses before the picker asks. */
const debounceMillis = 250

/** The share dialog. */
export class AnalyticsShareDialog extends LitElement {
  static override properties = {
    subjectType: { attribute: "subject-type" },
    subjectId: { attribute: "subject-id" },
    subjectName: { attribute: "subject-name" },
    baseUrl: { attribute: "base-url" },
    open: { type: Boolean, reflect: true },
    client: { attribute: false },
    tab: { state: true },
    kind: { state: true },
    query: { state: true },
    people: { state: true },
    peopleMore: { state: true },
    searching: { state: true },
    activeOption: { state: true },
    chosen: { state: true },
    shareNotice: { state: true },
    chosenActions: { state: true },
    watermark: { state: true },
    recipientInvalid: { state: true },
    embedPreview: { state: true },
    previewProblem: { state: true },
    previewing: { state: true },
    locked: { state: true },
    viewerAttributes: { state: true },
    busy: { state: true },
    problem: { state: true },
    invalid: { state: true },
    created: { state: true },
    copied: { state: true }
  }

  static override styles = [modalStyles, css`
    :host { font: 16px/1.5 var(--analytics-font, system-ui, sans-serif); color: var(--analytics-fg, #1b1f24); }
    dialog { width: min(640px, calc(100vw - 24px)); }
    h3 { font-size: 1rem; margin: 0 0 8px; }
    [role="tablist"] { display: flex; gap: 4px; border-bottom: 1px solid var(--analytics-border, #d0d7de); margin-bottom: 16px; }
    [role="tab"] { background: none; border: none; border-bottom: 3px solid transparent; border-radius: 0; color: var(--analytics-muted, #57606a); padding: 8px 12px; font-weight: 600; }
    [role="tab"][aria-selected="true"] { color: var(--analytics-fg, #1b1f24); border-bottom-color: var(--analytics-primary, #2563eb); }
    .field { display: grid; gap: 4px; }
    input, textarea { font: inherit; color: inherit; background: var(--analytics-bg, #fff); border: 1px solid var(--analytics-muted, #57606a); border-radius: 6px; padding: 8px 10px; width: 100%; box-sizing: border-box; }
    input[aria-invalid="true"] { border-color: var(--analytics-danger, #b42318); border-width: 2px; }
    textarea { font-family: ui-monospace, monospace; font-size: 0.85rem; resize: vertical; }
    button.danger { background: var(--analytics-danger, #b42318); border-color: var(--analytics-danger, #b42318); color: var(--analytics-bg, #fff); }
    button.danger.secondary { background: transparent; color: var(--analytics-danger, #b42318); }
    .combo { position: relative; }
    [role="listbox"] { list-style: none; margin: 4px 0 0; padding: 4px; border: 1px solid var(--analytics-border, #d0d7de); border-radius: 6px; max-height: 220px; overflow: auto; background: var(--analytics-bg, #fff); }
    [role="option"] { padding: 6px 10px; border-radius: 4px; cursor: pointer; display: flex; justify-content: space-between; gap: 8px; flex-wrap: wrap; }
    [role="option"][aria-selected="true"], [role="option"]:hover { background: var(--analytics-surface, #f6f8fa); outline: 2px solid var(--analytics-primary, #2563eb); }
    .type { font-size: 0.85rem; color: var(--analytics-muted, #57606a); }
    ul.chips { list-style: none; margin: 0 0 6px; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
    ul.chips > li { display: inline-flex; align-items: center; gap: 4px; max-width: 100%; padding: 2px 2px 2px 10px; border: 1px solid var(--analytics-border, #d0d7de); border-radius: 999px; background: var(--analytics-surface, #f6f8fa); overflow-wrap: anywhere; }
    ul.chips > li.failed { border-color: var(--analytics-danger, #b42318); border-width: 2px; border-radius: 12px; flex-wrap: wrap; }
    ul.chips .reason { flex-basis: 100%; font-size: 0.85rem; color: var(--analytics-danger, #b42318); padding-right: 8px; }
    ul.chips button { background: transparent; border-color: transparent; color: var(--analytics-fg, #1b1f24); padding: 2px 8px; border-radius: 999px; line-height: 1.2; }
    .access { display: grid; gap: 6px; padding: 10px 14px; border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); }
    .access h3 { margin: 0; }
    .access ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 2px; font-size: 0.9rem; }
    .access li { display: flex; justify-content: space-between; gap: 4px 12px; flex-wrap: wrap; overflow-wrap: anywhere; }
    .access .row { justify-content: space-between; }
    .created { display: grid; gap: 8px; }
    .created input { font-family: ui-monospace, monospace; font-size: 0.9rem; }
    .grow { flex: 1; min-width: 12rem; }
  `, shareManageStyles, css`
    select { font: inherit; color: inherit; background: var(--analytics-bg, #fff); border: 1px solid var(--analytics-muted, #57606a); border-radius: 6px; padding: 8px 10px; width: 100%; box-sizing: border-box; }
    .preview { display: grid; gap: 8px; padding: 12px 16px; border: 1px solid var(--analytics-border, #d0d7de); border-radius: var(--analytics-radius, 8px); }
    .preview .warning { border-left: 4px solid var(--analytics-warn, #9a6700); padding: 8px 12px; background: var(--analytics-surface, #f6f8fa); overflow-wrap: anywhere; }
    ul.visuals { list-style: none; margin: 0; padding: 0; font-size: 0.9rem; display: grid; gap: 2px; }
    ul.visuals li { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 12px; overflow-wrap: anywhere; }
    ul.visuals .rows { color: var(--analytics-muted, #57606a); }
    ul.visuals .rows.hidden, ul.visuals .rows.no_rows { color: var(--analytics-danger, #b42318); font-weight: 600; }
    .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  `]

  declare subjectType: GrantRequest["subject_type"]
  declare subjectId: string
  declare subjectName: string | null
  declare baseUrl: string | null
  declare open: boolean
  declare client: ApiClient | undefined
  declare tab: Tab
  declare kind: Kind
  declare query: string
  declare people: ReadonlyArray<Person>
  declare peopleMore: boolean
  declare searching: boolean
  declare activeOption: number
  /** The recipients picked (chips), each shared with in its own grant. */
  declare chosen: ReadonlyArray<Chip>
  /** What the last Share of several did, when some failed (the failed chips stay). */
  declare shareNotice: string | undefined
  declare chosenActions: ReadonlyArray<Action>
  declare watermark: boolean
  declare recipientInvalid: boolean
  /** The embed's preview, asked again as its locked values and viewer change. */
  declare embedPreview: EmbedPreview | undefined
  declare previewProblem: Problem | undefined
  declare previewing: boolean
  /** Locked values chosen, by dimension. */
  declare locked: Readonly<Record<string, Scalar>>
  /** The viewer's attributes given ("Who views it"), `email` among them. */
  declare viewerAttributes: Readonly<Record<string, Scalar>>
  declare busy: boolean
  declare problem: Problem | undefined
  declare invalid: string | undefined
  declare created: Grant | undefined
  declare copied: string | undefined

  private searchTimer: ReturnType<typeof setTimeout> | undefined
  private previewTimer: ReturnType<typeof setTimeout> | undefined
  private previewTurn = 0
  private searchTurn = 0
  /** The dialog: focus in on the selected tab, back to what opened it on closing. */
  private readonly modal = new ModalController(this, {
    dialog: "dialog.share",
    focus: "[role=tab][aria-selected=true]",
    // The Share tab lists who has access: the grants Manage shows.
    opened: () => void this.manage.load(),
    closed: () => (clearTimeout(this.searchTimer), clearTimeout(this.previewTimer))
  })
  /** The Manage tab: the subject's grants (the Share tab lists who has access from them too). */
  private readonly manage = new ShareManage(this, {
    api: () => this.api,
    confirmIn: () => this.modal.dialog ?? this.renderRoot,
    fieldHost: () => this.fieldHost,
    changed: (event, grant) => this.emit(event, grant)
  })

  constructor() {
    super()
    this.subjectType = "report"
    this.subjectId = ""
    this.subjectName = null
    this.baseUrl = null
    this.open = false
    this.client = undefined
    this.reset()
  }

  /** Back to an empty Share tab. */
  private reset() {
    this.tab = "share"
    this.kind = "people"
    this.query = ""
    this.people = []
    this.peopleMore = false
    this.searching = false
    this.activeOption = -1
    this.chosen = []
    this.shareNotice = undefined
    this.chosenActions = ["view"]
    this.watermark = false
    this.recipientInvalid = false
    this.embedPreview = undefined
    this.previewProblem = undefined
    this.previewing = false
    this.locked = {}
    this.viewerAttributes = {}
    this.busy = false
    this.problem = undefined
    this.invalid = undefined
    this.created = undefined
    this.copied = undefined
  }

  /** Opens the dialog on the Share tab; focus returns to what had it when the dialog closes. */
  show(): void {
    this.reset()
    this.manage.stale()
    this.manage.clearNotice()
    this.modal.show()
  }

  /** Closes the dialog. */
  close(): void {
    this.modal.close()
  }

  private get api(): ApiClient {
    return this.modal.api
  }

  private emit(name: "created" | "updated" | "revoked", grant: Grant) {
    this.dispatchEvent(new CustomEvent(`analytics-grant-${name}`, { detail: { grant }, bubbles: true, composed: true }))
  }

  // ---- Share

  private chooseKind(kind: Kind) {
    this.kind = kind
    this.invalid = undefined
    if (kind === "embed" && this.embedPreview === undefined) this.askPreview(0)
  }

  /**
   * Asks what the embed would show with the values chosen, `wait` ms after
   * the last change; only the latest answer is kept. Of reports only: the
   * service previews those (decision 0014).
   */
  private askPreview(wait = debounceMillis) {
    if (this.subjectType !== "report") return
    clearTimeout(this.previewTimer)
    this.previewing = true
    this.previewTimer = setTimeout(() => void this.loadPreview(), wait)
  }

  private async loadPreview() {
    if (this.subjectType !== "report") return
    const turn = ++this.previewTurn
    const attributes = Object.fromEntries(Object.entries(this.viewerAttributes).filter(([, v]) => v !== ""))
    try {
      const preview = await this.api.post("v1/sharing/embed-previews", {
        subject_type: this.subjectType,
        subject_id: this.subjectId,
        params: this.locked,
        attributes
      })
      if (turn !== this.previewTurn) return
      this.embedPreview = preview
      this.previewProblem = undefined
    } catch (error) {
      if (turn !== this.previewTurn) return
      this.previewProblem = problemIn(error)
    } finally {
      if (turn === this.previewTurn) this.previewing = false
    }
  }

  private lock(dimension: string, options: ReadonlyArray<Scalar>, chosen: string) {
    const next: Record<string, Scalar> = { ...this.locked }
    const value = options.find((o) => String(o) === chosen)
    if (value === undefined) delete next[dimension]
    else next[dimension] = value
    this.locked = next
    this.askPreview()
  }

  private setViewerAttribute(name: string, value: Scalar | undefined) {
    const next: Record<string, Scalar> = { ...this.viewerAttributes }
    if (value === undefined || value === "") delete next[name]
    else next[name] = value
    this.viewerAttributes = next
    this.askPreview()
  }

  private onQuery(event: Event) {
    const input = event.target as HTMLInputElement
    // A comma ends an address typed or pasted: it becomes an invitation's chip.
    if (input.value.includes(",")) {
      const parts = input.value.split(",")
      const rest = parts.pop() ?? ""
      const refused = parts.map((part) => part.trim()).filter((part) => part !== "" && !this.addAddress(part))
      input.value = [...refused, rest].join(", ")
    }
    this.query = input.value
    clearTimeout(this.searchTimer)
    const q = this.query.trim()
    if (q === "") {
      this.people = []
      this.searching = false
      return
    }
    this.searching = true
    this.searchTimer = setTimeout(() => void this.search(q), debounceMillis)
  }

  private async search(q: string) {
    const turn = ++this.searchTurn
    try {
      const page = await this.api.get(`v1/directory/people?q=${encodeURIComponent(q)}&limit=8`)
      if (turn !== this.searchTurn) return
      const found: Array<Person> = [...page.data]
      const address = q.toLowerCase()
      if (emailPattern.test(q) && !found.some((p) => p.email?.toLowerCase() === address)) {
        found.push({ type: "user", id: q, name: q, email: q, invite: true })
      }
      this.people = found
      this.peopleMore = page.page.has_more
      this.activeOption = found.length > 0 ? 0 : -1
      this.problem = undefined
    } catch (error) {
      if (turn !== this.searchTurn) return
      this.problem = problemIn(error)
      this.people = []
    } finally {
      if (turn === this.searchTurn) this.searching = false
    }
  }

  private onQueryKey(event: KeyboardEvent) {
    const count = this.people.length
    if (event.key === "ArrowDown" && count > 0) {
      event.preventDefault()
      this.activeOption = (this.activeOption + 1) % count
    } else if (event.key === "ArrowUp" && count > 0) {
      event.preventDefault()
      this.activeOption = (this.activeOption - 1 + count) % count
    } else if (event.key === "Enter") {
      event.preventDefault()
      const person = this.people[this.activeOption]
      if (person !== undefined) this.choose(person)
      else if (this.query.trim() !== "" && !this.searching) this.addAddress(this.query.trim(), true)
    } else if (event.key === "Backspace" && (event.target as HTMLInputElement).value === "" && this.chosen.length > 0) {
      // In the empty field, Backspace takes back the last chip.
      event.preventDefault()
      this.chosen = this.chosen.slice(0, -1)
    } else if (event.key === "Escape" && count > 0) {
      // The first Escape closes the list; the next closes the dialog.
      event.preventDefault()
      this.people = []
    }
  }

  /** Adds `person` as a chip (once), empties the field for the next one; focus stays in it. */
  private choose(person: Person) {
    const key = chipKey(person)
    if (!this.chosen.some((c) => chipKey(c) === key)) this.chosen = [...this.chosen, person]
    clearTimeout(this.searchTimer)
    ++this.searchTurn
    this.searching = false
    this.people = []
    this.query = ""
    this.invalid = undefined
    if (person.invite !== true) rememberName(person.id, fullName(person))
    this.modal.focus("#person")
  }

  /**
   * An address typed (Enter or a comma): whom the directory offered for it,
   * else an invitation's chip. False, with the refusal shown when `tell`,
   * for what is no address.
   */
  private addAddress(text: string, tell = false): boolean {
    const address = text.toLowerCase()
    const known = this.people.find((p) => p.email?.toLowerCase() === address)
    if (known !== undefined) return (this.choose(known), true)
    if (!emailPattern.test(text)) {
      if (tell) this.refuse(msg("share.picker.notAddress", { q: text }), "#person")
      return false
    }
    this.choose({ type: "user", id: text, name: text, email: text, invite: true })
    return true
  }

  private removeChip(chip: Chip) {
    this.chosen = this.chosen.filter((c) => c !== chip)
    this.modal.focus("#person")
  }

  private toggleAction(action: Action, on: boolean) {
    const set = new Set(this.chosenActions)
    if (on) set.add(action)
    else set.delete(action)
    this.chosenActions = allActions.filter((a) => set.has(a))
  }

  private async create(event: Event) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const chosenActions = this.chosenActions.filter((a) => audienceActions(this.kind).includes(a))
    // An address still in the field is meant as a recipient too.
    if (this.kind === "people" && this.query.trim() !== "" && !this.addAddress(this.query.trim(), true)) return
    if (this.kind === "people" && this.chosen.length === 0) return this.refuse(msg("share.needWho"), "#person")
    if (chosenActions.length === 0) return this.refuse(msg("share.needAction"), "input[name=action]")
    const label = this.kind === "people" ? "" : String(data.get("label") ?? "").trim()
    if ([...label].length > labelMax) return this.refuse(msg("share.label.long"), "#label")
    const password = String(data.get("password") ?? "")
    if (this.kind === "link" && password !== "" && [...password].length < 8) return this.refuse(msg("share.passwordShort"), "#password")
    // A watermarked link's viewer: their address is what the watermark tiles (the API's `email` of a link).
    const recipient = this.kind === "link" && this.watermark ? String(data.get("recipient") ?? "").trim() : ""
    this.recipientInvalid = recipient !== "" && !emailPattern.test(recipient)
    if (this.recipientInvalid) return this.refuse(msg("share.recipient.invalid"), "#recipient")
    const expiry = String(data.get("expires") ?? "")
    const common: GrantCommon = {
      subject_type: this.subjectType,
      subject_id: this.subjectId,
      actions: chosenActions,
      watermark: this.watermark,
      ...(expiry === "" ? {} : { expires_at: endOfDay(expiry) })
    }
    if (this.kind === "people") return this.shareWithChips(form, common)
    const body: GrantRequest = {
      ...common,
      principal_type: this.kind,
      ...(this.kind === "link" && password !== "" ? { password } : {}),
      ...(recipient === "" ? {} : { email: recipient }),
      ...(label === "" ? {} : { label })
    }
    const email = this.kind === "embed" ? String(this.viewerAttributes.email ?? "").trim() : ""
    if (email !== "" && !emailPattern.test(email)) return this.refuse(msg("share.recipient.invalid"), "#viewer-email")
    const locked = this.kind === "embed" ? this.locked : {}
    const attributes = this.kind === "embed" ? this.viewerAttributes : {}
    this.busy = true
    this.problem = undefined
    this.invalid = undefined
    clearFields(form)
    try {
      let grant = await this.api.post("v1/sharing/grants", body)
      if (this.kind === "embed" && Object.keys(locked).length + Object.keys(attributes).length > 0) {
        const embed = await this.api.post(`v1/sharing/grants/${encodeURIComponent(grant.grant_id)}/embed-tokens`, { params: locked, attributes })
        grant = { ...grant, embed }
      }
      this.created = grant
      this.manage.stale()
      this.emit("created", grant)
      await this.updateComplete
      this.renderRoot.querySelector<HTMLElement>(".created-notice")?.focus()
    } catch (error) {
      this.busy = false
      // The fields the service names are marked in the form, focus on the first (else on the box).
      await showRefusal(this.fieldHost, form, problemIn(error), (problem) => (this.problem = problem), ".problem")
    } finally {
      this.busy = false
    }
  }

  /**
   * One grant per chip (`POST /v1/sharing/grants` each, with the same
   * actions, expiry and watermark). All shared: the created view says so.
   * Some refused: the shared chips go, the refused stay with their reason,
   * and the dialog says which is which.
   */
  private async shareWithChips(form: HTMLFormElement, common: GrantCommon) {
    const chips = this.chosen
    this.busy = true
    this.problem = undefined
    this.invalid = undefined
    this.shareNotice = undefined
    clearFields(form)
    const results = await Promise.all(chips.map(async (chip) => {
      // An invitation's chip holds the address as its id too (`chipKey`).
      const body: GrantRequest = { ...common, principal_type: chip.type, ...(chip.invite === true ? { email: chip.email ?? chip.id } : { principal_id: chip.id }) }
      try {
        return { chip, grant: await this.api.post("v1/sharing/grants", body) }
      } catch (error) {
        return { chip, problem: problemIn(error) }
      }
    }))
    this.busy = false
    const shared = results.flatMap((r) => r.grant === undefined ? [] : [r])
    for (const { grant } of shared) this.emit("created", grant)
    const failed = results.flatMap((r) => r.problem === undefined ? [] : [{ ...r.chip, reason: reasonWords(r.problem) }])
    const named = (which: ReadonlyArray<{ readonly chip: Chip }>, invite: boolean) => which.filter((r) => (r.chip.invite === true) === invite).map((r) => fullName(r.chip))
    const said = [
      named(shared, false).length > 0 ? msg("share.shared.some", { names: listWords(named(shared, false)) }) : "",
      named(shared, true).length > 0 ? msg("share.shared.invited", { names: listWords(named(shared, true)) }) : ""
    ].filter((t) => t !== "").join(" ")
    if (shared.length > 0) {
      this.manage.stale()
      void this.manage.fetch(false)
    }
    if (failed.length === 0) {
      this.created = shared.at(-1)!.grant
      this.shareNotice = said
      await this.updateComplete
      this.renderRoot.querySelector<HTMLElement>(".created-notice")?.focus()
      return
    }
    this.chosen = failed
    this.shareNotice = said === "" ? undefined : said
    this.problem = {
      status: 400,
      code: "client",
      title: msg("share.shared.failed", { names: listWords(failed.map(fullName)) }),
      detail: "",
      action: failed.map((c) => `${fullName(c)}: ${c.reason}`).join(" ")
    }
    await this.updateComplete
    this.renderRoot.querySelector<HTMLElement>(".problem")?.focus()
  }

  /** The dialog's shadow root, as what `showRefusal` draws and marks. */
  private get fieldHost() {
    const dialog = this
    return {
      get updateComplete() {
        return dialog.updateComplete
      },
      querySelector: <E extends Element = Element>(selector: string) => dialog.renderRoot.querySelector<E>(selector)
    }
  }

  /** Typing again in the viewer's e-mail takes back its refusal. */
  private onRecipient() {
    if (!this.recipientInvalid) return
    this.recipientInvalid = false
    this.invalid = undefined
  }

  private refuse(text: string, field: string) {
    this.invalid = text
    this.modal.focus(field)
  }

  private async copy(text: string, field: string) {
    try {
      await navigator.clipboard.writeText(text)
      this.copied = msg("share.copied")
    } catch {
      this.renderRoot.querySelector<HTMLInputElement | HTMLTextAreaElement>(field)?.select()
      this.copied = msg("share.copy.failed")
    }
  }

  private shareAgain() {
    const tab = this.tab
    this.reset()
    this.tab = tab
    this.modal.focus("input[name=kind]:checked")
  }

  private selectTab(tab: Tab, focus = false) {
    // A new link's URL is shown once: back on Share, the form is empty again.
    if (tab === "share" && this.tab !== "share" && this.created !== undefined) this.reset()
    this.tab = tab
    this.manage.clearNotice()
    if (tab === "manage" && !this.manage.loaded) void this.manage.load()
    if (focus) this.modal.focus(`#tab-${tab}`)
  }

  private onTabKey(event: KeyboardEvent) {
    if (event.key === "ArrowRight" || event.key === "ArrowLeft" || event.key === "Home" || event.key === "End") {
      event.preventDefault()
      const next: Tab = event.key === "Home" ? "share" : event.key === "End" ? "manage" : this.tab === "share" ? "manage" : "share"
      this.selectTab(next, true)
    }
  }

  // ---- Rendering

  override render() {
    const name = this.subjectName
    return html`<dialog class="share" aria-labelledby="share-title" @close=${this.modal.closed}>
      ${this.open ? html`<div class="frame">
        <header>
          <h2 id="share-title">${name === null || name === "" ? msg("share.title.default") : msg("share.title", { name })}</h2>
          <button type="button" class="close" aria-label=${msg("share.close")} @click=${() => this.close()}>✕</button>
        </header>
        <div role="tablist" aria-label=${msg("share.tabs")} @keydown=${this.onTabKey}>
          ${this.tabButton("share", msg("share.tab.share"))}
          ${this.tabButton("manage", msg("share.tab.manage"))}
        </div>
        <div role="tabpanel" id="panel-${this.tab}" aria-labelledby="tab-${this.tab}">
          ${this.tab === "share" ? this.renderShare() : this.manage.render()}
        </div>
      </div>` : nothing}
    </dialog>`
  }

  private tabButton(tab: Tab, label: string) {
    const selected = this.tab === tab
    return html`<button type="button" role="tab" id="tab-${tab}" aria-selected=${selected ? "true" : "false"} aria-controls="panel-${tab}"
      tabindex=${selected ? 0 : -1} @click=${() => this.selectTab(tab)}>${label}</button>`
  }

  private renderShare(): TemplateResult {
    if (this.created !== undefined) return this.renderCreated(this.created)
    const kind = this.kind
    return html`<form @submit=${this.create} novalidate>
      ${noticeLine(this.shareNotice, "share-notice")}
      ${problemBox(this.problem)}
      <fieldset>
        <legend>${msg("share.who")}</legend>
        ${(["people", "link", "embed"] as const).map((k) => html`<label class="check">
          <input type="radio" name="kind" value=${k} .checked=${kind === k} @change=${() => this.chooseKind(k)}>
          ${msg(`share.kind.${k}` as MessageKey)}
        </label>`)}
      </fieldset>
      ${kind === "people" ? html`${this.renderPicker()}${this.renderAccess()}` : html`<div class="field"><label for="label">${msg("share.label")}</label>
        <input id="label" name="label" data-field="label" type="text" autocomplete="off" maxlength=${labelMax} aria-describedby="label-hint">
        <p class="hint" id="label-hint">${msg("share.label.hint", { kind: msg(kind === "link" ? "share.label.kind.link" : "share.label.kind.embed") })}</p>
      </div>`}
      ${kind === "link" ? html`<div class="field"><label for="password">${msg("share.password")}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" aria-describedby="password-hint">
        <p class="hint" id="password-hint">${msg("share.password.hint")}</p>
      </div>` : nothing}
      ${kind === "embed" ? this.renderEmbed() : nothing}
      <div class="field"><label for="expires">${msg("share.expiry")}</label>
        <input id="expires" name="expires" data-field="expires_at" type="date" min=${today()} aria-describedby="expires-hint">
        <p class="hint" id="expires-hint">${msg("share.expiry.hint")}</p>
      </div>
      <fieldset>
        <legend>${msg("share.actions")}</legend>
        ${audienceActions(kind).map((a) => html`<label class="check">
          <input type="checkbox" name="action" value=${a} .checked=${this.chosenActions.includes(a)}
            @change=${(e: Event) => this.toggleAction(a, (e.target as HTMLInputElement).checked)}>
          ${msg(`share.action.${a}` as MessageKey)}
        </label>`)}
      </fieldset>
      <label class="check"><input type="checkbox" name="watermark" .checked=${this.watermark}
        @change=${(e: Event) => (this.watermark = (e.target as HTMLInputElement).checked, this.recipientInvalid = false)}>${msg("share.watermark")}</label>
      ${kind === "link" && this.watermark ? html`<div class="field"><label for="recipient">${msg("share.recipient")}</label>
        <input id="recipient" name="recipient" data-field="email" type="email" autocomplete="off" spellcheck="false" aria-describedby="recipient-hint"
          aria-invalid=${this.recipientInvalid ? "true" : "false"} @input=${this.onRecipient}>
        <p class="hint" id="recipient-hint">${msg("share.recipient.hint")}</p>
      </div>` : nothing}
      ${this.invalid === undefined ? nothing : html`<p class="problem" role="alert"><strong>${this.invalid}</strong></p>`}
      <div class="row"><button type="submit" ?disabled=${this.busy}>${this.busy ? msg("share.creating") : msg("share.create")}</button></div>
    </form>`
  }

  /** An embed of a report: its locked filters picked from their values, who views it, and what they would see. */
  private renderEmbed(): TemplateResult | typeof nothing {
    if (this.subjectType !== "report") return nothing
    const preview = this.embedPreview
    const choices = preview?.filters.filter((f) => f.kind === "choice") ?? []
    const ranges = preview?.filters.filter((f) => f.kind === "range") ?? []
    const attributes = (preview?.attributes ?? []).filter((a) => a.name !== "email")
    const value = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement).value
    return html`
      ${choices.length === 0 && ranges.length === 0 ? nothing : html`<fieldset>
        <legend>${msg("share.locked")}</legend>
        <p class="hint">${msg("share.locked.hint")}</p>
        ${choices.map((f, i) => html`<div class="field"><label for="locked-${i}">${f.title}</label>
          <select id="locked-${i}" @change=${(e: Event) => this.lock(f.dimension, f.options, value(e))}>
            <option value="" ?selected=${this.locked[f.dimension] === undefined}>${msg("share.locked.none")}</option>
            ${f.options.map((o) => html`<option value=${String(o)} ?selected=${this.locked[f.dimension] === o}>${String(o)}</option>`)}
          </select></div>`)}
        ${ranges.map((f) => html`<p class="hint">${msg("share.locked.range", { title: f.title })}</p>`)}
      </fieldset>`}
      <fieldset>
        <legend>${msg("share.viewer")}</legend>
        <p class="hint">${msg("share.viewer.hint")}</p>
        <div class="field"><label for="viewer-email">${msg("share.viewer.email")}</label>
          <input id="viewer-email" type="email" autocomplete="off" spellcheck="false" aria-describedby="viewer-email-hint"
            .value=${String(this.viewerAttributes.email ?? "")} @input=${(e: Event) => this.setViewerAttribute("email", value(e).trim())}>
          <p class="hint" id="viewer-email-hint">${msg("share.viewer.email.hint")}</p>
        </div>
        ${attributes.map((a, i) => html`<div class="field"><label for="attribute-${i}">${msg("share.viewer.attribute", { title: a.title, name: a.name })}</label>
          ${a.options.length > 0 ? html`<select id="attribute-${i}" @change=${(e: Event) => this.setViewerAttribute(a.name, a.options.find((o) => String(o) === value(e)))}>
            <option value="" ?selected=${this.viewerAttributes[a.name] === undefined}>${msg("share.viewer.attribute.none")}</option>
            ${a.options.map((o) => html`<option value=${String(o)} ?selected=${this.viewerAttributes[a.name] === o}>${String(o)}</option>`)}
          </select>` : html`<input id="attribute-${i}" type="text" autocomplete="off" .value=${String(this.viewerAttributes[a.name] ?? "")}
            @input=${(e: Event) => this.setViewerAttribute(a.name, value(e).trim())}>`}
        </div>`)}
      </fieldset>
      ${this.renderPreview(preview)}`
  }

  /** What the embed's viewer would see: a warning with its fix when a visual shows nothing, each visual's rows. */
  private renderPreview(preview: EmbedPreview | undefined): TemplateResult {
    const showing = preview?.visuals.filter((v) => v.state === "rows").length ?? 0
    const total = preview?.visuals.length ?? 0
    const summary = this.previewing || preview === undefined
      ? msg("share.preview.checking")
      : showing === total ? msg("share.preview.all", { count: total }) : msg("share.preview.some", { count: showing, total })
    return html`<section class="preview" aria-labelledby="preview-title">
      <h3 id="preview-title">${msg("share.preview")}</h3>
      ${problemBox(this.previewProblem, "preview-problem")}
      <div role="status">
        <p class="hint">${summary}</p>
        ${(preview?.warnings ?? []).map((w) => html`<p class="warning"><strong>${msg("share.preview.warning")}</strong> ${w.detail}.</p>`)}
      </div>
      ${preview === undefined ? nothing : html`<ul class="visuals" aria-label=${msg("share.preview.visuals")}>${preview.visuals.map((v) => html`<li>
        <span>${v.title ?? v.visual_id}</span>
        <span class="rows ${v.state}">${v.state === "rows"
          ? msg(v.rows === 1 ? "share.preview.row" : "share.preview.rows", { count: v.rows })
          : msg(`share.preview.state.${v.state}` as MessageKey)}</span>
      </li>`)}</ul>`}
    </section>`
  }

  private renderPicker(): TemplateResult {
    const chips = this.chosen
    const people = this.people
    const expanded = people.length > 0
    const q = this.query.trim()
    const status = this.searching
      ? msg("share.picker.searching")
      : q === "" ? "" : people.length === 0 ? msg("share.picker.none", { q }) : people.length === 1 ? msg("share.picker.one") : msg("share.picker.count", { count: people.length })
    return html`<div class="combo">
      <label for="person">${msg("share.picker.label")}</label>
      ${chips.length === 0 ? nothing : html`<ul class="chips" aria-label=${msg("share.chips")}>${chips.map((c, i) => html`<li class=${c.reason === undefined ? "" : "failed"}>
        <span>${fullName(c)} <span class="type">· ${c.invite === true ? msg("share.chip.invite") : msg(`share.type.${c.type}` as MessageKey)}</span></span>
        <button type="button" aria-label=${msg("share.chip.remove", { name: c.name })} aria-describedby=${c.reason === undefined ? nothing : `chip-reason-${i}`}
          @click=${() => this.removeChip(c)}>✕</button>
        ${c.reason === undefined ? nothing : html`<span class="reason" id="chip-reason-${i}">${msg("share.chip.failed", { reason: c.reason })}</span>`}
      </li>`)}</ul>`}
      <input id="person" data-field="principal_id" type="text" role="combobox" autocomplete="off" aria-autocomplete="list" aria-expanded=${expanded ? "true" : "false"}
        aria-controls="people" aria-describedby="person-hint person-status" .value=${this.query}
        aria-activedescendant=${expanded && this.activeOption >= 0 ? `person-${this.activeOption}` : nothing}
        @input=${this.onQuery} @keydown=${this.onQueryKey}>
      <p class="hint" id="person-hint">${msg("share.picker.hint")}</p>
      <p class="hint" id="person-status" role="status">${status}${this.peopleMore && !this.searching && q !== "" ? ` ${msg("share.picker.more")}` : ""}</p>
      ${expanded ? html`<ul role="listbox" id="people" aria-label=${msg("share.picker.label")}>${
        people.map((p, i) => html`<li role="option" id="person-${i}" aria-selected=${i === this.activeOption ? "true" : "false"}
          @mousedown=${(e: Event) => e.preventDefault()} @click=${() => this.choose(p)}>
          <span>${p.name}${p.email === null || p.email === p.name ? "" : ` (${p.email})`}</span>
          <span class="type">${msg(`share.type.${p.type}` as MessageKey)}</span>
        </li>`)
      }</ul>` : nothing}
    </div>`
  }

  /** Who already has access (the subject's active user, team and role grants, as Manage loads them), with the way to Manage. */
  private renderAccess(): TemplateResult {
    const people = this.manage.grants.filter((g) => g.state === "active" && g.principal_type !== "link" && g.principal_type !== "embed")
    const shown = people.slice(0, accessShown)
    return html`<section class="access" aria-labelledby="access-title">
      <h3 id="access-title">${msg("share.access")}</h3>
      ${!this.manage.loaded ? html`<p class="hint">${msg("app.loading")}</p>`
        : this.manage.problem !== undefined ? html`<p class="hint">${this.manage.problem.title}</p>`
        : people.length === 0 ? html`<p class="hint">${msg("share.access.none")}</p>`
        : html`<ul aria-labelledby="access-title">${shown.map((g) => html`<li><span>${whoWords(g)}</span><span class="type">${actionsWords(g)}</span></li>`)}</ul>
          ${people.length > shown.length ? html`<p class="hint">${msg("share.access.more", { count: people.length - shown.length })}</p>` : nothing}`}
      <div class="row"><button type="button" class="secondary" @click=${() => this.selectTab("manage", true)}>${msg("share.access.manage")}</button></div>
    </section>`
  }

  private renderCreated(grant: Grant): TemplateResult {
    const link = grant.principal_type === "link" ? grant.link_url : null
    const snippet = grant.principal_type === "embed" ? grant.embed?.iframe ?? null : null
    const text = link !== null
      ? msg("share.created.link")
      : this.shareNotice !== undefined && snippet === null
      ? this.shareNotice
      : snippet !== null
      ? msg("share.created.embed")
      : grant.principal_id === null
      ? msg("share.created.invited", { name: grant.email ?? "" })
      : msg("share.created.user", { name: whoWords(grant) })
    return html`<div class="created">
      <p class="notice created-notice" role="status" tabindex="-1">${text}</p>
      ${link === null ? nothing : html`<label for="created-link">${msg("share.link.label")}</label>
        <div class="row"><input id="created-link" class="grow" readonly .value=${link}>
        <button type="button" @click=${() => void this.copy(link, "#created-link")}>${msg("share.copy")}</button></div>`}
      ${snippet === null ? nothing : html`<label for="created-snippet">${msg("share.embed.label")}</label>
        <textarea id="created-snippet" readonly rows="4" aria-describedby="snippet-hint" .value=${snippet}></textarea>
        <p class="hint" id="snippet-hint">${msg("share.embed.hint", { id: grant.grant_id })}</p>
        <div class="row"><button type="button" @click=${() => void this.copy(snippet, "#created-snippet")}>${msg("share.copy")}</button></div>`}
      ${snippet === null ? nothing : html`<analytics-embed-preview src=${grant.embed?.embed_url ?? ""}
        frame-title=${msg("share.embed.preview.frame", { name: this.subjectName ?? grant.subject_id })}></analytics-embed-preview>`}
      ${this.copied === undefined ? nothing : html`<p class="hint" role="status">${this.copied}</p>`}
      <div class="row"><button type="button" class="secondary" @click=${this.shareAgain}>${msg("share.another")}</button>
        <button type="button" class="secondary" @click=${() => this.selectTab("manage", true)}>${msg("share.tab.manage")}</button></div>
    </div>`
  }
}

if (customElements.get("analytics-share-dialog") === undefined) customElements.define("analytics-share-dialog", AnalyticsShareDialog)
