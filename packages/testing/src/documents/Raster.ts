/**
 * Pages of a PDF as pixels (poppler's pdftoppm, as PPM: no image library
 * needed) and what tests count in them: the connected areas of one exact
 * colour (a chart's bars) and which of a set of colours are present (a
 * pie's slices).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Whether pdftoppm is here. */
export const available = existsSync("/usr/bin/pdftoppm")

/** An image: RGB bytes, row by row. */
export interface Image {
  readonly width: number
  readonly height: number
  readonly rgb: Uint8Array
}

/** A `#rrggbb` colour as its three channels. */
export const channels = (hex: string): readonly [number, number, number] => {
  const h = hex.replace(/^#/, "")
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)]
}

/** Page `page` (from 1) of a PDF rasterised at `dpi`. */
export const page = (pdf: Uint8Array, page: number, dpi = 50): Image => {
  const dir = mkdtempSync(join(tmpdir(), "pdf-raster-"))
  try {
    writeFileSync(join(dir, "document.pdf"), pdf)
    execFileSync("pdftoppm", ["-f", String(page), "-l", String(page), "-r", String(dpi), "-singlefile", join(dir, "document.pdf"), join(dir, "page")])
    return ppm(readFileSync(join(dir, "page.ppm")))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A binary PPM (P6, 8 bits) decoded. */
const ppm = (bytes: Uint8Array): Image => {
  // the header: P6, width, height, maximum value, each after whitespace
  const fields: Array<string> = []
  let at = 0
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(bytes[at]!))) at++
    let field = ""
    while (!/\s/.test(String.fromCharCode(bytes[at]!))) field += String.fromCharCode(bytes[at++]!)
    fields.push(field)
  }
  if (fields[0] !== "P6" || fields[3] !== "255") throw new Error(`Not an 8-bit P6 PPM: ${fields.join(" ")}`)
  const [width, height] = [Number(fields[1]), Number(fields[2])]
  return { width, height, rgb: bytes.subarray(at + 1, at + 1 + width * height * 3) }
}

const matches = (image: Image, i: number, [r, g, b]: readonly [number, number, number]) =>
  image.rgb[i * 3] === r && image.rgb[i * 3 + 1] === g && image.rgb[i * 3 + 2] === b

/** How many pixels are exactly `colour`. */
export const count = (image: Image, colour: string): number => {
  const rgb = channels(colour)
  let n = 0
  for (let i = 0; i < image.width * image.height; i++) if (matches(image, i, rgb)) n++
  return n
}

/** The sizes (in pixels) of the 4-connected areas of exactly `colour` with at least `least` pixels each (text in that colour is smaller). */
export const areas = (image: Image, colour: string, least: number): Array<number> => {
  const rgb = channels(colour)
  const seen = new Uint8Array(image.width * image.height)
  const out: Array<number> = []
  for (let start = 0; start < seen.length; start++) {
    if (seen[start] === 1 || !matches(image, start, rgb)) continue
    let size = 0
    const stack = [start]
    seen[start] = 1
    while (stack.length > 0) {
      const i = stack.pop()!
      size++
      const x = i % image.width
      for (const j of [x > 0 ? i - 1 : -1, x < image.width - 1 ? i + 1 : -1, i - image.width, i + image.width]) {
        if (j >= 0 && j < seen.length && seen[j] === 0 && matches(image, j, rgb)) {
          seen[j] = 1
          stack.push(j)
        }
      }
    }
    if (size >= least) out.push(size)
  }
  return out
}

/** How many pixels of two images of one size differ (what a watermark drawn over the same page changes). */
export const differing = (a: Image, b: Image): number => {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`Images of different sizes: ${a.width}×${a.height} and ${b.width}×${b.height}`)
  let n = 0
  for (let i = 0; i < a.width * a.height; i++) {
    if (a.rgb[i * 3] !== b.rgb[i * 3] || a.rgb[i * 3 + 1] !== b.rgb[i * 3 + 1] || a.rgb[i * 3 + 2] !== b.rgb[i * 3 + 2]) n++
  }
  return n
}

/** Page `page` (from 1) of a PDF as a PNG file at `dpi` (poppler's `pdftoppm -png`), written to `file`: to look at. */
export const pngFile = (pdf: Uint8Array, page: number, file: string, dpi = 72): void => {
  const dir = mkdtempSync(join(tmpdir(), "pdf-png-"))
  try {
    writeFileSync(join(dir, "document.pdf"), pdf)
    execFileSync("pdftoppm", ["-f", String(page), "-l", String(page), "-r", String(dpi), "-png", "-singlefile", join(dir, "document.pdf"), file.replace(/\.png$/, "")])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
