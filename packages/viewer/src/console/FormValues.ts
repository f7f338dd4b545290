/**
 * A form's values as the contract types them: a `<select>` or a radio
 * group offers a fixed set, and the value it sends is read back as one of
 * that set rather than cast. A value outside it (a page edited by hand) is
 * `undefined`; the caller picks the default, and the service checks anyway.
 *
 * @since 0.1.0
 */

/** `value` when it is one of `options`, else `undefined`. */
export const oneOf = <const T extends string>(value: unknown, options: ReadonlyArray<T>): T | undefined =>
  options.find((option) => option === value)
