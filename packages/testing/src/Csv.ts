/**
 * An independent reader of the CSV files an engine streams: csv-parse, held
 * to RFC 4180 strictly.
 *
 * @since 0.1.0
 */
import { parse } from "csv-parse/sync"

/**
 * The records of an RFC 4180 file: CRLF after every record (the last one's
 * checked on the text, csv-parse accepting a file without it), line breaks
 * only inside quotes, quotes only around whole fields, as many fields in
 * every record; anything else throws.
 */
export const readCsv = (text: string): Array<Array<string>> => {
  if (!text.endsWith("\r\n")) throw new Error("The last record has no CRLF")
  return parse(text, {
    record_delimiter: "\r\n",
    // A bare CR or LF is no record's end here: outside quotes it would be read as text.
    cast: (value, field) => {
      if (!field.quoting && /[\r\n]/.test(value)) throw new Error(`A line break outside quotes in record ${field.records + 1}`)
      return value
    }
  })
}
