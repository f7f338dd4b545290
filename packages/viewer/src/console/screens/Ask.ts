/**
 * Ask (`/w/{workspace_id}/ask`): a question in words about one of the
 * workspace's datasets, answered by `POST /v1/ai/ask` as server-sent events
 * (read with fetch: `client/Sse.ts`). The answer's words appear as they
 * arrive, then its chart (the viewer's lazy Vega chunk) and its rows as a
 * table. Refusals in words: the AI question limit (429), an answerer that
 * is not there (503).
 *
 * @since 0.1.0
 */
import { html, nothing } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { featureOn } from "../../client/Boot.ts"
import { postForEvents, type ServerEvent } from "../../client/Sse.ts"
import type { TableData } from "../../Data.ts"
import { msg } from "../../i18n/msg.ts"
import { adoptDataStyles } from "../../theme/DataStyles.ts"
import { dataTable } from "../../VisualCard.ts"
import "../../VegaChart.ts"
import { type AnswerColumn, answerSpec, type SuggestedVisual } from "../AnswerChart.ts"
import { crumbs } from "../Crumbs.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"

interface DatasetItem {
  readonly dataset_id: string
  readonly name: string
}

interface Result {
  readonly columns: ReadonlyArray<AnswerColumn>
  readonly data: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly row_count: number
}

interface Answer {
  readonly status: "answered" | "cannot_answer" | "query_refused"
  readonly text: string
  readonly result: Result | null
  readonly visual: SuggestedVisual | null
}

/** An answer's problem in the words of asking. */
const askProblem = (problem: Problem): Problem => {
  if (problem.code === "rate-limit/ai-questions-exceeded") return { ...problem, title: msg("ask.limited") }
  if (problem.status === 503) return { ...problem, title: msg("ask.unavailable"), action: msg("ask.unavailable.action") }
  return problem
}

const asTable = (result: Result): TableData => ({
  columns: result.columns.map((c) => ({ title: c.title ?? c.name, numeric: c.kind === "measure" })),
  cells: result.data.slice(0, 200).map((row) => result.columns.map((c) => {
    const v = row[c.name]
    return v === null || v === undefined ? "" : typeof v === "number" ? v.toLocaleString() : String(v)
  })),
  rows: result.row_count
})

/** The Ask screen. */
export class AskScreen extends Screen {
  static override properties = { ...Screen.properties, asking: { state: true }, text: { state: true }, stage: { state: true } }
  declare asking: boolean
  declare text: string
  declare stage: string
  private datasets: ReadonlyArray<DatasetItem> | undefined
  private listProblem: Problem | undefined
  private problem: Problem | undefined
  private result: Result | undefined
  private answer: Answer | undefined
  private abort: AbortController | undefined

  constructor() {
    super()
    this.asking = false
    this.text = ""
    this.stage = ""
  }

  override connectedCallback() {
    super.connectedCallback()
    adoptDataStyles()
    this.readWorkspaceName()
    if (this.datasets === undefined && featureOn(this.context.boot, "ask")) void this.loadDatasets()
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.abort?.abort()
  }


  private async loadDatasets() {
    try {
      const page = await this.context.client.list<DatasetItem>(`v1/datasets?workspace_id=${encodeURIComponent(this.workspaceId)}&limit=100`)
      this.datasets = page.data
    } catch (error) {
      this.listProblem = problemIn(error)
    }
    this.requestUpdate()
  }

  private onEvent(event: ServerEvent) {
    const data = event.data as Record<string, unknown>
    switch (event.event) {
      case "progress":
        this.stage = typeof data.message === "string" ? data.message : ""
        break
      case "rows":
        this.result = data as unknown as Result
        this.requestUpdate()
        break
      case "answer":
        this.text += typeof data.text === "string" ? data.text : ""
        break
      case "done": {
        const answer = data as unknown as Answer
        this.answer = answer
        if (answer.result !== null) this.result = answer.result
        this.text = answer.text
        this.requestUpdate()
        break
      }
      case "error":
        this.problem = askProblem({
          status: 0,
          code: typeof data.code === "string" ? data.code : "error",
          title: typeof data.title === "string" ? data.title : msg("problem.generic"),
          detail: typeof data.detail === "string" ? data.detail : "",
          action: msg("problem.action.later")
        })
        this.requestUpdate()
        break
    }
  }

