/**
 * The translation check (docs/guides/console.md, "Another language"): the
 * viewer's words are all in `src/i18n/en.ts`, so a translation of its keys
 * covers every screen. Read statically from the sources, without a browser:
 *
 * - every key of `en` is used by some source file (no dead keys): named in
 *   quotes, or matched by a template literal such as `export.failed.${kind}`;
 * - a `msg("key", { … })` call supplies each `{param}` of the string, and
 *   no other; a string with params is never asked for without them. A
 *   choice of literal keys (`msg(on ? "a.on" : "a.off", { … })`) must give
 *   each key's params. Keys built at run time and params that are not an
 *   object literal are not judged;
 * - a translation (another file in `src/i18n`) has only `en`'s keys, each
 *   string with the params of the English one;
 * - the Lit templates (html`…`) hold no literal words in a text node or in
 *   `aria-label`, `title`, `placeholder` or `alt`: those are interpolated
 *   (`${msg(…)}`). Symbols (×, –, …) and entities pass.
 *
 * The scanners are tested on planted sources, so the check can fail.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { basename, dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { en } from "../src/i18n/en.ts"

const srcDir = fileURLToPath(new URL("../src", import.meta.url))

/** The files of src/i18n that are code; the others are words (`en.ts` and the translations). */
const i18nCode = new Set(["msg.ts", "Time.ts"])

/** Every `.ts` file under `dir`, but the words themselves (a translation names every key, used or not). */
const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => basename(dirname(file)) !== "i18n" || i18nCode.has(basename(file)))
    .sort()

const sources: ReadonlyArray<{ readonly file: string; readonly text: string }> = sourceFiles(srcDir).map((file) => ({
  file: relative(srcDir, file),
  text: readFileSync(file, "utf8")
}))

/** Where a quoted string or template literal starting at `start` ends (the index after its closing quote). */
const skipQuoted = (text: string, start: number): number => {
  const quote = text[start]
  let i = start + 1
  while (i < text.length && text[i] !== quote) {
    if (text[i] === "\\") i += 2
    else if (quote === "`" && text.startsWith("${", i)) i = skipBraces(text, i + 1)
    else i++
  }
  return i + 1
}

/** Where the braces opening at `start` close (the index after `}`), strings and templates inside skipped. */
const skipBraces = (text: string, start: number): number => {
  let depth = 0
  let i = start
  while (i < text.length) {
    const c = text[i]
    if (c === "\"" || c === "'" || c === "`") {
      i = skipQuoted(text, i)
      continue
    }
    if (c === "/" && text[i + 1] === "/") {
      i = text.indexOf("\n", i)
      if (i < 0) return text.length
      continue
    }
    if (c === "{") depth++
    else if (c === "}" && --depth === 0) return i + 1
    i++
  }
  return i
}

/** The literal parts of each html`…` template in `text`, an expression between two parts. */
export const templates = (text: string): ReadonlyArray<ReadonlyArray<string>> => {
  const found: Array<Array<string>> = []
  const tag = /\bhtml`/g
  for (let match = tag.exec(text); match !== null; match = tag.exec(text)) {
    const parts: Array<string> = []
    let part = ""
    let i = match.index + match[0].length
    while (i < text.length && text[i] !== "`") {
      if (text[i] === "\\") {
        part += text.slice(i, i + 2)
        i += 2
      } else if (text.startsWith("${", i)) {
        parts.push(part)
        part = ""
        const end = skipBraces(text, i + 1)
        // a template nested in the expression is scanned from its own match
        i = end
      } else part += text[i++]
    }
    parts.push(part)
    found.push(parts)
  }
  return found
}

/** The attributes whose words a person reads. */
const readAttributes = new Set(["aria-label", "title", "placeholder", "alt"])

/** Symbols a template may hold as they are. */
export const allowed: ReadonlySet<string> = new Set(["×", "–", "—", "…", "·", "→", "←", "/", ":", "%", "+", "(", ")", ",", ".", "*"])

/** Whole attribute values that are not words to translate (a URL's scheme as a placeholder). */
export const allowedValues: ReadonlySet<string> = new Set(["https://"])

