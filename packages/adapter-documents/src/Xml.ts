/**
 * Escaping text for XML and SVG.
 *
 * @since 0.1.0
 */

/** Escapes text for XML content and attribute values. */
export const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&apos;")
