/** The part of `pg` 8's API the benchmark uses (the package ships no types). */
declare module "pg" {
  namespace pg {
    interface Options {
      readonly connectionString: string
      /** Pool size (default 10). */
      readonly max?: number
    }
    interface QueryResult<Row> {
      readonly rows: Array<Row>
      readonly rowCount: number | null
    }
    class Client {
      constructor(options: Options)
      connect(): Promise<void>
      query<Row = Record<string, unknown>>(text: string, values?: ReadonlyArray<unknown>): Promise<QueryResult<Row>>
      end(): Promise<void>
    }
    class Pool {
      constructor(options: Options)
      query<Row = Record<string, unknown>>(text: string, values?: ReadonlyArray<unknown>): Promise<QueryResult<Row>>
      end(): Promise<void>
    }
  }
  export default pg
}
