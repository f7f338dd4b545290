/**
 * The stores a suite runs on over HTTP: memory, PGlite, and PostgreSQL when
 * the run has one (a throwaway database each time); without it, the
 * PostgreSQL case is registered skipped, saying why.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type * as App from "../src/App.ts"

/** A store's name and how to make it for one test. */
export type StoreUnderTest = readonly [name: string, stores: () => Layer.Layer<App.Stores, unknown>]

/** Memory, PGlite, and PostgreSQL when the run has one. */
export const everyStore: ReadonlyArray<StoreUnderTest> = [
  ["memory", () => MemoryStores.layer],
  ["PGlite", () => SqlStores.layerPglite()],
  ...(databaseUrl === "" ? [] : [["PostgreSQL", () => Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url))))] as const])
]

/** Registers `suite` once per store, named `<title> (<store>)`; a skipped PostgreSQL case when the run has none. */
export const onEveryStore = (title: string, suite: (stores: () => Layer.Layer<App.Stores, unknown>) => void): void => {
  for (const [name, stores] of everyStore) describe(`${title} (${name})`, () => suite(stores))
  if (databaseUrl === "") describe(`${title} (PostgreSQL)`, () => it.skip(`on PostgreSQL ${skippedForNoPostgres}`, () => {}))
}
