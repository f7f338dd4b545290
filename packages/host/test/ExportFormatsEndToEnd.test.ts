/**
 * Every export format from the demo report "Sales overview", on the packaged
 * host with its default store (embedded PGlite and DuckDB in a data
 * directory), over HTTP as a client would: each job queued, run by the
 * host's worker, downloaded at its signed URL and opened by a reader that
 * is not the writer (poppler for PDF, JSZip on the raw OOXML of xlsx and
 * pptx, hyparquet for Parquet, pngjs for PNG, DuckDB running the exported
 * SQL). The numbers are checked against a query of the same visual over
 * `POST /v1/reports/{id}/visuals/{visual_id}/query`, with the same filters.
 */
import { Png } from "@analytics/adapter-documents"
import { Theme } from "@analytics/charts"
import { Chromium } from "@analytics/testing/browser"
import { Poppler, Raster } from "@analytics/testing/documents"
import { DuckDBInstance } from "@duckdb/node-api"
import { parquetMetadata, parquetReadObjects } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import JSZip from "jszip"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PNG } from "pngjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ExportFormats, SampleSales } from "@analytics/core"
import { call, type Cleanups, demoHost, download, settledJob } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The filter every filtered export and its reference query share: two regions of four. */
const twoRegions = [{ member: "region", operator: "equals", values: ["EU", "APAC"] }]

/**
 * The requests, one per format of core's table (a format it adds fails to compile here until it has one);
 * all queued at once, run by the host's worker two at a time (the workspace's bound).
 */
const requests = {
  pdf: { format: "pdf", filters: twoRegions },
  xlsx: { format: "xlsx", filters: twoRegions },
  pptx: { format: "pptx" },
  png: { format: "png", visual_id: "revenue_by_region" },
  csv: { format: "csv", visual_id: "revenue_by_region" },
  json: { format: "json", visual_id: "revenue_by_month", filters: twoRegions },
  parquet: { format: "parquet", visual_id: "products" },
  sql: { format: "sql", visual_id: "revenue_by_region", filters: twoRegions }
} as const satisfies { readonly [F in ExportFormats.Format]: { readonly format: F; readonly [field: string]: unknown } }

type Format = keyof typeof requests

/** En-US text of a count as the documents print it. */
const shown = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 })

