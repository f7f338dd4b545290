/**
 * `<analytics-comments>`: a report's comments on its screen, oldest first
 * (a thread reads as a conversation; replies indented under the comment they
 * answer), each by its author's name (the API's `author.name`, decision
 * 0024), a form to add one, **Reply** under each thread's first comment
 * (one level of replies, decision 0019), and the signed-in author's own
 * comments editable and deletable. What the policy allows decides what
 * shows: a member the policy refuses the list (403) sees no panel at all
 * rather than an error; one whose grant does not give `comment` (the
 * view's `actions`) sees no form and no Reply; one refused on adding
 * anyway (the grant just changed) is told so, once.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, LitElement, nothing, type TemplateResult } from "lit"
import { type ApiClient, type Problem, problemIn } from "../client/ApiClient.ts"
import { msg } from "../i18n/msg.ts"
import { Pager } from "./Pager.ts"
import { problemView } from "./States.ts"

/** A comment as the API shows it (`/v1/reports/{id}/comments`). */
export type CommentJson = Json<typeof Groups.Comments.CommentJson>

const when = (iso: string) => {
  const date = new Date(iso)
  return html`<time datetime=${iso}>${date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}</time>`
}

/** A report's comments. */
export class CommentsPanel extends LitElement {
  static override properties = {
    client: { attribute: false },
    reportId: { attribute: false },
    userId: { attribute: false },
    visuals: { attribute: false },
    refused: { state: true },
    mayAdd: { state: true },
    editing: { state: true },
    confirming: { state: true },
    problem: { state: true },
    sending: { state: true },
    mayComment: { attribute: false },
    replying: { state: true },
    announcement: { state: true }
  }

  declare client: ApiClient
  declare reportId: string
  /** The signed-in user: their comments are theirs to edit and delete. */
  declare userId: string | undefined
  /** The report's visuals' titles by id, to say which visual a comment is on. */
  declare visuals: ReadonlyMap<string, string>
  /** The policy refuses the list: no panel. */
  declare refused: boolean
  declare mayAdd: boolean
  declare editing: string | undefined
  declare confirming: string | undefined
  declare problem: Problem | undefined
  declare sending: boolean
  /** Whether the caller's grant gives `comment` (the report view's `actions`); undefined when not known, and the form shows. */
  declare mayComment: boolean | undefined
  /** The thread whose Reply form is open (its first comment's id). */
  declare replying: string | undefined
  /** What the polite live region says last: a comment or reply was posted. */
  declare announcement: string
  private pager: Pager<CommentJson> | undefined

  constructor() {
    super()
    this.refused = false
    this.mayAdd = true
    this.sending = false
    this.visuals = new Map()
    this.announcement = ""
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    super.connectedCallback()
    if (this.pager === undefined) {
      this.pager = new Pager((cursor) => this.client.list(`v1/reports/${encodeURIComponent(this.reportId)}/comments?limit=50`, cursor), () => {
        if (this.pager?.problem?.status === 403) this.refused = true
        this.requestUpdate()
      })
      void this.pager.more()
    }
  }

  private mine(comment: CommentJson): boolean {
    return comment.author.type === "user" && comment.author.id === this.userId && !comment.deleted
  }

  /** The author's name, "A member" when the directory no longer knows them. */
  private nameOf(comment: CommentJson): string {
    return comment.author.name ?? msg("comments.someone")
  }

  /** The author in words: their name, one's own marked so. */
  private authorName(comment: CommentJson): string {
    const name = this.nameOf(comment)
    return comment.author.type === "user" && comment.author.id === this.userId ? msg("comments.byYou", { name }) : name
  }

  /** May post at all: the grant gives `comment` (when known) and no post was refused. */
  private get posting(): boolean {
    return this.mayAdd && this.mayComment !== false
  }

  /** Says `text` in the polite live region; cleared first so the same words are said again. */
  private announce(text: string) {
    this.announcement = ""
    void this.updateComplete.then(() => (this.announcement = text))
  }

  private openReply(thread: CommentJson) {
    this.replying = thread.comment_id
    this.problem = undefined
    this.focusOn(thread, "form.reply textarea")
  }

  private closeReply(thread: CommentJson) {
    this.replying = undefined
    this.focusOn(thread, "button.reply")
  }

