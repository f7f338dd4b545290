/**
 * Test kit: pages in real headless Chromium (Debian's, through
 * playwright-core) and axe-core's accessibility checks in them.
 *
 * @since 0.1.0
 */
/** The browser: whether it is here, launching it, a page's errors. */
export * as Chromium from "./Chromium.ts"
/** axe-core's checks in a page, under its content security policy. */
export * as Axe from "./Axe.ts"
