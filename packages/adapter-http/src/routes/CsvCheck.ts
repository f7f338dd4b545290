/**
 * The strict check of an uploaded CSV file (decision 0013, "Upload"),
 * before any engine reads it: RFC 4180 as `csv-parse` reads it without
 * relaxing anything (every field quoted with `"` and closed, `""` inside a
 * quoted field, as many fields on every line as in the header), UTF-8
 * bytes, no NUL character. Lines end with CRLF or LF (a quoted field holds
 * CR and LF as they are). A refusal names its line and what is wrong, never
 * a value of the file (the rows are the tenant's: they go neither to the
 * client's problem nor to the log).
 *
 * Engines read a file as they please: DuckDB's sniffer took an unterminated
 * quote for text (`"EU` stored) and a line of three fields under a header
 * of two for a file of one column named `a,b`; `csv-parse` in the
 * PostgreSQL engine decoded bad UTF-8 as U+FFFD. So the file is read once
 * here, strictly, and the engines are given the delimiter it was read with.
 *
 * @since 0.1.0
 */
import { Csv } from "@analytics/core"
import { parse } from "csv-parse"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"
import { Transform, type TransformCallback, Writable } from "node:stream"
import { pipeline } from "node:stream/promises"

/** Why a file was refused: its line (1 for the header) and what is wrong there, in words without its values. */
export interface Refusal {
  readonly line: number
  /** The field (1 for the first) where the fault is, when the reader knows it. */
  readonly field?: number
  readonly detail: string
}

/** A file that passed: the delimiter it was read with. */
export interface Checked {
  readonly delimiter: string
}

/** The first line of a file (its first 64 KiB at most), for its delimiter. */
const firstLine = async (path: string): Promise<string> => {
  const handle = await Fs.open(path)
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    return new TextDecoder().decode(buffer.subarray(0, bytesRead)).split(/\r?\n/)[0] ?? ""
  } finally {
    await handle.close()
  }
}

/** A refusal thrown through the stream, to tell it from `csv-parse`'s errors. */
class Refused extends Error {
  readonly refusal: Refusal
  constructor(refusal: Refusal) {
    super(refusal.detail)
    this.refusal = refusal
  }
}

/** Bytes decoded as UTF-8, strictly, into text; a NUL or an invalid byte stops the stream, naming its line. */
const strictText = () => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let line = 1
  const see = (text: string) => {
    const nul = text.indexOf("\u0000")
    if (nul >= 0) {
      throw new Refused({ line: line + count(text.slice(0, nul)), detail: "holds a NUL character (U+0000), which no value may contain" })
    }
    line += count(text)
    return text
  }
  const notUtf8 = (chunk?: Uint8Array) => {
    // The line of the first bad byte: the chunk decoded up to each of its line ends in turn.
    let at = line
    if (chunk !== undefined) {
      const probe = new TextDecoder("utf-8", { fatal: true })
      for (let start = 0; start < chunk.length;) {
        const end = chunk.indexOf(10, start)
        const stop = end < 0 ? chunk.length : end + 1
        try {
          probe.decode(chunk.subarray(start, stop), { stream: true })
        } catch {
          break
        }
        if (end >= 0) at++
        start = stop
      }
    }
    return new Refused({ line: at, detail: "is not UTF-8 text" })
  }
  return new Transform({
    readableObjectMode: false,
    decodeStrings: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let text: string
      try {
        text = decoder.decode(chunk, { stream: true })
      } catch {
        return done(notUtf8(chunk))
      }
      try {
        done(null, see(text))
      } catch (refused) {
        done(refused as Error)
      }
    },
    flush(done: TransformCallback) {
      let text: string
      try {
        text = decoder.decode()
      } catch {
        return done(notUtf8())
      }
      try {
        done(null, see(text))
      } catch (refused) {
        done(refused as Error)
      }
    }
  })
}

const count = (text: string): number => {
  let n = 0
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** `csv-parse`'s error codes in words (its own messages repeat the file's values), naming the field when known. */
const csvDetail = (code: string, field?: number): string => {
  const at = field === undefined ? "" : `field ${field}`
  switch (code) {
    case "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH":
      return "has a different number of fields than the header"
    case "INVALID_OPENING_QUOTE":
      return `has a quote inside a field that is not quoted (${at === "" ? "" : `${at}; `}quote the whole field and double the quote)`
    case "CSV_INVALID_CLOSING_QUOTE":
      return `has text after a quoted field's closing quote (${at === "" ? "" : `${at}; `}a quote inside a quoted field is doubled)`
    case "CSV_QUOTE_NOT_CLOSED":
      return `opens a quoted field that is never closed${at === "" ? "" : ` (${at})`}`
    default:
      return `cannot be read as CSV${at === "" ? "" : ` (${at})`}`
  }
}

/**
 * Reads the file at `path` through: `Checked` with its delimiter
 * (`Csv.delimiterOf` of its first line), or the first `Refusal`. Records
 * are counted and dropped as they are read, so a file of any size passes
 * in bounded memory.
 */
export const check = async (path: string): Promise<Checked | Refusal> => {
  const delimiter = Csv.delimiterOf(await firstLine(path))
  let records = 0
  let headerFields = 0
  // The line the last complete record ended on: an unclosed quote opened on the line after it.
  let lastLine = 0
  const parser = parse({
    ...Csv.uploadDialect(delimiter),
    on_record: (record: ReadonlyArray<unknown>, context) => {
      if (records === 0) headerFields = record.length
      records++
      lastLine = context.lines
      // Nothing is kept: the check only reads.
      return null
    }
  })
  try {
    // One pipeline, so the first error of any stage ends it (on_record keeps no record to consume).
    await pipeline(createReadStream(path), strictText(), parser, new Writable({ objectMode: true, write: (_record, _encoding, done) => done() }))
  } catch (error) {
    if (error instanceof Refused) return error.refusal
    const { code, lines, column, record } = error as { readonly code?: unknown; readonly lines?: unknown; readonly column?: unknown; readonly record?: unknown }
    const at = typeof lines === "number" ? lines : lastLine + 1
    const line = code === "CSV_QUOTE_NOT_CLOSED" ? lastLine + 1 : at
    if (code === "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH" && Array.isArray(record)) {
      // Only the count is said, never the fields: the first field past the header's, or the first missing one.
      const found = record.length
      return {
        line,
        field: found > headerFields ? headerFields + 1 : found + 1,
        detail: `${csvDetail(code)} (${found} ${found === 1 ? "field" : "fields"} where the header has ${headerFields})`
      }
    }
    // csv-parse counts fields from 0.
    const field = typeof column === "number" ? column + 1 : undefined
    return {
      line,
      ...(field === undefined ? {} : { field }),
      detail: csvDetail(typeof code === "string" ? code : "", field)
    }
  }
  if (records === 0) return { line: 1, detail: "has no header line" }
  return { delimiter }
}

/** A refusal in words: `Line 3 of the file opens a quoted field that is never closed (field 2)`. */
export const describe = (refusal: Refusal): string => `Line ${refusal.line} of the file ${refusal.detail}; no row was changed`

/** A refusal as the problem's `errors` entry: where in the body, its line and field, and the same words. */
export const issue = (refusal: Refusal) => ({
  path: ["body"],
  line: refusal.line,
  ...(refusal.field === undefined ? {} : { field: refusal.field }),
  message: `Line ${refusal.line} of the file ${refusal.detail}`
})