  /** Posts the form's text as a comment, or as a reply to `thread`. */
  private async post(event: SubmitEvent, thread?: CommentJson) {
    event.preventDefault()
    const field = (event.target as HTMLFormElement).elements.namedItem("text") as HTMLTextAreaElement
    if (field.value.trim() === "") return field.focus()
    this.sending = true
    this.problem = undefined
    try {
      const created = await this.client.post(
        `v1/reports/${encodeURIComponent(this.reportId)}/comments`,
        thread === undefined ? { text: field.value } : { text: field.value, parent_id: thread.comment_id }
      )
      this.pager!.items = [...this.pager!.items, created]
      if (thread === undefined) {
        field.value = ""
        this.announce(msg("comments.posted"))
      } else {
        this.closeReply(thread)
        this.announce(msg("comments.reply.posted", { name: this.nameOf(thread) }))
      }
    } catch (error) {
      const problem = problemIn(error)
      if (problem.status === 403 && problem.code !== "auth/csrf-failed") {
        this.mayAdd = false
        this.replying = undefined
      } else this.problem = problem
    } finally {
      this.sending = false
    }
  }

  private async save(event: SubmitEvent, comment: CommentJson) {
    event.preventDefault()
    const field = (event.target as HTMLFormElement).elements.namedItem("text") as HTMLTextAreaElement
    if (field.value.trim() === "") return field.focus()
    this.sending = true
    this.problem = undefined
    try {
      const updated = await this.client.patch(`v1/comments/${encodeURIComponent(comment.comment_id)}`, { text: field.value })
      this.replace(comment, updated)
      this.editing = undefined
      this.focusOn(comment, ".edit")
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.sending = false
    }
  }

  private async deleteComment(comment: CommentJson) {
    this.sending = true
    this.problem = undefined
    try {
      await this.client.delete(`v1/comments/${encodeURIComponent(comment.comment_id)}`)
      // One with replies stays as a tombstone, so its thread still reads; any other goes.
      const items = this.pager!.items
      const replies = items.some((c) => c.parent_id === comment.comment_id)
      // The last reply under a tombstone takes the tombstone with it, as the service does (decision 0019).
      const parent = items.find((c) => c.comment_id === comment.parent_id)
      const orphan = parent?.deleted === true && !items.some((c) => c.parent_id === parent.comment_id && c.comment_id !== comment.comment_id)
      if (replies) this.replace(comment, { ...comment, text: "", deleted: true })
      else this.pager!.items = items.filter((c) => c.comment_id !== comment.comment_id && !(orphan && c.comment_id === parent.comment_id))
      this.confirming = undefined
      void this.updateComplete.then(() => this.querySelector<HTMLElement>("#comment-text")?.focus())
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.sending = false
    }
  }

  private replace(comment: CommentJson, next: CommentJson) {
    this.pager!.items = this.pager!.items.map((c) => c.comment_id === comment.comment_id ? next : c)
  }

  private focusOn(comment: CommentJson, selector: string) {
    void this.updateComplete.then(() => this.querySelector<HTMLElement>(`[data-comment="${comment.comment_id}"] ${selector}`)?.focus())
  }

