/** Calendar arithmetic in days from 1970-01-01, for any year (a JavaScript Date stops at ±100,000,000 days). */

export const DAY = 86_400_000

/** What a JavaScript Date holds: ±8.64e15 ms from the epoch. */
export const JS_DATE_LIMIT_MS = 8.64e15

/** A Date of `ms`, or null past what a JavaScript Date holds (never a silent Invalid Date). */
export function jsDate(ms: number): Date | null {
  return Math.abs(ms) > JS_DATE_LIMIT_MS ? null : new Date(ms)
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1–12, year 0 is 1 BC; the day may roll over). */
export function gregorianEpochDay(y: number, mo: number, d: number): number {
  const yy = mo <= 2 ? y - 1 : y
  const era = Math.floor(yy / 400)
  const yoe = yy - era * 400
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/** The proleptic Gregorian year of an epoch day. */
export function gregorianYear(epochDay: number): number {
  const z = epochDay + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  return yoe + era * 400 + (mp >= 10 ? 1 : 0)
}
