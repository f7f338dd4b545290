/**
 * Ask (`/w/{workspace_id}/ask`): a question in words about one of the
 * workspace's datasets, answered by `POST /v1/ai/ask` as server-sent events
 * (read with fetch: `client/Sse.ts`). The answer's words appear as they
 * arrive, then the query it ran (in words; JSON and SQL on request,
 * `AnswerQuery.ts`) and its chart and rows, made on the server as a report
 * visual's and drawn by the same `<visual-card>`. The dataset asked is the
 * first by name, or the one the question names, unless chosen. Refusals in
 * words: the AI question limit (429), an answerer that is not there (503).
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { featureOn } from "../../client/Boot.ts"
import { postForEvents, type ServerEvent } from "../../client/Sse.ts"
import type { VisualData } from "../../Data.ts"
import { msg } from "../../i18n/msg.ts"
import { adoptDataStyles } from "../../theme/DataStyles.ts"
import "../../VisualCard.ts"
import { queryInWords } from "../AnswerQuery.ts"
import { crumbs } from "../Crumbs.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"

/** A dataset to ask about: its name and its semantic model, whose members' titles the query is worded with. */
type DatasetItem = Json<typeof Groups.Datasets.DatasetJson>

/** The answer to a question (`POST /v1/ai/ask`, and the `data` of the stream's `done` event): its words, query, SQL, rows and chart. */
type Answer = Json<typeof Groups.Ai.AnswerJson>

/** The dataset a question names ("revenue in Sales 2026"): the longest name found in it as whole words, if any. */
const namedIn = (question: string, datasets: ReadonlyArray<DatasetItem>): DatasetItem | undefined => {
  const text = ` ${question.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `
  const words = (name: string) => ` ${name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `
  return [...datasets]
    .filter((d) => words(d.name).trim() !== "" && text.includes(words(d.name)))
    .sort((a, b) => b.name.length - a.name.length)[0]
}

/** An answer's problem in the words of asking. */
const askProblem = (problem: Problem): Problem => {
  if (problem.code === "rate-limit/ai-questions-exceeded") return { ...problem, title: msg("ask.limited") }
  if (problem.status === 503) return { ...problem, title: msg("ask.unavailable"), action: msg("ask.unavailable.action") }
  return problem
}


