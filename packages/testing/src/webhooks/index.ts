/**
 * Test kit: real HTTPS webhook receivers on loopback.
 *
 * @since 0.1.0
 */
export * as Receiver from "./Receiver.ts"
