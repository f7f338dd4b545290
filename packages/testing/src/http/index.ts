/**
 * Test kit: the whole service (the application given: `App` from
 * `@analytics/adapter-http`) on a real loopback socket, under the test's
 * clock, with a small client.
 *
 * @since 0.1.0
 */
export * from "./TestServer.ts"
