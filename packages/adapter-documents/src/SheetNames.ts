/**
 * Excel's sheet names: at most 31 characters, none of `\ / ? * [ ] :`, and
 * unique in a workbook regardless of case. A longer title is cut at a word
 * where it can be and ends with "…", so no name stops mid-word unmarked.
 *
 * @since 0.1.0
 */

/** The most characters Excel allows in a sheet's name. */
export const maxLength = 31

/** `text` within `limit` characters: whole, or cut (at a word when one ends late enough) with "…". */
export const shorten = (text: string, limit: number): string => {
  const chars = [...text]
  if (chars.length <= limit) return text
  const cut = chars.slice(0, limit - 1).join("")
  const space = cut.lastIndexOf(" ")
  // a word boundary in the last third keeps the name readable; earlier, the cut stays where it is
  return `${(space >= (limit * 2) / 3 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/** Names sheets of a workbook, each unique: a name taken again gets " 2", " 3"… within the limit. */
export const namer = () => {
  const taken = new Set<string>()
  return (title: string): string => {
    const base = title.replace(/[\\/?*[\]:]/g, " ").replace(/\s+/g, " ").trim() || "Visual"
    let name = shorten(base, maxLength)
    for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${shorten(base, maxLength - String(i).length - 1)} ${i}`
    taken.add(name.toLowerCase())
    return name
  }
}
