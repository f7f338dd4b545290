/**
 * The colours charts are drawn in, derived from a deployment's primary
 * colour (its `branding.primary_color`, docs/decisions/0005-records.md): an accent and an
 * 8-colour categorical palette, every mark colour at least 3:1 against a
 * white background and every text colour at least 4.5:1 (WCAG 2 relative
 * luminance), whatever primary colour is configured.
 *
 * @since 0.1.0
 */

/** A chart theme. */
export interface Theme {
  /** The primary colour, darkened until it reaches 3:1 against white: single-series marks. */
  readonly accent: string
  /** Eight distinct colours for series and slices, the accent first, each at least 3:1 against white. */
  readonly palette: ReadonlyArray<string>
  /** A light tint of the accent: the low end of a heatmap's scale. */
  readonly light: string
  /** Titles and values (at least 4.5:1 against white). */
  readonly text: string
  /** Axis labels and legends (at least 4.5:1 against white). */
  readonly mutedText: string
  /** The chart's background. */
  readonly background: string
  /** The same hues for a chart drawn on a dark card (`darkBackgrounds`): what a page in dark mode swaps in. */
  readonly dark: DarkColors
}

/** The mark colours of a theme for a dark card, each in the place of its light counterpart. */
export interface DarkColors {
  /** The accent, lightened until it reaches 3:1 on both dark backgrounds. */
  readonly accent: string
  /** The palette's eight hues, in the same order, each at least 3:1 on both dark backgrounds. */
  readonly palette: ReadonlyArray<string>
  /** A dark tint of the accent, the low end of a heatmap's scale (near the card, as `light` is near white). */
  readonly light: string
}

/**
 * The console's dark card and page colours (its `--analytics-bg` and
 * `--analytics-surface` in dark mode): a dark palette reaches 3:1 on both.
 */
export const darkBackgrounds: ReadonlyArray<string> = ["#121417", "#1b1f24"]

/** The primary colour when none (or an unreadable one) is configured. */
export const defaultPrimaryColor = "#2563eb"

/** The least contrast against the background a mark colour has. */
export const markContrast = 3
/** The least contrast against the background a text colour has. */
export const textContrast = 4.5

type Rgb = readonly [number, number, number]

/** `#rgb` or `#rrggbb` as 0–255 channels, or `undefined`. */
const parseHex = (color: string): Rgb | undefined => {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim())
  if (m === null) return undefined
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1]
  return [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)]
}

const toHex = (rgb: Rgb): string => "#" + rgb.map((c) => Math.round(Math.min(255, Math.max(0, c))).toString(16).padStart(2, "0")).join("")

/** WCAG 2 relative luminance of a colour. */
export const luminance = (color: string): number => {
  const rgb = parseHex(color)
  if (rgb === undefined) throw new Error(`Not a colour: ${color}`)
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** The WCAG 2 contrast ratio of two colours (1 to 21). */
export const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

const toHsl = ([r8, g8, b8]: Rgb): readonly [number, number, number] => {
  const [r, g, b] = [r8 / 255, g8 / 255, b8 / 255]
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const l = (max + min) / 2
  if (max === min) return [0, 0, l]
  const d = max - min
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min)
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4
  return [h * 60, s, l]
}

const fromHsl = (h: number, s: number, l: number): string => {
  const k = (n: number) => (n + h / 30) % 12
  const a = s * Math.min(l, 1 - l)
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))
  return toHex([f(0) * 255, f(8) * 255, f(4) * 255])
}

/** Which way lightness moves to gain contrast: down on a light background, up on a dark one. */
type Direction = -0.01 | 0.01

/**
 * The first colour at hue `h` and saturation `s` that `fits`, its lightness
 * moved from `l` in `step`s; black or white, the end it moved to, when none does.
 */
const first = (h: number, s: number, l: number, step: Direction, fits: (color: string) => boolean): string => {
  for (let light = l; light >= 0 && light <= 1; light += step) {
    const c = fromHsl(h, s, light)
    if (fits(c)) return c
  }
  return step < 0 ? "#000000" : "#ffffff"
}

/** Whether a mark colour reaches `markContrast` on every one of `backgrounds`. */
const readableOn = (backgrounds: ReadonlyArray<string>) => (color: string): boolean =>
  backgrounds.every((b) => contrast(color, b) >= markContrast)

const distance = (a: string, b: string) => {
  const [x, y] = [parseHex(a)!, parseHex(b)!]
  return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2])
}

/**
 * The eighth colour: a slate grey, the first from mid-grey in `step`s that
 * reaches 3:1 and stays at least 60 apart from every other colour (a greyish
 * accent would otherwise resemble it).
 */
const eighth = (others: ReadonlyArray<string>, h: number, backgrounds: ReadonlyArray<string>, step: Direction): string =>
  first(h, 0.12, 0.5, step, (c) => readableOn(backgrounds)(c) && others.every((o) => distance(c, o) >= 60))

/** The hues of the six colours after the accent, as offsets from the primary's: spread around the wheel. */
const offsets = [150, 40, 260, 95, 320, 200]

/**
 * The accent and eight-colour palette of hue `h` on `backgrounds`: the
 * accent the primary colour itself moved until it reads; six hues spread
 * around the wheel, saturated enough to tell apart; the eighth a slate grey,
 * as a hue near the primary's would read as the accent again.
 */
const paletteOn = (hsl: readonly [number, number, number], backgrounds: ReadonlyArray<string>, step: Direction) => {
  const [h, s, l] = hsl
  const readable = readableOn(backgrounds)
  const accent = first(h, s, l, step, readable)
  const saturation = Math.max(s, 0.6)
  const lightness = Math.min(Math.max(l, 0.35), 0.55)
  const seven = [accent, ...offsets.map((o) => first((h + o) % 360, saturation, lightness, step, readable))]
  return { accent, palette: [...seven, eighth(seven, h, backgrounds, step)] }
}

/** A theme from a primary colour (`#2563eb`); an unreadable colour falls back to the default one. */
export const theme = (branding: { readonly primaryColor?: string | undefined } = {}): Theme => {
  const background = "#ffffff"
  const rgb = parseHex(branding.primaryColor ?? defaultPrimaryColor) ?? parseHex(defaultPrimaryColor)!
  const hsl = toHsl(rgb)
  const [h, s] = hsl
  const { accent, palette } = paletteOn(hsl, [background], -0.01)
  const dark = paletteOn(hsl, darkBackgrounds, 0.01)
  return {
    accent,
    palette,
    light: fromHsl(h, Math.min(s, 0.7), 0.93),
    text: "#111827",
    mutedText: "#4b5563",
    background,
    dark: { ...dark, light: fromHsl(h, Math.min(s, 0.5), 0.2) }
  }
}
