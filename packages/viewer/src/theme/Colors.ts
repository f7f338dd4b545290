/**
 * Colour arithmetic for the theme: a brand colour made readable on a
 * light and on a dark background (WCAG contrast of 4.5:1 at least, what
 * axe-core checks), and the text colour that reads on it.
 *
 * @since 0.1.0
 */

/** An sRGB colour, each channel 0 to 255. */
export type Rgb = readonly [number, number, number]

/** `#rgb` or `#rrggbb`, or `undefined`. */
export const parseHex = (hex: string): Rgb | undefined => {
  const match = /^#?([\da-f]{3}|[\da-f]{6})$/i.exec(hex.trim())
  if (match === null) return undefined
  const digits = match[1]!.length === 3 ? [...match[1]!].map((d) => d + d).join("") : match[1]!
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as unknown as Rgb
}

/** `#rrggbb`. */
export const toHex = (rgb: Rgb): string => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`

/** WCAG relative luminance. */
export const luminance = (rgb: Rgb): number => {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }) as unknown as Rgb
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export const contrast = (a: Rgb, b: Rgb): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

/** `a` moved towards `b` by `t` (0 to 1). */
const mix = (a: Rgb, b: Rgb, t: number): Rgb => a.map((c, i) => c + (b[i]! - c) * t) as unknown as Rgb

/** `color`, moved towards `towards` in small steps until it reads on `background` at `ratio`. */
export const readableOn = (color: Rgb, background: Rgb, towards: Rgb, ratio = 4.5): Rgb => {
  for (let t = 0; t <= 1; t += 0.05) {
    const candidate = mix(color, towards, t)
    if (contrast(candidate, background) >= ratio) return candidate
  }
  return towards
}

/** Black or white, whichever reads better on `background`. */
export const textOn = (background: Rgb): Rgb =>
  contrast(background, [255, 255, 255]) >= contrast(background, [17, 17, 17]) ? [255, 255, 255] : [17, 17, 17]