/** En-US text of an amount in euros as the documents print it (the model's format: EUR, 2 decimals). */
const euros = (value: number) => value.toLocaleString("en-US", { style: "currency", currency: "EUR", minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** The xml of a file in a zip. */
const entry = (zip: JSZip, path: string) => {
  const file = zip.file(path)
  if (file === null) throw new Error(`${path} is not in the archive: ${Object.keys(zip.files).join(", ")}`)
  return file.async("string")
}

/** The pixels of a decoded PNG that are exactly `rgb`. */
const pixels = (png: PNG, [r, g, b]: readonly [number, number, number]) => {
  let n = 0
  for (let i = 0; i < png.data.length; i += 4) if (png.data[i] === r && png.data[i + 1] === g && png.data[i + 2] === b) n++
  return n
}

/** The default theme (no primary colour configured): the bars in its accent, slices in its palette. */
const theme = Theme.theme()
const barColour = Raster.channels(theme.accent)

let demo: Awaited<ReturnType<typeof demoHost>>
/** Each visual's rows as the query endpoint answers them, unfiltered and with `twoRegions`. */
const reference: Record<string, { all: Array<any>; twoRegions: Array<any> }> = {}
const files = {} as Record<Format, { job: any; headers: Headers; bytes: Uint8Array }>

beforeAll(async () => {
  demo = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`)
  const { host, report, token } = demo
  const queued = await Promise.all(Object.entries(requests).map(async ([format, body]) => {
    const response = await call(host, "POST", `/v1/reports/${report.report_id}/export`, token, body)
    if (response.status !== 202) throw new Error(`${format}: ${response.status} ${JSON.stringify(response.body)}`)
    return [format as Format, response.body.job_id as string] as const
  }))
  for (const page of report.pages) {
    for (const visual of page.visuals) {
      const query = (body: unknown) => call(host, "POST", `/v1/reports/${report.report_id}/visuals/${visual.id}/query`, token, body)
      const [all, filtered] = await Promise.all([query({}), query({ filters: twoRegions })])
      expect(all.status, JSON.stringify(all.body)).toBe(200)
      reference[visual.id] = { all: all.body.data, twoRegions: filtered.body.data }
    }
  }
  await Promise.all(queued.map(async ([format, jobId]) => {
    const job = await settledJob(host, token, jobId, 150_000)
    if (job.status !== "succeeded") throw new Error(`${format}: ${JSON.stringify(job)}`)
    files[format] = { job, ...(await download(host, token, jobId)) }
  }))
}, 240_000)

describe("every export format of the demo report, opened by an independent reader", () => {
  it("the demo report is what these checks assume, and the filter changes its numbers", () => {
    expect(demo.report.name).toBe("Sales overview")
    expect(demo.report.pages.map((p: any) => p.name)).toEqual(["Overview", "Trends", "Products", "Mix"])
    expect(reference.revenue_by_region!.all.map((r) => r.region).sort()).toEqual(["APAC", "EU", "LATAM", "US"])
    expect(reference.revenue_by_region!.twoRegions.map((r) => r.region).sort()).toEqual(["APAC", "EU"])
    expect(reference.revenue_total!.twoRegions[0].revenue).toBeLessThan(reference.revenue_total!.all[0].revenue)
    for (const [format, file] of Object.entries(files)) {
      expect(file.job, format).toMatchObject({ status: "succeeded", attempts: 1, error: null })
      expect(file.job.result.bytes, format).toBe(file.bytes.length)
      expect(file.job.result.warnings, format).toEqual([])
    }
  })

  // For people to look at: with VIEWER_SHOTS set (CI sets it), the PDF's pages as poppler draws them, and the PNG export.
  it.skipIf(process.env.VIEWER_SHOTS === undefined || !Poppler.available)("the PDF's pages and the PNG are kept beside the browser's screenshots", () => {
    const dir = process.env.VIEWER_SHOTS!
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "export.pdf"), files.pdf.bytes)
    execFileSync("pdftoppm", ["-r", "60", "-png", join(dir, "export.pdf"), join(dir, "export-pdf-page")])
    writeFileSync(join(dir, "export-revenue-by-region.png"), files.png.bytes)
    expect(readdirSync(dir).filter((f) => f.startsWith("export-pdf-page"))).toHaveLength(5)
  })

  it.skipIf(!Poppler.available)(`PDF: a cover and the four pages, the filter printed, the filtered figures, vector bars${Poppler.available ? "" : " (skipped: apt-get install poppler-utils)"}`, () => {
    const { bytes, headers } = files.pdf
    expect(headers.get("content-type")).toBe("application/pdf")
    expect(headers.get("content-disposition")).toBe(`attachment; filename="Sales_overview.pdf"`)
    const pdf = Poppler.read(bytes)
    expect(pdf.title).toBe("Sales overview")
    expect(pdf.pages).toBe(5)
    const pages = pdf.text.split("\f")
    expect(pages[0]).toContain("Sales overview")
    expect(pages[0]).toContain(`Filters: region equals "EU", "APAC"`)
    expect(pages[0]).toContain("Pages: Overview, Trends, Products, Mix")
    // Each report page's name is a line of its own on its page (charts' labels share the page, in any order).
    const lines = (page: string | undefined) => (page ?? "").split("\n").map((line) => line.trim())
    expect(lines(pages[1])).toContain("Overview")
    expect(lines(pages[2])).toContain("Trends")
    expect(lines(pages[3])).toContain("Products")
    expect(lines(pages[4])).toContain("Mix")
    // The bar chart's axis has the two regions of the filter, and only them.
    const words = (page: string | undefined) => (page ?? "").split(/\s+/)
    expect(words(pages[1])).toEqual(expect.arrayContaining(["EU", "APAC"]))
    expect(pages[1]).not.toMatch(/\b(US|LATAM)\b/)
    for (const title of ["Revenue", "Revenue by region", "Region"]) expect(pages[1]).toContain(title)
    for (const title of ["Revenue by month", "Orders by channel", "Order date: Month", "Channel"]) expect(pages[2]).toContain(title)
    // Times as the page writes them: months on the line's axis, quarters under the stacked bars.
    expect(pages[2]).toContain("Jan 2025")
    for (const label of ["Q1 2025", "Q4 2026", "Order date: Quarter"]) expect(pages[4]).toContain(label)
    // The key figure is the filtered revenue, not the whole one, in euros with cents.
    expect(pages[1]).toContain(euros(reference.revenue_total!.twoRegions[0].revenue))
    expect(pages[1]).not.toContain(euros(reference.revenue_total!.all[0].revenue))
    // Amounts in euros on the axes; no column's name and no engine's time text on any report page.
    expect(pages[1]).toContain("€")
    for (const page of pages.slice(1)) {
      for (const raw of ["__", "00:00:00", "ordered_at"]) expect(page).not.toContain(raw)
    }
    // The products table: each product's line carries its filtered orders and units.
    const products = reference.products!.twoRegions
    expect(products).toHaveLength(5)
    for (const row of products) {
      const line = pages[3]!.split("\n").find((l) => l.trim().startsWith(row.product))
      expect(line, row.product).toBeDefined()
      expect(line!.trim().split(/\s{2,}/).slice(1, 3)).toEqual([shown(row.orders), shown(row.units)])
    }
    // The bar chart is drawn: poppler rasterises page 2, and each filtered region is one area of the accent (the key figure's glyphs are smaller).
    expect(Raster.areas(Raster.page(bytes, 2, 72), theme.accent, 1500)).toHaveLength(reference.revenue_by_region!.twoRegions.length)
    // The pie: one slice per channel, each in its own colour of the palette.
    const trends = Raster.page(bytes, 3, 72)
    expect(theme.palette.map((colour) => Raster.areas(trends, colour, 1500).length)).toEqual(
      theme.palette.map((_, i) => (i < reference.orders_by_channel!.twoRegions.length ? 1 : 0))
    )
  })

  // What one sees is what one exports: the same report, with the same two regions, in Chromium and in the PDF.
  it.skipIf(!Chromium.available || !Poppler.available)(Chromium.suiteTitle("the browser draws the same marks as the PDF: the bars of the two regions and a slice per channel"), async () => {
    const link = await call(demo.host, "POST", "/v1/sharing/grants", demo.token, { subject_type: "report", subject_id: demo.report.report_id, principal_type: "link", actions: ["view"] })
    expect(link.status).toBe(201)
    const browser = await Chromium.open()
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      const marks = async (name: string) => {
        await page.goto(`${link.body.link_url}?filters=${encodeURIComponent(JSON.stringify({ region: ["EU", "APAC"] }))}#page=${name}`)
        await page.waitForFunction(() => [...document.querySelectorAll("section.page:not([hidden]) vega-chart")].every((c) => c.querySelector(".live svg") !== null), undefined, { timeout: 20_000 })
        return page.evaluate(() =>
          Object.fromEntries([...document.querySelectorAll("section.page:not([hidden]) vega-chart")].map((chart) => [
            chart.closest("[data-visual]")?.getAttribute("data-visual") ?? "",
            chart.querySelectorAll(".live svg g.role-mark:is(.mark-rect, .mark-arc) > path").length
          ]))
        )
      }
      const overview = await marks("Overview")
      const trends = await marks("Trends")
      const pdf = files.pdf.bytes
      expect(overview["revenue_by_region"]).toBe(Raster.areas(Raster.page(pdf, 2, 72), theme.accent, 1500).length)
      expect(trends["orders_by_channel"]).toBe(theme.palette.filter((colour) => Raster.areas(Raster.page(pdf, 3, 72), colour, 1500).length > 0).length)
      expect([overview["revenue_by_region"], trends["orders_by_channel"]]).toEqual([2, reference.orders_by_channel!.twoRegions.length])
    } finally {
      await browser.close()
    }
  }, 120_000)

  it("Excel: the cover with the filter, a sheet per visual, titles as headers, the filtered values in their formats, months as dates, a live SUM total and an average over the whole", async () => {
    const { bytes, headers } = files.xlsx
    expect(headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    const zip = await JSZip.loadAsync(bytes)
    const workbook = await entry(zip, "xl/workbook.xml")
    expect([...workbook.matchAll(/<sheet [^>]*name="([^"]+)"/g)].map((m) => m[1])).toEqual([
      "Report",
      ...demo.report.pages.flatMap((p: any) => p.visuals.map((v: any) => v.title))
    ])
    const cover = await entry(zip, "xl/worksheets/sheet1.xml")
    expect(cover).toContain("Sales overview")
    expect(cover).toContain("Filters: region equals &quot;EU&quot;, &quot;APAC&quot;")
    // The Products sheet: a row per product with its filtered numbers, then a total row of SUM formulas over them.
    const sheet = await entry(zip, "xl/worksheets/sheet6.xml")
    const rows = [...sheet.matchAll(/<row [^>]*>(.*?)<\/row>/g)].map((m) => m[1]!)
    const products = reference.products!.twoRegions
    expect(rows).toHaveLength(1 + products.length + 1)
    const values = (row: string) => [...row.matchAll(/<c [^>]*?(?:\/>|>(.*?)<\/c>)/g)].map((m) => m[1] ?? "")
    for (const [i, product] of products.entries()) {
      const cells = values(rows[i + 1]!)
      expect(cells[0]).toContain(product.product)
      expect(cells.slice(1).map((c) => Number(/<v>([^<]*)<\/v>/.exec(c)?.[1]))).toEqual([product.orders, product.units, product.revenue, product.average_order])
    }
    expect(values(rows[0]!).map((c) => /<(?:v|t)[^>]*>([^<]*)<\/(?:v|t)>/.exec(c)?.[1])).toEqual(["Product", "Orders", "Units", "Revenue", "Average order"])
    // Measures in their formats: the euros' format is declared, and the revenue cells use it.
    const styles = await entry(zip, "xl/styles.xml")
    const euroFormat = /<numFmt numFmtId="(\d+)" formatCode="&quot;€&quot;#,##0.00"\/>/.exec(styles)?.[1]
    expect(euroFormat).toBeDefined()
    const xfs = [...(/<cellXfs[^>]*>(.*?)<\/cellXfs>/s.exec(styles)?.[1] ?? "").matchAll(/<xf [^>]*?numFmtId="(\d+)"/g)].map((m) => m[1])
    const styleOf = (row: string, column: string) => xfs[Number(new RegExp(`<c r="${column}\\d+" s="(\\d+)"`).exec(row)?.[1])]
    expect(styleOf(rows[1]!, "D")).toBe(euroFormat)
    // Months are dates (the first, 2025-01-01, is Excel's day 45658) shown as months.
    const byMonth = [...(await entry(zip, "xl/worksheets/sheet4.xml")).matchAll(/<row [^>]*>(.*?)<\/row>/g)].map((m) => m[1]!)
    expect(byMonth[1]).toMatch(/<c r="A2" s="\d+"><v>45658<\/v><\/c>/)
    expect(styles).toContain(`formatCode="mmm yyyy"`)
    const total = rows[products.length + 1]!
    expect(total).toContain("Total")
    const last = products.length + 1
    const orders = products.reduce((sum, p) => sum + p.orders, 0)
    expect(total).toContain(`<f>SUM(B2:B${last})</f><v>${orders}</v>`)
    expect(total).toContain(`<f>SUM(C2:C${last})</f>`)
    expect(total).toContain(`<f>SUM(D2:D${last})</f>`)
    expect(styleOf(total, "D")).toBe(euroFormat)
    // Average order is revenue / orders over every filtered order, not a SUM of the products' averages (decision 0015, "Totals").
    const revenue = products.reduce((sum, p) => sum + p.revenue, 0)
    const average = /<c r="E\d+"[^>]*>(.*?)<\/c>/.exec(total)?.[1] ?? ""
    expect(average).not.toContain("<f>")
    expect(Number(/<v>([^<]*)<\/v>/.exec(average)?.[1])).toBeCloseTo(revenue / orders, 4)
    expect(styleOf(total, "E")).toBe(euroFormat)
  })

  it("PowerPoint: a title slide and a slide per visual, native charts of each kind holding the visuals' numbers, in the model's words and formats", async () => {
    const { bytes, headers } = files.pptx
    expect(headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.presentationml.presentation")
    const zip = await JSZip.loadAsync(bytes)
    const slides = Object.keys(zip.files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f))
    expect(slides).toHaveLength(10)
    const slide = (n: number) => entry(zip, `ppt/slides/slide${n}.xml`)
    expect(await slide(1)).toContain("Sales overview")
    // Unfiltered: the key figure is the whole revenue.
    const kpi = await slide(2)
    expect(kpi).toContain("Overview · Revenue")
    expect(kpi).toContain(euros(reference.revenue_total!.all[0].revenue))
    const bars = await slide(3)
    expect(bars).toContain("Overview · Revenue by region")
    expect(bars).toContain("graphicFrame")
    expect(bars).not.toContain("<p:pic>")
    // Each chart's data lives in the deck: the bar chart's regions and revenues, the pie's channels and orders.
    const charts = await Promise.all(Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f)).map((f) => entry(zip, f)))
    const barChart = charts.find((c) => c.includes("<c:barChart>") && !c.includes("<c:lineChart>") && c.includes("<c:v>LATAM</c:v>"))
    expect(barChart).toBeDefined()
    for (const title of ["<a:t>Region</a:t>", "<a:t>Revenue</a:t>"]) expect(barChart).toContain(title)
    expect(barChart).toMatch(/formatCode="&quot;€&quot;#,##0"/)
    for (const row of reference.revenue_by_region!.all) {
      expect(barChart).toContain(`<c:v>${row.region}</c:v>`)
      expect(barChart).toContain(`<c:v>${row.revenue}</c:v>`)
    }
    const pie = charts.find((c) => c.includes("<c:pieChart>"))
    expect(pie).toBeDefined()
    for (const row of reference.orders_by_channel!.all) {
      expect(pie).toContain(`<c:v>${row.channel}</c:v>`)
      expect(pie).toContain(`<c:v>${row.orders}</c:v>`)
    }
    const line = charts.find((c) => c.includes("<c:lineChart>") && !c.includes("<c:barChart>"))
    expect(line).toContain("<c:v>Jan 2025</c:v>")
    expect(line).toContain("<a:t>Order date: Month</a:t>")
    // The stacked bar stacks its channels; the combo draws bars and a line in one plot area; the scatter is a scatter.
    expect(charts.find((c) => c.includes("<c:barChart>") && c.includes(`<c:grouping val="stacked"/>`))).toContain("<c:v>Q1 2025</c:v>")
    const combo = charts.find((c) => c.includes("<c:barChart>") && c.includes("<c:lineChart>"))
    expect(combo?.split("<c:plotArea>")).toHaveLength(2)
    expect(combo).toContain("<a:t>Orders</a:t>")
    expect(charts.find((c) => c.includes("<c:scatterChart>"))).toContain("<a:t>Units</a:t>")
    for (const xml of charts) expect(xml).not.toContain("00:00:00")
    // The products table is a native table: its cells hold the product names.
    const table = await slide(6)
    expect(table).toContain("<a:tbl>")
    for (const row of reference.products!.all) expect(table).toContain(row.product)
  })

  it("PNG: the visual at twice its size, its bars in the pixels", () => {
    const { bytes, headers, job } = files.png
    expect(headers.get("content-type")).toBe("image/png")
    expect(job.result.filename).toBe("revenue_by_region.png")
    const png = PNG.sync.read(Buffer.from(bytes))
    expect([png.width, png.height]).toEqual([Png.size.width * 2, Png.size.height * 2])
    expect(pixels(png, barColour)).toBeGreaterThan(100_000)
  })

  it("CSV: a header and the visual's rows, the same as its query", () => {
    const { bytes, headers } = files.csv
    expect(headers.get("content-type")).toBe("text/csv; charset=utf-8")
    const [header, ...lines] = new TextDecoder().decode(bytes).trimEnd().split("\r\n")
    expect(header).toBe("region,revenue")
    const rows = lines.map((line) => line.split(",")).map(([region, revenue]) => ({ region, revenue: Number(revenue) }))
    expect(rows).toEqual(reference.revenue_by_region!.all)
  })

  it("JSON: the visual's schema and its filtered rows, the same as its query", () => {
    const { bytes, headers } = files.json
    expect(headers.get("content-type")).toBe("application/json")
    const document = JSON.parse(new TextDecoder().decode(bytes))
    expect(document.visual).toMatchObject({ id: "revenue_by_month", type: "line", title: "Revenue by month" })
    expect(document.columns.map((c: any) => [c.name, c.kind, c.type])).toEqual([
      ["ordered_at__month", "time_dimension", "time"],
      ["revenue", "measure", "number"]
    ])
    expect(document.row_count).toBe(24)
    expect(document.rows).toEqual(reference.revenue_by_month!.twoRegions)
  })

  it("Parquet: compressed columns, read back by hyparquet with the query's rows", async () => {
    const { bytes, headers } = files.parquet
    expect(headers.get("content-type")).toBe("application/vnd.apache.parquet")
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
    const metadata = parquetMetadata(buffer)
    expect(Number(metadata.num_rows)).toBe(5)
    expect(metadata.schema.slice(1).map((s) => s.name)).toEqual(["product", "orders", "units", "revenue", "average_order"])
    expect(metadata.row_groups[0]!.columns[0]!.meta_data!.codec).toBe("ZSTD")
    const rows = await parquetReadObjects({ file: buffer, compressors })
    const plain = rows.map((r: any) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])))
    const expected = reference.products!.all
    expect(plain.map((r) => r.product)).toEqual(expected.map((r) => r.product))
    for (const [i, row] of plain.entries()) {
      expect([row.orders, row.units]).toEqual([expected[i].orders, expected[i].units])
      expect(row.revenue).toBeCloseTo(expected[i].revenue, 2)
      expect(row.average_order).toBeCloseTo(expected[i].average_order, 6)
    }
  })

  it("SQL: DuckDB-dialect text that DuckDB runs, with its parameters, over the demo rows to the query's answer", async () => {
    const { bytes, headers } = files.sql
    expect(headers.get("content-type")).toBe("application/sql; charset=utf-8")
    const text = new TextDecoder().decode(bytes)
    expect(text).toContain(`-- Visual revenue_by_region of report ${demo.report.report_id}, compiled for duckdb`)
    const params = [...text.matchAll(/^-- parameter \d+: (.*)$/gm)].map((m) => JSON.parse(m[1]!))
    expect(params).toEqual(["EU", "APAC"])
    // The same rows the demo loaded (a fixed seed), in a table of the name the SQL reads, in a DuckDB of our own.
    const table = /\bFROM\s+("[^"]+"(?:\."[^"]+")?)/i.exec(text)?.[1]
    expect(table).toBeDefined()
    const dir = mkdtempSync(join(tmpdir(), "sql-export-"))
    const instance = await DuckDBInstance.create(":memory:")
    const connection = await instance.connect()
    try {
      writeFileSync(join(dir, "sales.csv"), SampleSales.csv())
      const schema = table!.includes(".") ? table!.split(".")[0] : undefined
      if (schema !== undefined) await connection.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      await connection.run(`CREATE TABLE ${table} AS SELECT * FROM read_csv('${join(dir, "sales.csv")}', header = true, auto_detect = true)`)
      const reader = await connection.runAndReadAll(text.replace(/;\s*$/, ""), params)
      const rows = reader.getRowObjectsJS().map((r: any) => ({ region: r.region, revenue: Number(r.revenue) }))
      const expected = reference.revenue_by_region!.twoRegions
      expect(rows.map((r) => r.region).sort()).toEqual(expected.map((r) => r.region).sort())
      for (const row of rows) expect(row.revenue).toBeCloseTo(expected.find((e) => e.region === row.region).revenue, 2)
    } finally {
      connection.closeSync()
      instance.closeSync()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
