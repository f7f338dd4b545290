/**
 * Shared views read their queries through the result cache: a new load of
 * the dataset is seen by the very next view (the cache is keyed by the
 * load), and an embed's viewer never gets the rows cached for a link's
 * visitor (the key carries the compiled row-level security).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { orders } from "./ExportFixture.ts"
import { grantsPath, setup } from "./SharingFixture.ts"

const totalOf = (view: any): number => view.pages[0].visuals.find((v: any) => v.id === "total").rows[0].total_amount

describe("shared views and the result cache", () => {
  it.live("a new load shows in the next view; a link's and an embed's viewers each see their own rows", () =>
    Effect.gen(function*() {
      const { admin, datasetId, ok, reportId, server } = yield* setup
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      const path = new URL(link.link_url).pathname
      const view = () => Effect.map(server.request("GET", path, { headers: { accept: "application/json" } }), (r) => r.body)
      // 1 + 2 + … + 90, every region
      assert.strictEqual(totalOf(yield* view()), 4095)
      assert.strictEqual(totalOf(yield* view()), 4095)
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const token = (yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU" } })).token as string
      const embedded = (yield* server.request("GET", `/embed?token=${encodeURIComponent(token)}`, { headers: { accept: "application/json" } })).body
      assert.isBelow(totalOf(embedded), 4095)
      // A new file: ten orders of 1.
      const reloaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, {
        token: admin,
        body: ["region,amount", ...orders.split("\n").slice(1, 11).map((line) => `${line.split(",")[0]},1`)].join("\n"),
        headers: { "content-type": "text/csv" }
      })
      assert.include([200, 201, 202], reloaded.status, reloaded.text)
      assert.strictEqual(totalOf(yield* view()), 10)
    }))
})
