/**
 * @analytics/viewer: the report viewer of the share and embed pages, as
 * Lit web components bundled by Vite (work in progress: the components land
 * with the viewer page).
 *
 * @since 0.1.0
 */
export {}