  private async ask(event: Event) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const question = (form.elements.namedItem("question") as HTMLTextAreaElement).value.trim()
    const dataset = (form.elements.namedItem("dataset") as HTMLSelectElement).value
    if (question === "") return
    this.abort?.abort()
    const abort = (this.abort = new AbortController())
    this.asking = true
    this.text = ""
    this.stage = ""
    this.problem = undefined
    this.result = undefined
    this.answer = undefined
    try {
      await postForEvents("v1/ai/ask", { question, dataset_id: dataset }, (e) => this.onEvent(e), { signal: abort.signal })
    } catch (error) {
      this.problem = askProblem(problemIn(error))
    } finally {
      // A finished request is forgotten: aborting it later (the next question) would cancel a body already read.
      if (this.abort === abort) {
        this.asking = false
        this.abort = undefined
      }
    }
  }

  private answerView() {
    const result = this.result
    const spec = this.answer === undefined || result === undefined ? undefined : answerSpec(this.answer.visual, result.columns, this.answer.text)
    if (this.text === "" && result === undefined && !this.asking) return nothing
    return html`<section class="card answer" aria-labelledby="answer-title">
      <h2 id="answer-title">${msg("ask.answer")}</h2>
      <p class="answer-text" aria-live="polite" aria-busy=${this.asking ? "true" : "false"}>${this.text}${this.asking ? html`<span class="cursor" aria-hidden="true">▍</span>` : nothing}</p>
      ${this.asking && this.stage !== "" ? html`<p class="muted" role="status">${this.stage}</p>` : nothing}
      ${spec === undefined || result === undefined ? nothing : html`<figure class="answer-chart"><vega-chart .spec=${spec} .rows=${result.data}></vega-chart>
        <figcaption class="visually-hidden">${this.text}</figcaption></figure>`}
      ${result === undefined || result.columns.length === 0 ? nothing : html`<details class="data" ?open=${spec === undefined}><summary>${msg("ask.rows", { count: result.row_count })}</summary>${dataTable(asTable(result), msg("ask.rows.caption"))}</details>`}
    </section>`
  }

  override render() {
    const title = msg("ask.title")
    const datasets = this.datasets
    if (datasets !== undefined || this.listProblem !== undefined || !featureOn(this.context.boot, "ask")) this.ready(title)
    const base = `w/${encodeURIComponent(this.workspaceId)}`
    return html`
      ${crumbs([{ text: msg("app.nav.workspaces"), href: "./" }, { text: this.workspace ?? msg("workspace.title"), href: base }, { text: title }])}
      <h1>${title}</h1>
      <p class="muted">${msg("ask.intro")}</p>
      ${problemView(this.listProblem, () => void this.loadDatasets())}
      ${!featureOn(this.context.boot, "ask") ? empty(msg("ask.off")) : datasets === undefined ? (this.listProblem === undefined ? loading() : nothing) : datasets.length === 0 ? empty(msg("ask.noDatasets"), msg("ask.noDatasets.hint")) : html`
        <form class="card ask-form" @submit=${(e: Event) => void this.ask(e)}>
          <label>${msg("ask.dataset")}
            <select name="dataset">${datasets.map((d) => html`<option value=${d.dataset_id}>${d.name}</option>`)}</select>
          </label>
          <label>${msg("ask.question")}
            <textarea name="question" rows="2" maxlength="1000" required placeholder=${msg("ask.question.placeholder")}></textarea>
          </label>
          <p><button type="submit" ?disabled=${this.asking}>${this.asking ? msg("ask.asking") : msg("ask.submit")}</button></p>
        </form>`}
      ${problemView(this.problem)}
      ${this.answerView()}
    `
  }
}

customElements.define("analytics-ask", AskScreen)
