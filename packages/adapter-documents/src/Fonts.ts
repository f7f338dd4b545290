/**
 * The font documents are written in: DejaVu Sans, the one charts are drawn
 * in (`Chart.font`), so text measured by Vega fits where the PDF and the
 * PNG print it, and every currency symbol and accented name has a glyph.
 * Found where Linux distributions install it (Debian's fonts-dejavu-core,
 * Alpine's and Fedora's packages).
 *
 * @since 0.1.0
 */
import { existsSync } from "node:fs"
import { join } from "node:path"

/** The family name resvg looks the font up by. */
export const family = "DejaVu Sans"

const directories = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts/ttf-dejavu", "/usr/share/fonts/dejavu-sans-fonts"]

const find = (file: string): string | undefined => {
  for (const dir of directories) {
    const path = join(dir, file)
    if (existsSync(path)) return path
  }
  return undefined
}

/** The TrueType files of the regular, bold and oblique faces, when installed. */
export const files: { readonly regular: string; readonly bold: string; readonly oblique: string } | undefined = (() => {
  const regular = find("DejaVuSans.ttf")
  const bold = find("DejaVuSans-Bold.ttf")
  const oblique = find("DejaVuSans-Oblique.ttf")
  return regular === undefined || bold === undefined || oblique === undefined ? undefined : { regular, bold, oblique }
})()
