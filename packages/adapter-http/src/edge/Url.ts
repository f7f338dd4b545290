/**
 * Small pieces of URL handling shared by the middleware and handlers.
 *
 * @since 0.1.0
 */

/** The path of a request URL, without its query string. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}
