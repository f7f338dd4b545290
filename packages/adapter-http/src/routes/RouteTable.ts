/**
 * The routes served beside the contract's, as one table: each entry names
 * its routes once, with the layer that registers them and what the edge
 * must know of them. The edge's 404/405 answers, the metrics' route
 * templates, the body cap's exceptions, the share pages and the layers
 * served all derive from the table, so adding a set of routes is one entry.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"

/** One set of routes, served unless its layer is `undefined` for the app's options. */
export interface Entry<Options, E, R> {
  /** Its routes as `[method, path]`. */
  readonly routes: ReadonlyArray<readonly [method: string, path: string]>
  /** The layer registering them on the `HttpRouter`; `undefined` when the options leave them out (`GET /metrics` without its options). */
  readonly layer: (options: Options) => Layer.Layer<never, E, R> | undefined
  /** The requests whose route caps its body itself (file uploads): the edge's 1 MiB cap leaves them. */
  readonly ownsBody?: ((method: string, url: string) => boolean) | undefined
  /** The share pages among its requests (the edge neither counts them nor lets a session act there). */
  readonly sharePage?: ((url: string) => boolean) | undefined
}

type ErrorOf<T> = T extends Entry<any, infer E, any> ? E : never
type ServicesOf<T> = T extends Entry<any, any, infer R> ? R : never

/** A table's entry, checked for its options and its layer's types inferred (`as const` keeps them apart). */
export const entry = <Options, E, R>(entry: Entry<Options, E, R>): Entry<Options, E, R> => entry

/** Every route of the table, served or not (the metrics' route templates name them all). */
export const allRoutes = (table: ReadonlyArray<Entry<any, any, any>>): ReadonlyArray<readonly [string, string]> =>
  table.flatMap((entry) => entry.routes)

/** What the app serves of `table` for `options`: the routes, one layer, and the edge's two predicates. */
export const served = <Options, const Table extends ReadonlyArray<Entry<Options, any, any>>>(table: Table, options: Options) => {
  const layers = table.flatMap((entry) => {
    const layer = entry.layer(options)
    return layer === undefined ? [] : [{ entry, layer }]
  })
  const entries = layers.map(({ entry }) => entry)
  return {
    routes: entries.flatMap((entry) => entry.routes),
    layer: Layer.mergeAll(...layers.map(({ layer }) => layer) as [Layer.Layer<never, any, any>]) as Layer.Layer<
      never,
      ErrorOf<Table[number]>,
      ServicesOf<Table[number]>
    >,
    ownsBody: (method: string, url: string) => entries.some((entry) => entry.ownsBody?.(method, url) ?? false),
    sharePage: (url: string) => entries.some((entry) => entry.sharePage?.(url) ?? false)
  }
}
