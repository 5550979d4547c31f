// The marks collapse leaves inside text it kept by its ends: a line, a listing item, a JSON
// string. They name no recall id: the output's own marker does.

/**
 * What collapse puts inside a line too long for the budget, between its start and end (the
 * whole output's marker names the recall id).
 *
 * @example
 * lineCutMark(9000); // ' … (9000 characters of this line omitted) … '
 */
export function lineCutMark(chars: number): string {
  return ` … (${chars} characters of this line omitted) … `;
}

/**
 * What collapse puts after a listing line it cut past the item's identifying part: short,
 * because it is repeated on every item of the listing.
 *
 * @example
 * listingCutMark(850); // ' …(+850 chars)'
 */
export function listingCutMark(chars: number): string {
  return ` …(+${chars} chars)`;
}

/**
 * What collapse puts inside a long string of JSON it kept by its ends.
 *
 * @example
 * stringCutMark(1200); // '… (1200 characters omitted) …'
 */
export function stringCutMark(chars: number): string {
  return `… (${chars} characters omitted) …`;
}
