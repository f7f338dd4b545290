/** The few statistics the benchmarks print: medians and rounding for tables. */

/** The median of `values` (the mean of the middle two for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** `n` to one decimal, for a table. */
export const round = (n: number): number => Math.round(n * 10) / 10