  private comment(comment: CommentJson, replies: ReadonlyArray<CommentJson>, first: boolean): TemplateResult {
    const mine = this.mine(comment)
    const canReply = first && !comment.deleted && this.posting && this.editing !== comment.comment_id
    const visual = comment.visual_id === null ? undefined : this.visuals.get(comment.visual_id) ?? comment.visual_id
    return html`<li data-comment=${comment.comment_id}>
      <p class="comment-meta">${comment.deleted ? nothing : html`<strong>${this.authorName(comment)}</strong>`}
        ${visual === undefined ? nothing : html`<span>${msg("comments.on", { visual })}</span>`}
        <span class="muted">${when(comment.created_at)}${comment.edited_at === null ? nothing : html` · ${msg("comments.edited")}`}</span></p>
      ${
      comment.deleted
        ? html`<p class="muted comment-text">${msg("comments.deleted")}</p>`
        : this.editing === comment.comment_id
        ? html`<form @submit=${(e: SubmitEvent) => void this.save(e, comment)}>
            <label>${msg("comments.edit.label")}<textarea name="text" rows="3" maxlength="4000" .value=${comment.text}></textarea></label>
            <div class="row"><button type="submit" ?disabled=${this.sending}>${msg("comments.save")}</button>
              <button type="button" class="secondary" @click=${() => {
          this.editing = undefined
          this.focusOn(comment, ".edit")
        }}>${msg("comments.cancel")}</button></div>
          </form>`
        : html`<p class="comment-text" id=${`comment-${comment.comment_id}`}>${comment.text}</p>`
    }
      ${
      (mine || canReply) && this.editing !== comment.comment_id
        ? this.confirming === comment.comment_id
          ? html`<div class="row" role="group" aria-label=${msg("comments.delete.confirm")}><span>${msg("comments.delete.confirm")}</span>
              <button type="button" class="danger" ?disabled=${this.sending} @click=${() => void this.deleteComment(comment)}>${msg("comments.delete.yes")}</button>
              <button type="button" class="secondary" @click=${() => {
            this.confirming = undefined
            this.focusOn(comment, ".delete")
          }}>${msg("comments.delete.no")}</button></div>`
          : html`<div class="row">${
            canReply
              ? html`<button type="button" class="link reply" aria-expanded=${this.replying === comment.comment_id ? "true" : "false"}
                aria-label=${msg("comments.reply.to", { name: this.nameOf(comment) })} @click=${() => this.openReply(comment)}>${msg("comments.reply")}</button>`
              : nothing
          }${
            mine
              ? html`<button type="button" class="link edit" aria-describedby=${`comment-${comment.comment_id}`} @click=${() => {
                this.editing = comment.comment_id
                this.focusOn(comment, "textarea")
              }}>${msg("comments.edit")}</button>
              <button type="button" class="link delete" aria-describedby=${`comment-${comment.comment_id}`} @click=${() => {
                this.confirming = comment.comment_id
                this.focusOn(comment, "button.danger")
              }}>${msg("comments.delete")}</button>`
              : nothing
          }</div>`
        : nothing
    }
      ${replies.length === 0 ? nothing : html`<ul class="replies">${replies.map((r) => this.comment(r, [], false))}</ul>`}
      ${canReply && this.replying === comment.comment_id ? this.replyForm(comment) : nothing}
    </li>`
  }

  /** The inline form under a thread: focused when it opens; Escape or Cancel closes it and gives focus back to Reply. */
  private replyForm(thread: CommentJson): TemplateResult {
    const id = `reply-${thread.comment_id}`
    return html`<form class="reply" @submit=${(e: SubmitEvent) => void this.post(e, thread)} @keydown=${(e: KeyboardEvent) => {
      if (e.key !== "Escape") return
      e.preventDefault()
      e.stopPropagation()
      this.closeReply(thread)
    }}>
      <label for=${id}>${msg("comments.reply.label", { name: this.nameOf(thread) })}</label>
      <textarea id=${id} name="text" rows="2" maxlength="4000"></textarea>
      <div class="row"><button type="submit" ?disabled=${this.sending}>${msg("comments.reply.submit")}</button>
        <button type="button" class="secondary" @click=${() => this.closeReply(thread)}>${msg("comments.cancel")}</button></div>
    </form>`
  }

  override render() {
    const pager = this.pager
    if (pager === undefined || this.refused) return nothing
    // A comment posted here may come again on a later page: each once.
    const items = [...new Map(pager.items.map((c) => [c.comment_id, c] as const)).values()]
    const firsts = items.filter((c) => c.parent_id === null)
    const repliesOf = (id: string) => items.filter((c) => c.parent_id === id)
    return html`<section class="comments card" aria-labelledby="comments-title">
      <h2 id="comments-title">${msg("comments.title")}</h2>
      ${problemView(pager.problem, () => void pager.more())}
      ${pager.loaded && items.length === 0 ? html`<p class="muted">${msg("comments.empty")}</p>` : nothing}
      ${firsts.length === 0 ? nothing : html`<ul class="comments-list">${firsts.map((c) => this.comment(c, repliesOf(c.comment_id), true))}</ul>`}
      ${pager.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => void pager.more()}>${msg("comments.more")}</button></p>` : nothing}
      ${problemView(this.problem)}
      ${
      !pager.loaded || this.mayComment === false ? nothing : this.mayAdd
        ? html`<form class="comment-add" @submit=${(e: SubmitEvent) => void this.post(e)}>
            <label for="comment-text">${msg("comments.add.label")}</label>
            <textarea id="comment-text" name="text" rows="3" maxlength="4000"></textarea>
            <div><button type="submit" ?disabled=${this.sending}>${msg("comments.add.submit")}</button></div>
          </form>`
        : html`<p class="notice">${msg("comments.add.refused")}</p>`
    }
      <p class="visually-hidden" role="status">${this.announcement}</p>
    </section>`
  }
}

customElements.define("analytics-comments", CommentsPanel)
