/**
 * The keyset clause of the newest-first lists (`created_at DESC, id ASC`):
 * rows strictly after the position a cursor carries.
 *
 * @since 0.1.0
 */
import type { Pagination } from "@analytics/core"
import type * as SqlClient from "effect/sql/SqlClient"

/**
 * `AND …` selecting the rows after `query.after` (nothing without one), on
 * columns `timeColumn` (`created_at` by default) and `idColumn`, qualified
 * by `table` when given. The redundant inclusive bound lets the index seek
 * to the page.
 */
export const afterNewestFirst = (
  sql: SqlClient.SqlClient,
  query: Pagination.PageQuery,
  idColumn: string,
  table?: string,
  timeColumn = "created_at"
) => {
  if (query.after === undefined) return sql.literal("")
  const at = new Date(query.after.value)
  const created = sql.literal(table === undefined ? timeColumn : `${table}.${timeColumn}`)
  const id = sql.literal(table === undefined ? idColumn : `${table}.${idColumn}`)
  return sql`AND ${created} <= ${at} AND (${created} < ${at} OR (${created} = ${at} AND ${id} > ${query.after.id}))`
}
