/**
 * Reports as Excel workbooks, written with exceljs's streaming writer (rows
 * go to the zip as they are added, so memory stays bounded): a cover sheet
 * with the report, the export's filters and the time, then one sheet per
 * visual with its columns' titles, its rows and a total row under them
 * (decision 0015, "Totals"): a summable measure's is a live `SUM` formula
 * (a minimum's `MIN`, a maximum's `MAX`), its value cached for readers
 * that do not calculate; an average's or a ratio's is the measure over the
 * whole, as the view's totals give it, or blank when there is none — never
 * a sum of averages. Values stay numbers and dates, shown in
 * their measures' formats and their granularity's (`"€"#,##0.00`,
 * `mmm yyyy`), so they still add up and sort; quarters are text
 * ("Q1 2025"), which Excel has no format for.
 *
 * @since 0.1.0
 */
import { Chart, Format } from "@analytics/charts"
import type { ReportViews } from "@analytics/core"
import { DocumentRenderers } from "@analytics/core"
import ExcelJS from "exceljs"
import { Effect, Stream } from "effect"
import { PassThrough } from "node:stream"
import * as SheetNames from "./SheetNames.ts"
import * as Visuals from "./Visuals.ts"

/** A column's letter (1 → A, 27 → AA). */
const letter = (index: number): string => {
  let n = index
  let out = ""
  while (n > 0) {
    const r = (n - 1) % 26
    out = String.fromCharCode(65 + r) + out
    n = Math.floor((n - 1) / 26)
  }
  return out
}

/** Excel's date format for a time of a granularity; `undefined` for a quarter, written as text. */
const dateFormat = (granularity: Format.Granularity | undefined): string | undefined => {
  switch (granularity) {
    case "quarter":
      return undefined
    case "year":
      return "yyyy"
    case "month":
      return "mmm yyyy"
    case "week":
    case "day":
      return "d mmm yyyy"
    case "hour":
      return "d mmm yyyy hh:00"
    case "minute":
      return "d mmm yyyy hh:mm"
    case "second":
    case undefined:
      return "yyyy-mm-dd hh:mm:ss"
  }
}

/** How a result column is written: its title, how a value becomes a cell, and the cell's number format. */
interface SheetColumn {
  readonly title: string
  readonly measure: boolean
  readonly numFmt: string | undefined
  readonly cell: (value: unknown) => ExcelJS.CellValue
  readonly width: number
}

const sheetColumn = (column: Chart.Column, locale: string): SheetColumn => {
  const planned = Chart.planColumn(column)
  switch (planned.role) {
    case "quantity":
      return {
        title: planned.title,
        measure: true,
        numFmt: Format.excelNumFmt(planned.numberFormat, locale),
        cell: (value) => (typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : (value as ExcelJS.CellValue) ?? null),
        width: Math.max(14, planned.title.length + 2)
      }
    case "time": {
      const numFmt = dateFormat(column.granularity)
      return {
        title: planned.title,
        measure: false,
        numFmt,
        // a time as a date in UTC (Excel has no zones: the wall time is UTC's), a quarter as its label
        cell: (value) => (value === null || value === undefined ? null : numFmt === undefined ? Format.text(value, planned) : Format.toDate(value) ?? String(value)),
        width: Math.max(12, planned.title.length + 2)
      }
    }
    case "category":
      return { title: planned.title, measure: false, numFmt: undefined, cell: (value) => (value as ExcelJS.CellValue) ?? null, width: Math.max(12, planned.title.length + 2) }
  }
}

const write = async (view: ReportViews.ReportView, options: DocumentRenderers.DocumentOptions, out: PassThrough) => {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false })
  workbook.creator = "Analytics"
  workbook.created = options.generatedAt
  const sheetName = SheetNames.namer()
  const cover = workbook.addWorksheet(sheetName("Report"))
  cover.columns = [{ width: 24 }, { width: 40 }, { width: 40 }]
  cover.addRow([view.report.name]).font = { bold: true, size: 14 }
  if (view.report.description !== null) cover.addRow([view.report.description])
  cover.addRow([`Generated ${Visuals.generatedText(options.generatedAt, options.branding.locale)}`])
  cover.addRow([options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`])
  cover.addRow([])
  for (const page of view.pages) {
    for (const v of page.visuals) {
      cover.addRow([page.name, Visuals.titleOf(v), v._tag === "Rows" ? `${v.rows.length} rows` : v.detail])
    }
  }
  cover.commit()
  for (const page of view.pages) {
    for (const v of page.visuals) {
      const sheet = workbook.addWorksheet(sheetName(Visuals.titleOf(v)))
      if (v._tag === "Unavailable") {
        sheet.addRow([v.detail]).commit()
        sheet.commit()
        continue
      }
      const columns = v.columns.map((c) => sheetColumn(c, options.branding.locale))
      sheet.columns = columns.map((c) => ({ width: c.width }))
      const header = sheet.addRow(columns.map((c) => c.title))
      header.font = { bold: true }
      header.commit()
      // The rows' sum, least and greatest value of each column, cached under the formulas.
      const sums = columns.map(() => 0)
      const least = columns.map((): number | undefined => undefined)
      const greatest = columns.map((): number | undefined => undefined)
      const styled = (row: ExcelJS.Row) => {
        columns.forEach((c, i) => {
          if (c.numFmt !== undefined) row.getCell(i + 1).numFmt = c.numFmt
        })
        return row
      }
      for (const row of v.rows) {
        styled(sheet.addRow(columns.map((c, i) => {
          const value = c.cell(row[v.columns[i]!.name])
          if (c.measure && typeof value === "number") {
            sums[i]! += value
            least[i] = Math.min(least[i] ?? value, value)
            greatest[i] = Math.max(greatest[i] ?? value, value)
          }
          return value
        }))).commit()
      }
      const last = v.rows.length + 1
      const range = (i: number) => `${letter(i + 1)}2:${letter(i + 1)}${last}`
      // A measure the view has no total for has none (a view made without totals adds up nothing).
      const totalCell = (c: SheetColumn, i: number): ExcelJS.CellValue => {
        const total = v.totals?.[v.columns[i]!.name]
        switch (total?._tag) {
          case "Sum":
            return { formula: `SUM(${range(i)})`, result: sums[i]! }
          case "Min":
            return least[i] === undefined ? null : { formula: `MIN(${range(i)})`, result: least[i] }
          case "Max":
            return greatest[i] === undefined ? null : { formula: `MAX(${range(i)})`, result: greatest[i] }
          case "Whole":
            return c.cell(total.value)
          case "None":
          case undefined:
            return null
        }
      }
      const totalled = columns.map((c, i) => (c.measure ? totalCell(c, i) : null))
      if (v.rows.length > 1 && totalled.some((cell) => cell !== null)) {
        const total = styled(sheet.addRow(columns.map((c, i) => (c.measure ? totalled[i]! : i === 0 ? "Total" : null))))
        // the first column says what the row is, not a date
        if (!columns[0]!.measure) total.getCell(1).numFmt = "General"
        total.font = { bold: true }
        total.commit()
      }
      sheet.commit()
    }
  }
  await workbook.commit()
}

/** The xlsx renderer. */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.unwrap(Effect.sync(() => {
    const out = new PassThrough()
    const done = write(view, options, out).catch((cause) => out.destroy(cause instanceof Error ? cause : new Error(String(cause))))
    void done
    // A Node stream yields Buffers, which are Uint8Arrays.
    return Stream.fromAsyncIterable<Uint8Array, DocumentRenderers.RenderError>(out, (cause) => new DocumentRenderers.RenderError({ detail: "The workbook could not be written", cause }))
  }))
