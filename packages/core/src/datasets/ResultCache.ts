/**
 * Query results of uploaded datasets, kept while the data they were read
 * from stays the same: a shared report opened by many viewers, or a
 * viewer paging through it, asks the same queries of data that changes
 * only when a new file is loaded. An entry's key names the tenant, the
 * dataset, the load it read (the dataset's `load_id`, new with each file) and the
 * compiled SQL with its bound values, which carry the caller's row-level
 * security and the query's resolved dates; so no caller ever gets rows
 * compiled for another, and a new load is a new key. PostgreSQL datasets
 * are live and never cached.
 *
 * Only what is read to be looked at goes through it (shared pages, embeds,
 * documents: `cached`); the query API answers from the engine each time,
 * so a client, a benchmark or the engine's fair sharing sees real work.
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import type { Row } from "./AnalyticsEngine.ts"

/** A bounded map of results, the least recently used dropped first. */
export interface ResultCache {
  readonly get: (key: string) => ReadonlyArray<Row> | undefined
  readonly set: (key: string, rows: ReadonlyArray<Row>) => void
}

/** Results with more rows than this are not kept (an export's or a table's worth of rows is read again). */
export const maxRows = 5_000

/**
 * A cache of at most `capacity` results holding at most `totalRows` rows in
 * all (rows are what cost memory: the demo report's nine visuals hold about
 * 200), the least recently used dropped first.
 */
export const make = (capacity = 500, totalRows = 100_000): ResultCache => {
  const entries = new Map<string, ReadonlyArray<Row>>()
  let rows = 0
  const drop = (key: string) => {
    rows -= entries.get(key)?.length ?? 0
    entries.delete(key)
  }
  return {
    get: (key) => {
      const found = entries.get(key)
      if (found !== undefined) {
        // most recently used last
        entries.delete(key)
        entries.set(key, found)
      }
      return found
    },
    set: (key, result) => {
      if (result.length > maxRows) return
      drop(key)
      entries.set(key, result)
      rows += result.length
      while (entries.size > capacity || rows > totalRows) drop(entries.keys().next().value!)
    }
  }
}

/** The key of a compiled query of a loaded dataset. */
export const key = (
  dataset: { readonly tenant_id: string; readonly dataset_id: string; readonly load_id: string | null },
  compiled: { readonly sql: string; readonly params: ReadonlyArray<unknown> }
): string => JSON.stringify([dataset.tenant_id, dataset.dataset_id, dataset.load_id, compiled.sql, compiled.params])

/** Whether the queries of an effect may be answered from the cache (off unless `cached` turns it on). */
export const Enabled = Context.Reference<boolean>("@analytics/core/ResultCache/Enabled", { defaultValue: () => false })

/** Lets `effect`'s queries of uploaded datasets be answered from the cache. */
export const cached = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.provideService(effect, Enabled, true)
