/**
 * The analytics engine contract on embedded DuckDB, in memory: every
 * optional capability of the port is there.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { analyticsEngineContract } from "@analytics/testing"

analyticsEngineContract("DuckDB", DuckDbEngine.layer(":memory:"), { csv: true, writeFile: true, listTables: true })
