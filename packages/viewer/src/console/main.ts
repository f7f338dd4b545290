/**
 * The console's entry: defines `<analytics-console>`, which the shell page
 * holds. Its screens are separate chunks, loaded when first shown.
 *
 * @since 0.1.0
 */
import "./Shell.ts"
