/**
 * Poppler's pdfinfo and pdftotext (Debian's poppler-utils), the
 * independent readers exported PDFs are checked with.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Whether poppler is here; with REQUIRE_POPPLER=1 (CI) its absence is an error. */
export const available = existsSync("/usr/bin/pdftotext") && existsSync("/usr/bin/pdfinfo")
if (!available && process.env.REQUIRE_POPPLER === "1") throw new Error("REQUIRE_POPPLER=1 but pdftotext/pdfinfo are missing (apt-get install poppler-utils)")

/** What poppler reads in a PDF: its page count, title and text, laid out as on the page. */
export const read = (bytes: Uint8Array): { readonly pages: number; readonly title: string; readonly text: string } => {
  const dir = mkdtempSync(join(tmpdir(), "pdf-"))
  try {
    const file = join(dir, "document.pdf")
    writeFileSync(file, bytes)
    const info = execFileSync("pdfinfo", [file], { encoding: "utf8" })
    const text = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" })
    return {
      pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]),
      title: /^Title:\s+(.*)$/m.exec(info)?.[1] ?? "",
      text
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