/** The Ask screen. */
export class AskScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    asking: { state: true },
    text: { state: true },
    stage: { state: true },
    datasetId: { state: true },
    named: { state: true }
  }
  declare asking: boolean
  declare text: string
  declare stage: string
  /** The dataset asked. */
  declare datasetId: string
  /** Whether it was chosen because the question names it. */
  declare named: boolean
  /** Whether the asker chose the dataset themselves (then a name in the question changes nothing). */
  private picked = false
  /** The workspace's datasets, by name. */
  private datasets: ReadonlyArray<DatasetItem> | undefined
  private listProblem: Problem | undefined
  private problem: Problem | undefined
  private answer: Answer | undefined
  private abort: AbortController | undefined

  constructor() {
    super()
    this.asking = false
    this.text = ""
    this.stage = ""
    this.datasetId = ""
    this.named = false
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
      const page = await this.context.client.list(`v1/datasets?workspace_id=${encodeURIComponent(this.workspaceId)}&limit=100`)
      // By name, the first chosen: never "the newest", which may be any upload (decision 0016).
      this.datasets = [...page.data].sort((a, b) => a.name.localeCompare(b.name))
      this.datasetId = this.datasets[0]?.dataset_id ?? ""
    } catch (error) {
      this.listProblem = problemIn(error)
    }
    this.requestUpdate()
  }

  /** A question naming a dataset chooses it, unless the asker chose one. */
  private onQuestion(event: Event) {
    const datasets = this.datasets
    if (this.picked || datasets === undefined) return
    const named = namedIn((event.target as HTMLTextAreaElement).value, datasets)
    this.datasetId = (named ?? datasets[0])?.dataset_id ?? ""
    this.named = named !== undefined
  }

  private onDataset(event: Event) {
    this.picked = true
    this.named = false
    this.datasetId = (event.target as HTMLSelectElement).value
  }

  private onEvent(event: ServerEvent) {
    const data = event.data as Record<string, unknown>
    switch (event.event) {
      case "progress":
        this.stage = typeof data.message === "string" ? data.message : ""
        break
      case "answer":
        this.text += typeof data.text === "string" ? data.text : ""
        break
      case "done": {
        const answer = data as unknown as Answer
        this.answer = answer
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

  /** The query the answer ran: in words, and as JSON and SQL on request. */
  private queryView(answer: Answer) {
    if (answer.query === null) return nothing
    const model = this.datasets?.find((d) => d.dataset_id === answer.dataset_id)?.model
    const words = queryInWords(answer.query, answer.result?.columns ?? [], [...(model?.dimensions ?? []), ...(model?.measures ?? [])])
    return html`<div class="answer-query">
      <h3>${msg("ask.query")}</h3>
      <p class="query-words">${words}</p>
      <details class="query-code"><summary>${msg("ask.query.show")}</summary>
        <p>${msg("ask.query.json")}</p>
        <pre class="query-json">${JSON.stringify(answer.query, null, 2)}</pre>
        ${answer.sql === null ? nothing : html`<p>${msg("ask.query.sql", { dialect: answer.sql.dialect })}</p>
          <pre class="query-sql">${answer.sql.sql}</pre>
          ${answer.sql.params.length === 0 ? nothing : html`<p class="muted">${msg("ask.query.params", { values: answer.sql.params.map((p) => JSON.stringify(p)).join(", ") })}</p>`}`}
      </details>
    </div>`
  }

  /** The answer's chart (or key figure) and rows, as a report visual's card shows them. */
  private visualView(answer: Answer) {
    if (answer.result === null || (answer.chart === null && answer.table === null)) return nothing
    const chart = answer.chart
    const visual: VisualData = {
      id: "answer",
      type: answer.visual?.type ?? "table",
      title: msg("ask.chart"),
      state: "rows",
      columns: answer.result.columns.map((c) => c.name),
      rows: answer.result.data,
      kind: chart?.kind ?? "table",
      ...(chart?.vega === undefined ? {} : { vega: chart.vega }),
      ...(chart?.figure === undefined ? {} : { figure: chart.figure }),
      ...(chart?.description === undefined ? {} : { description: chart.description }),
      ...(answer.table === null ? {} : { table: answer.table })
    }
    return html`<visual-card class="answer-visual" .visual=${visual}></visual-card>`
  }

  private answerView() {
    const answer = this.answer
    if (this.text === "" && answer === undefined && !this.asking) return nothing
    return html`<section class="card answer" aria-labelledby="answer-title">
      <h2 id="answer-title">${msg("ask.answer")}</h2>
      <p class="answer-text" aria-live="polite" aria-busy=${this.asking ? "true" : "false"}>${this.text}${this.asking ? html`<span class="cursor" aria-hidden="true">▍</span>` : nothing}</p>
      ${this.asking && this.stage !== "" ? html`<p class="muted" role="status">${this.stage}</p>` : nothing}
      ${answer === undefined ? nothing : this.queryView(answer)}
      ${answer === undefined ? nothing : this.visualView(answer)}
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
            <select name="dataset" aria-describedby=${this.named ? "dataset-named" : nothing} @change=${(e: Event) => this.onDataset(e)}>${
      datasets.map((d) => html`<option value=${d.dataset_id} ?selected=${d.dataset_id === this.datasetId}>${d.name}</option>`)
    }</select>
          </label>
          ${this.named ? html`<p id="dataset-named" class="muted">${msg("ask.dataset.named")}</p>` : nothing}
          <label>${msg("ask.question")}
            <textarea name="question" rows="2" maxlength="1000" required placeholder=${msg("ask.question.placeholder")} @input=${(e: Event) => this.onQuestion(e)}></textarea>
          </label>
          <p><button type="submit" ?disabled=${this.asking}>${this.asking ? msg("ask.asking") : msg("ask.submit")}</button></p>
        </form>`}
      ${problemView(this.problem)}
      ${this.answerView()}
    `
  }
}

customElements.define("analytics-ask", AskScreen)
