/**
 * Reports as Excel workbooks, written with exceljs's streaming writer (rows
 * go to the zip as they are added, so memory stays bounded): a cover sheet
 * with the report, the export's filters and the time, then one sheet per
 * visual with its header, its rows and, under each measure, a total row
 * that is a live `SUM` formula (with its value cached for readers that do
 * not calculate).
 *
 * @since 0.1.0
 */
import { DocumentRenderers, type ReportViews } from "@analytics/core"
import ExcelJS from "exceljs"
import { Effect, Stream } from "effect"
import * as Charts from "./Charts.ts"
import { PassThrough } from "node:stream"

/** Excel's limit on a sheet name, and the characters it refuses in one. */
const sheetName = (title: string, taken: Set<string>) => {
  const base = title.replace(/[\\/?*[\]:]/g, " ").trim().slice(0, 28) || "Visual"
  let name = base
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base.slice(0, 28 - String(i).length - 1)} ${i}`
  taken.add(name.toLowerCase())
  return name
}

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

const write = async (view: ReportViews.ReportView, options: DocumentRenderers.DocumentOptions, out: PassThrough) => {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false })
  workbook.creator = "Analytics"
  workbook.created = options.generatedAt
  const taken = new Set<string>()
  const cover = workbook.addWorksheet(sheetName("Report", taken))
  cover.addRow([view.report.name]).font = { bold: true, size: 14 }
  if (view.report.description !== null) cover.addRow([view.report.description])
  cover.addRow([`Generated ${options.generatedAt.toISOString()}`])
  cover.addRow([options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`])
  cover.addRow([])
  for (const page of view.pages) for (const v of page.visuals) cover.addRow([page.name, v.visual.title ?? v.visual.id, v._tag === "Rows" ? `${v.rows.length} rows` : v.detail])
  cover.commit()
  for (const page of view.pages) {
    for (const v of page.visuals) {
      const sheet = workbook.addWorksheet(sheetName(v.visual.title ?? v.visual.id, taken))
      if (v._tag === "Unavailable") {
        sheet.addRow([v.detail]).commit()
        sheet.commit()
        continue
      }
      const header = sheet.addRow([...Charts.names(v)])
      header.font = { bold: true }
      header.commit()
      const totals = Charts.names(v).map(() => 0)
      for (const row of v.rows) {
        sheet.addRow(Charts.names(v).map((c, i) => {
          const value = row[c]
          if (typeof value === "number") totals[i]! += value
          return value ?? null
        })).commit()
      }
      if (Charts.measures(v).length > 0 && v.rows.length > 1) {
        const last = v.rows.length + 1
        const total = sheet.addRow(Charts.names(v).map((c, i) =>
          i === 0 && !Charts.measures(v).includes(c)
            ? "Total"
            : Charts.measures(v).includes(c)
            ? { formula: `SUM(${letter(i + 1)}2:${letter(i + 1)}${last})`, result: totals[i]! }
            : null
        ))
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
