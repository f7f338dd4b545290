/**
 * Paths on a server's file system in a message (an engine's or a store's
 * naming a temporary file or the data directory): what no answer to a
 * client and no event repeats (decision 0001).
 *
 * @since 0.1.0
 */

/**
 * A path on a file system: absolute POSIX with at least two segments (not
 * one of the API's own routes, nor a URL's path), a Windows drive path, a
 * `file:` URL, or a path relative to a dot directory (`./x`, `../x`,
 * `.data/analytics.duckdb`).
 */
const serverPath = new RegExp(
  [
    String.raw`(?<![\w:/.%-])/(?!v1/|s/|embed\b|api/|metrics\b)[\w.@%+~-]+(?:/[\w.@%+~-]*)+`,
    String.raw`\b[A-Za-z]:\\[^\s"']+`,
    String.raw`\bfile:/`,
    String.raw`(?<![\w/.-])\.(?:\.|[\w-]+)?/[\w.@%+~/-]+`
  ].join("|")
)

/** Whether `text` names a path on a file system. */
export const names = (text: string): boolean => serverPath.test(text)

/** The paths `text` names. */
export const pathsIn = (text: string): ReadonlyArray<string> => Array.from(text.matchAll(new RegExp(serverPath, "g")), (m) => m[0])
