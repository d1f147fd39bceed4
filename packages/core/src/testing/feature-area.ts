/** One area of a conformance suite, run under its capability flag or listed, by name, as opted out. */

/**
 * Defines the cases of an area the transport declares, or, when it does not, a block titled
 * "<area>: not declared by <transport>" whose cases check that the lack is real. Nothing is skipped.
 */
export function featureArea(
  transport: string,
  title: string,
  declared: boolean,
  cases: () => void,
  lacks: () => void,
): void {
  if (declared) describe(title, cases);
  else describe(`${title}: not declared by ${transport}`, lacks);
}
