/**
 * Writes the demo report's documents to a directory to look at:
 * `node packages/adapter-documents/test/look.ts /tmp/look` writes
 * report.pdf (and page-N.png rasters by pdftoppm), visual-N.png, report.pptx
 * and report.xlsx.
 */
import { BlobStore, Branding } from "@analytics/core"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Pdf from "../src/Pdf.ts"
import * as Png from "../src/Png.ts"
import * as Pptx from "../src/Pptx.ts"
import * as Xlsx from "../src/Xlsx.ts"
import * as Sample from "./sample.ts"

const dir = process.argv[2] ?? "/tmp/look"
mkdirSync(dir, { recursive: true })
const view = Sample.view()
const options = { watermark: null, filters: [], generatedAt: new Date("2026-11-26T09:00:00Z"), branding: Branding.defaults }
const bytes = (stream: ReturnType<typeof Pdf.render>) => Effect.runPromise(BlobStore.collect(stream))

writeFileSync(join(dir, "report.pdf"), await bytes(Pdf.render(view, options)))
execFileSync("pdftoppm", ["-r", "60", "-png", join(dir, "report.pdf"), join(dir, "page")])
writeFileSync(join(dir, "report.pptx"), await bytes(Pptx.render(view, options)))
writeFileSync(join(dir, "report.xlsx"), await bytes(Xlsx.render(view, options)))
for (const [i, v] of view.pages.flatMap((p) => p.visuals).entries()) {
  const one = { ...view, pages: [{ name: "", visuals: [v] }] }
  writeFileSync(join(dir, `visual-${i + 1}.png`), await bytes(Png.render(one, options)))
}
console.log(`written to ${dir}`)
