/**
 * A shared page writes numbers in the deployment's locale, as its documents
 * do: a key figure and a table's cells, with the locale's grouping.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ExportFixture from "./ExportFixture.ts"

const viewOf = (locale: string | undefined) =>
  Effect.gen(function*() {
    const { ok, reportId, server } = yield* ExportFixture.setup({
      server: { info: { branding: { name: "Analytics", logoUrl: null, primaryColor: "#2563eb", ...(locale === undefined ? {} : { locale }) } } },
      rowLevelSecurity: [{ roles: ["admin", "link"], all_rows: true }],
      visuals: (datasetId) => [
        { id: "total", type: "kpi", title: "Total", dataset_id: datasetId, query: { measures: ["total_amount"] }, encoding: { value: "total_amount" } },
        ExportFixture.byRegion(datasetId, { type: "table", encoding: { columns: ["region", "total_amount"] } })
      ]
    })
    const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
    const view = (yield* server.request("GET", new URL(link.link_url).pathname, { headers: { accept: "application/json" } })).body
    const [total, byRegion] = view.pages[0].visuals
    return { figure: total.figure as string, cells: (byRegion.table.cells as Array<Array<string>>).map((row) => row[1]) }
  })

describe("a shared page's locale", () => {
  it.live("numbers in en-US by default, in the deployment's locale when it has one", () =>
    Effect.gen(function*() {
      // 1 + 2 + … + 90
      assert.strictEqual((yield* viewOf(undefined)).figure, "4,095")
      const german = yield* viewOf("de-DE")
      assert.strictEqual(german.figure, "4.095")
      // each region's sum of thirty orders, above a thousand
      for (const cell of german.cells) assert.match(cell, /^\d\.\d{3}$/)
    }))
})