/** Whether a literal piece holds a word rather than symbols: entities and allowed symbols taken out, a letter remains. */
const holdsWord = (piece: string): boolean =>
  /\p{L}/u.test([...piece.replace(/&#?\w+;/g, " ")].filter((c) => !allowed.has(c)).join(""))

/** The literal words in one template's parts: text nodes and read attributes, as "text: …" or "title: …". */
export const literalWords = (parts: ReadonlyArray<string>): ReadonlyArray<string> => {
  const hole = "\u0000"
  const markup = parts.join(hole).replace(/<!--[\s\S]*?-->/g, "")
  const words: Array<string> = []
  let i = 0
  let skipUntil: string | undefined
  while (i < markup.length) {
    const open = markup.indexOf("<", i)
    const text = markup.slice(i, open < 0 ? markup.length : open)
    if (skipUntil === undefined && holdsWord(text.replaceAll(hole, " "))) words.push(`text: ${text.replaceAll(hole, "${…}").trim()}`)
    if (open < 0) break
    // the tag: its name, then attributes until `>` outside quotes
    let j = open + 1
    let tagText = ""
    while (j < markup.length && markup[j] !== ">") {
      if (markup[j] === "\"" || markup[j] === "'") {
        const close = markup.indexOf(markup[j], j + 1)
        const end = close < 0 ? markup.length : close + 1
        tagText += markup.slice(j, end)
        j = end
      } else tagText += markup[j++]
    }
    const name = /^\/?([\w-]+)/.exec(tagText)?.[1]?.toLowerCase()
    if (skipUntil !== undefined) {
      if (tagText.toLowerCase() === `/${skipUntil}`) skipUntil = undefined
    } else {
      if (name === "style" || name === "script") skipUntil = name
      for (const attr of tagText.matchAll(/([\w.:?@-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
        const value = attr[3] ?? attr[4] ?? attr[5] ?? ""
        if (readAttributes.has(attr[1].toLowerCase()) && !allowedValues.has(value) && holdsWord(value.replaceAll(hole, " "))) {
          words.push(`${attr[1]}: ${value.replaceAll(hole, "${…}")}`)
        }
      }
    }
    i = j + 1
  }
  return words
}

/** The keys a source names: quoted keys, and keys a template literal of the same shape matches. */
export const usedKeys = (text: string, keys: ReadonlyArray<string>): ReadonlySet<string> => {
  const used = new Set<string>()
  const quoted = new Set<string>()
  for (const m of text.matchAll(/["'`]([\w.-]+)["'`]/g)) quoted.add(m[1])
  const shapes: Array<RegExp> = []
  for (const m of text.matchAll(/`([\w.-]*\$\{[^`]*)`/g)) {
    const shape = m[1].split(/\$\{[^}]*\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[\\w.-]+")
    if (/^[\w.\\-]*\[\\w\.-\]\+/.test(shape) && /[a-z]/.test(shape.split("[")[0] ?? "")) shapes.push(new RegExp(`^${shape}$`))
  }
  for (const key of keys) if (quoted.has(key) || shapes.some((s) => s.test(key))) used.add(key)
  return used
}

/** One key a `msg` call asks for: the params it names, `"none"` without any, `undefined` when they are not an object literal (not judged). */
export interface Call {
  readonly key: string
  readonly params: ReadonlyArray<string> | undefined | "none"
  /** One of a choice of keys: its params may be there for another of them. */
  readonly choice?: true
}

/** The top-level pieces of `text` between commas (strings, templates and brackets skipped). */
const topLevel = (text: string): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  let depth = 0
  let piece = ""
  for (let k = 0; k < text.length; k++) {
    const c = text[k]
    if (c === "\"" || c === "'" || c === "`") {
      const close = skipQuoted(text, k)
      piece += text.slice(k, close)
      k = close - 1
      continue
    }
    if ("([{".includes(c)) depth++
    else if (")]}".includes(c)) depth--
    if (c === "," && depth === 0) {
      pieces.push(piece)
      piece = ""
    } else piece += c
  }
  pieces.push(piece)
  return pieces.map((p) => p.trim()).filter((p) => p !== "")
}

/** Where the parenthesis opening at `start` closes (the index after `)`). */
const skipParens = (text: string, start: number): number => {
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (c === "\"" || c === "'" || c === "`") {
      i = skipQuoted(text, i) - 1
      continue
    }
    if (c === "(") depth++
    else if (c === ")" && --depth === 0) return i + 1
  }
  return text.length
}

/**
 * The keys the `msg` calls in `text` ask for: a literal key, or each key
 * of `keys` a choice between literals names (`msg(on ? "a.on" : "a.off", …)`);
 * keys built at run time are not judged.
 */
export const calls = (text: string, keys: ReadonlySet<string>): ReadonlyArray<Call> => {
  const found: Array<Call> = []
  const call = /\bmsg\(/g
  for (let m = call.exec(text); m !== null; m = call.exec(text)) {
    const open = m.index + m[0].length - 1
    const args = topLevel(text.slice(open + 1, skipParens(text, open) - 1))
    const first = args[0] ?? ""
    const literal = /^"([\w.-]+)"$/.exec(first)
    const named = literal !== null
      ? [literal[1]]
      : first.includes("`")
      ? []
      : [...first.matchAll(/"([\w.-]+)"/g)].map((k) => k[1]).filter((k) => keys.has(k))
    const second = args[1]
    const params: Call["params"] = second === undefined
      ? "none"
      : !second.startsWith("{")
      ? undefined
      : ((props) => props.some((p) => p.startsWith("...")) ? undefined : props.map((p) => /^["']?([\w$]+)["']?/.exec(p)?.[1] ?? p))(
        topLevel(second.slice(1, -1))
      )
    for (const key of named) found.push(literal !== null ? { key, params } : { key, params, choice: true })
  }
  return found
}

/** What is wrong with a call to `key` given the string it names. */
export const paramFaults = (c: Call, text: string): ReadonlyArray<string> => {
  const wanted = [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))]
  if (c.params === undefined) return []
  const given = c.params === "none" ? [] : c.params
  return [
    ...wanted.filter((p) => !given.includes(p)).map((p) => `${c.key}: {${p}} is not supplied`),
    ...given.filter((p) => c.choice !== true && !wanted.includes(p)).map((p) => `${c.key}: ${p} is supplied but the string has no {${p}}`)
  ]
}

/** What is wrong with a translation: keys `en` lacks, and strings whose params are not the English string's. */
export const translationFaults = (translation: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const params = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort().join(",")
  return Object.entries(translation).flatMap(([key, text]) => {
    const english = (en as Record<string, string>)[key]
    if (english === undefined) return [`${key} is not a key of en.ts`]
    if (typeof text !== "string") return [`${key} is not a string`]
    return params(text) === params(english) ? [] : [`${key}: params {${params(text)}} where English has {${params(english)}}`]
  })
}

const keys = Object.keys(en)
const keySet: ReadonlySet<string> = new Set(keys)

describe("the translation check", () => {
  it("every key of en.ts is used by some source file", () => {
    const used = new Set(sources.flatMap((s) => [...usedKeys(s.text, keys)]))
    const dead = keys.filter((k) => !used.has(k))
    assert.deepStrictEqual(dead, [], `keys no source uses: ${dead.join(", ")}`)
  })

  it("every msg call names keys of en.ts and supplies their params", () => {
    const faults = sources.flatMap((s) =>
      calls(s.text, keySet).flatMap((c) => {
        const text = (en as Record<string, string>)[c.key]
        return text === undefined ? [`${s.file}: ${c.key} is not a key`] : paramFaults(c, text).map((f) => `${s.file}: ${f}`)
      })
    )
    assert.deepStrictEqual(faults, [])
    assert.isAbove(sources.reduce((n, s) => n + calls(s.text, keySet).length, 0), 100, "the scan sees the calls")
  })

  it("the viewer's Lit templates hold no literal words", () => {
    const found = sources.flatMap((s) => templates(s.text).flatMap((parts) => literalWords(parts).map((w) => `${s.file}: ${w}`)))
    assert.deepStrictEqual(found, [])
    assert.isAbove(sources.reduce((n, s) => n + templates(s.text).length, 0), 100, "the scan sees the templates")
  })

  it("a translation (another file in src/i18n) has en's keys only, each with its params", async () => {
    const dir = join(srcDir, "i18n")
    const faults: Array<string> = []
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "en.ts" && !i18nCode.has(f))) {
      const module = await import(join(dir, file)) as Record<string, unknown>
      for (const [name, value] of Object.entries(module)) {
        if (typeof value === "object" && value !== null) faults.push(...translationFaults(value as Record<string, unknown>).map((f) => `${file} ${name}: ${f}`))
      }
    }
    assert.deepStrictEqual(faults, [])
  })
})

describe("the scanners themselves", () => {
  const scan = (source: string) => templates(source).flatMap(literalWords)

  it("find a planted literal in a text node and in each read attribute", () => {
    assert.deepStrictEqual(scan("const a = html`<p>Loading the report…</p>`"), ["text: Loading the report…"])
    assert.deepStrictEqual(scan("html`<p>${n} rows</p>`"), ["text: ${…} rows"])
    assert.deepStrictEqual(scan("html`<div aria-label=\"Pages\">${x}</div>`"), ["aria-label: Pages"])
    assert.deepStrictEqual(scan("html`<input placeholder='Search' title=${t}>`"), ["placeholder: Search"])
    assert.deepStrictEqual(scan("html`<img alt=Logo src=${s}>`"), ["alt: Logo"])
    assert.deepStrictEqual(scan("html`<label for=\"${id}-from\">${title} from</label>`"), ["text: ${…} from"])
    assert.deepStrictEqual(scan("html`<ul>${items.map((i) => html`<li>Item ${i}</li>`)}</ul>`"), ["text: Item ${…}"])
  })

  it("pass interpolations, symbols, entities, other attributes and styles", () => {
    assert.deepStrictEqual(
      scan(
        "html`<p class=\"state ${s}\" role=\"status\" aria-label=${msg(\"a.b\")}>${msg(\"c\", { n: `${x}` })}</p><span aria-hidden=\"true\">–</span><button>×</button>&nbsp;<style>p { color: red }</style>`"
      ),
      []
    )
  })

  it("see keys quoted and in template literals, and the params of calls", () => {
    assert.deepStrictEqual([...usedKeys("msg(\"a.b\") + msg(`export.failed.${kind}`)", ["a.b", "a.c", "export.failed.network", "export.x"])], ["a.b", "export.failed.network"])
    const keys = new Set(["a", "b", "c", "d.on", "d.off"])
    assert.deepStrictEqual(calls("msg(\"a\", { seconds, name: user.name, \"x\": f(1, 2) }) msg(\"b\") msg(\"c\", p)", keys), [
      { key: "a", params: ["seconds", "name", "x"] },
      { key: "b", params: "none" },
      { key: "c", params: undefined }
    ])
    assert.deepStrictEqual(calls("msg(kind === \"new\" ? \"d.on\" : \"d.off\", { n }) msg(`e.${k}` as MessageKey)", keys), [
      { key: "d.on", params: ["n"], choice: true },
      { key: "d.off", params: ["n"], choice: true }
    ])
    assert.deepStrictEqual(paramFaults({ key: "k", params: ["name"] }, "Wait {seconds} for {name}"), ["k: {seconds} is not supplied"])
    assert.deepStrictEqual(paramFaults({ key: "k", params: "none" }, "Hi {name}"), ["k: {name} is not supplied"])
    assert.deepStrictEqual(paramFaults({ key: "k", params: ["extra"] }, "Hi"), ["k: extra is supplied but the string has no {extra}"])
    assert.deepStrictEqual(paramFaults({ key: "k", params: ["extra"], choice: true }, "Hi"), [])
    assert.deepStrictEqual(translationFaults({ "viewer.loading": "Chargement du rapport…", "viewer.filters.from": "{titre} du", "no.such": "x" }), [
      "viewer.filters.from: params {titre} where English has {title}",
      "no.such is not a key of en.ts"
    ])
  })
})
