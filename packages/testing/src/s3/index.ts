/**
 * Test kit: a throwaway S3-compatible server for the adapter's tests and
 * for end-to-end tests of a service that keeps results on S3.
 *
 * @since 0.1.0
 */
export * as TestS3Server from "./TestS3Server.ts"
