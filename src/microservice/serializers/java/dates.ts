// Java's dates as the two libraries write and read them: XStream's DateConverter (its own forms, its
// zones and eras, the Julian calendar before 1582-10-15) and Jackson 2.14's StdDateFormat (ISO-8601,
// epoch milliseconds, RFC 1123, a lenient calendar). Zones by name come from zones.ts, the zone field
// as SimpleDateFormat reads it from simple-date-zone.ts.
import { ValueError } from '../errors'
import { javaTrim } from './integers'
import { UTC, type JavaZone } from './zones'
import { DAY, JS_DATE_LIMIT_MS, gregorianEpochDay, jsDate } from './epoch-days'
import { readZoneField, zoneInstant, type ZoneField } from './simple-date-zone'

const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n

const pad2 = (n: number): string => String(n).padStart(2, '0')

/**
 * A java.util.Date from Jackson's epoch milliseconds: a long, as Jackson reads it (past the range it
 * refuses); a JavaScript Date holds ±8.64e15 ms, so a time beyond that (year 275760) is refused too.
 */
export function jacksonDate(text: string): Date {
  const ms = BigInt(text)
  if (ms < LONG_MIN || ms > LONG_MAX)
    throw new ValueError(
      `Cannot deserialize value of type \`java.util.Date\` from number ${text.slice(0, 40)}: not a valid long`
    )
  return jsDate(Number(ms)) ?? outsideJsDate(text)
}

/** 1582-10-15T00:00Z: before it, java.util.GregorianCalendar (behind XStream's date format) counts Julian dates. */
const GREGORIAN_CUTOVER = -12_219_292_800_000

/** A day number from the epoch as a Julian calendar date (through the Julian Day Number). */
function julianDate(epochDay: number): [number, number, number] {
  const c = epochDay + 2440588 + 32082
  const d = Math.floor((4 * c + 3) / 1461)
  const e = c - Math.floor((1461 * d) / 4)
  const m = Math.floor((5 * e + 2) / 153)
  return [d - 4800 + Math.floor(m / 10), m + 3 - 12 * Math.floor(m / 10), e - Math.floor((153 * m + 2) / 5) + 1]
}

function julianEpochDay(y: number, mo: number, d: number): number {
  const a = Math.floor((14 - mo) / 12)
  const yy = y + 4800 - a
  const mm = mo + 12 * a - 3
  return d + Math.floor((153 * mm + 2) / 5) + 365 * yy + Math.floor(yy / 4) - 32083 - 2440588
}

/**
 * XStream's DateConverter: `yyyy-MM-dd HH:mm:ss.S z` in its zone (UTC by default), the zone by its
 * short name (standard or DST, as the zone is at that instant); the milliseconds are not padded
 * (five milliseconds are .5); local dates before the Gregorian cutover (1582-10-15) in the Julian calendar, as
 * GregorianCalendar does; an instant before year 1 (UTC) in its era pattern, `yyyy-MM-dd G HH:mm:ss.S z`.
 */
export function xstreamDate(d: Date, zone: JavaZone = UTC): string {
  const ms = d.getTime()
  if (Number.isNaN(ms)) throw new ValueError('invalid Date')
  const dst = zone.dst(ms, false)
  const t = ms + zone.raw(ms, false) + dst
  // The local time can pass what a JavaScript Date holds by the zone's offset: its fields then come
  // from the same date 400 Gregorian years (146,097 days) earlier.
  let y: number, mo: number, day: number
  if (t < GREGORIAN_CUTOVER) [y, mo, day] = julianDate(Math.floor(t / DAY))
  else {
    const shifted = t > JS_DATE_LIMIT_MS
    const local = new Date(shifted ? t - 146_097 * DAY : t)
    ;[y, mo, day] = [local.getUTCFullYear() + (shifted ? 400 : 0), local.getUTCMonth() + 1, local.getUTCDate()]
  }
  // The Julian year 0 is 1 BC.
  const year = String(y > 0 ? y : 1 - y).padStart(4, '0')
  const era = ms >= ERA_START ? '' : y > 0 ? ' AD' : ' BC'
  const tod = ((t % DAY) + DAY) % DAY
  const time = `${pad2(Math.floor(tod / 3_600_000))}:${pad2(Math.floor(tod / 60_000) % 60)}:${pad2(Math.floor(tod / 1000) % 60)}.${tod % 1000}`
  return `${year}-${pad2(mo)}-${pad2(day)}${era} ${time} ${zone.names[dst === 0 ? 1 : 3]}`
}

/** 0001-01-01T00:00Z (Julian): before it XStream writes the era. */
const ERA_START = -62_135_769_600_000

/**
 * XStream's DateConverter reads with non-lenient SimpleDateFormats (Locale.ENGLISH), in its order: the
 * era form `yyyy-MM-dd G HH:mm:ss.S z`, then `yyyy-MM-dd HH:mm:ss.S z`, `…ss.S a`, `…ssz`, `…ss z`, its
 * ISO-8601 forms and `…ssa`. Spaces and tabs before each number and zone are skipped, a number takes
 * all its digits, the era and AM/PM markers stand right where their field begins (any case), each
 * field must be in range (the Julian calendar before 1582-10-15), and text after the last field is
 * ignored (DateFormat.parse stops there). Zones as SimpleDateFormat reads them (simple-date-zone.ts):
 * `±hhmm`, `GMT`, `GMT±h:mm`, and every zone's long and short names from the JDK's data. `zone` is the
 * converter's own (UTC by default), which decides a time written without one.
 */
export function parseXStreamDate(text: string, zone: JavaZone = UTC): Date {
  const fail = (): never => {
    throw new ValueError(`'${text.slice(0, 40)}' is not a date of the form yyyy-MM-dd HH:mm:ss.S UTC`)
  }
  const m = XSTREAM_HEAD.exec(text)
  if (m === null) return xstreamIsoDate(text, fail)
  const pos = m[0].length
  const era = m[4]
  const fraction = /^\.[ \t]*(\d+)/.exec(text.slice(pos))
  if (fraction !== null) {
    // `….S z`, then (without an era) `….S a`: a space, then the field.
    const at = pos + fraction[0].length
    if (text[at] !== ' ') return fail()
    const fields = xstreamFields(m, fraction[1]!)
    return (
      zoned(fields, readZoneField(text, at + 1, zone)) ??
      (era === undefined ? amPm(fields, text, at + 1, zone) : null) ??
      fail()
    )
  }
  if (era !== undefined) return fail()
  // `…ssz`, `…ss z`, `…ssa`.
  const fields = xstreamFields(m, undefined)
  return (
    zoned(fields, readZoneField(text, pos, zone)) ??
    (text[pos] === ' ' ? zoned(fields, readZoneField(text, pos + 1, zone)) : null) ??
    amPm(fields, text, pos, zone) ??
    fail()
  )
}

const XSTREAM_HEAD = /^[ \t]*(\d+)-[ \t]*(\d+)-[ \t]*(\d+)(?: ([Aa][Dd]|[Bb][Cc]))? [ \t]*(\d+):[ \t]*(\d+):[ \t]*(\d+)/

/** The instant of the fields' wall time in the zone read, or null where that zone refuses it. */
function zoned(fields: XStreamFields | null, z: ZoneField | null): Date | null {
  if (fields === null || z === null) return null
  const t = z.instant(fields.wall)
  return t === null ? null : inJsRange(t)
}

/** A Date of `t`, or the refusal of one past what a JavaScript Date holds (Java reads it: never a silent NaN). */
function inJsRange(t: number): Date {
  return jsDate(t) ?? outsideJsDate(String(t))
}

function outsideJsDate(ms: string): never {
  throw new ValueError(`${ms} ms is outside the range of a JavaScript Date (±8.64e15 ms)`)
}

/**
 * The AM/PM marker, right where its field begins: the hour stays HH's, and the non-lenient calendar
 * wants the marker to agree with it. The time is in the converter's zone.
 */
function amPm(fields: XStreamFields | null, text: string, at: number, zone: JavaZone): Date | null {
  if (fields === null) return null
  const marker = text.slice(at, at + 2).toUpperCase()
  if (marker !== (fields.hour < 12 ? 'AM' : 'PM')) return null
  return zoned(fields, { end: at + 2, instant: (wall) => zoneInstant(zone, wall) })
}

interface XStreamFields {
  /** The date and time as wall milliseconds (as if in UTC). */
  wall: number
  hour: number
}

/** The date and time fields of an XStream head (and its fraction), checked as a non-lenient calendar does. */
function xstreamFields(m: RegExpExecArray, fraction: string | undefined): XStreamFields | null {
  const bc = m[4] !== undefined && m[4].toUpperCase() === 'BC'
  const [written, mo, d, h, mi, s] = [m[1], m[2], m[3], m[5], m[6], m[7]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const ms = Number(fraction ?? 0)
  // A year of the era BC as the Julian calendar counts it (1 BC is year 0).
  const y = bc ? 1 - written : written
  const julian = y < 1582 || (y === 1582 && (mo < 10 || (mo === 10 && d < 15)))
  const leap = julian ? ((y % 4) + 4) % 4 === 0 : (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
  if (written < 1 || days === undefined || d < 1 || d > days || h > 23 || mi > 59 || s > 59 || ms > 999) return null
  // The ten days the Gregorian reform skipped do not exist.
  if (y === 1582 && mo === 10 && d >= 5 && d <= 14) return null
  const time = ((h * 60 + mi) * 60 + s) * 1000 + ms
  return { wall: (julian ? julianEpochDay(y, mo, d) : gregorianEpochDay(y, mo, d)) * DAY + time, hour: h }
}

/**
 * XStream's ISO-8601 forms, as its DateConverter was seen to read them: `yyyy-MM-ddTHH:mm[:ss[.S]]`
 * and a zone `Z`, `±hh`, `±hhmm` or `±hh:mm` of which only the hours count (.S is milliseconds, as in
 * its other forms), fields in range; nothing after the zone.
 */
function xstreamIsoDate(text: string, fail: () => never): Date {
  const m = /^(\d+)-(\d+)-(\d+)T(\d+):(\d+)(?::(\d+)(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/.exec(text)
  if (m === null) return fail()
  const zone = m[8]!
  // Its pattern has one X, which reads the hours of an offset only: +01:30 is +01 (measured: 30 minutes
  // off, as XStream reads it), the minutes left as ignored text.
  const hours = zone === 'Z' ? '0' : zone.slice(1, 3)
  // GregorianCalendar's range of ZONE_OFFSET: -13 to +14 hours.
  const offset = offsetOf(zone[0]!, hours)
  if (offset < -13 * 60 || offset > 14 * 60) return fail()
  const head = [m[0], m[1], m[2], m[3], undefined, m[4], m[5], m[6] ?? '0'] as unknown as RegExpExecArray
  const fields = xstreamFields(head, m[7])
  if (fields === null) return fail()
  return inJsRange(fields.wall - offset * 60_000)
}

/** A zone offset in minutes from its sign and its hours and minutes as written. */
function offsetOf(sign: string, hours: string, minutes = '0'): number {
  return (Number(hours) * 60 + Number(minutes)) * (sign === '-' ? -1 : 1)
}

/**
 * Jackson 2.14's StdDateFormat reading a java.util.Date from text, with the mapper's defaults (UTC,
 * lenient): the text trimmed as String.trim() does; "" and "null" are null; text that looks like
 * ISO-8601 (a digit, three more characters, '-', a digit) must match its pattern (`yyyy-MM-dd`, or
 * `yyyy-MM-ddTHH:mm[:ss][.fraction][Z|±hh[[:]mm]]`, at most 9 fraction digits of which 3 count);
 * digits alone are epoch milliseconds; anything else is read as RFC 1123. The fields go through a
 * lenient GregorianCalendar: out-of-range ones roll over (T25:00 is the next day, 02-29 of a common
 * year is March 1st) and dates before 1582-10-15 are Julian. What this cannot read as Jackson does
 * is refused, never guessed.
 */
export function parseJacksonDate(raw: string, zone: JavaZone = UTC): Date | null {
  const text = javaTrim(raw)
  if (text === '' || text === 'null') return null
  if (looksLikeIso(text)) return isoDate(text, zone)
  // Positive digits count only within a long's 19 digits (NumberInput.inLongRange looks at the length).
  if (/^-[0-9]+$/.test(text) || (/^[0-9]+$/.test(text) && text.length <= 19)) return jacksonDate(text)
  return rfc1123Date(text, zone)
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

function looksLikeIso(s: string): boolean {
  return s.length >= 7 && isDigit(s[0]) && isDigit(s[3]) && s[4] === '-' && isDigit(s[5])
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/

function isoDate(s: string, zone: JavaZone): Date {
  const cannot = (why: string): never => {
    throw new ValueError(`Cannot deserialize value of type \`java.util.Date\` from String "${s.slice(0, 40)}": ${why}`)
  }
  // Without an offset the time is in the mapper's zone, at its offsets for that wall time (as a lenient calendar).
  const inZone = (wall: Date | null): Date => {
    if (wall === null) return cannot('outside the range of a JavaScript Date')
    const t = wall.getTime()
    return jsDate(t - zone.raw(t, true) - zone.dst(t, true)) ?? cannot('outside the range of a JavaScript Date')
  }
  if (s.length <= 10) {
    const m = ISO_DATE.exec(s)
    if (m === null) return cannot("not a date of the form 'yyyy-MM-dd'")
    return inZone(lenientCalendar(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 0))
  }
  const m = ISO_TIME.exec(s)
  if (m === null) return cannot("not a date of the form 'yyyy-MM-ddTHH:mm:ss.SSSX'")
  const fraction = m[7] ?? ''
  if (fraction.length > 9) return cannot(`invalid fractional seconds '${fraction}'; can use at most 9 digits`)
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'))
  const local = ((Number(m[4]) * 60 + Number(m[5])) * 60 + Number(m[6] ?? 0)) * 1000 + ms
  const offset = m[8]
  if (offset === undefined) return inZone(lenientCalendar(Number(m[1]), Number(m[2]) - 1, Number(m[3]), local))
  const offsetMinutes =
    offset === 'Z' ? 0 : offsetOf(offset[0]!, offset.slice(1, 3), offset.length >= 5 ? offset.slice(-2) : '0')
  return (
    lenientCalendar(Number(m[1]), Number(m[2]) - 1, Number(m[3]), local, offsetMinutes * 60_000) ??
    cannot('outside the range of a JavaScript Date')
  )
}

const CUTOVER_DAY = GREGORIAN_CUTOVER / DAY

/**
 * A lenient java.util.GregorianCalendar's time (computeTime) for year, month (0-based, rolling over),
 * day of month (rolling over), local milliseconds into that day (any: whole days roll over) and a zone
 * offset. The calendar is chosen by the year as given, before the month rolls it over: Julian for a
 * year before 1582, Gregorian after it; in 1582 Gregorian from the cutover on, else Julian. Null only
 * past the range of a JavaScript Date.
 */
function lenientCalendar(year: number, month: number, day: number, localMs: number, offsetMs = 0): Date | null {
  const y = year + Math.floor(month / 12)
  const mo = (((month % 12) + 12) % 12) + 1
  const days = Math.floor(localMs / DAY)
  const julian = julianEpochDay(y, mo, 1) + day - 1 + days
  const gregorian = gregorianEpochDay(y, mo, 1) + day - 1 + days
  // In 1582 a Julian date is never before its Gregorian namesake, so there is no overlap; a date in
  // the days the reform skipped is taken as Julian ("for compatibility", as the JDK says).
  const epochDay = year < 1582 || (year === 1582 && gregorian < CUTOVER_DAY) ? julian : gregorian
  const ms = epochDay * DAY + (localMs - days * DAY) - offsetMs
  return jsDate(ms)
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const SHORT_WEEKDAYS = WEEKDAYS.map((d) => d.slice(0, 3))
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December'
]
const SHORT_MONTHS = MONTHS.map((m) => m.slice(0, 3))

/**
 * RFC 1123 as Jackson reads it: `new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US)`,
 * lenient, in the mapper's zone. The day and month names, long or short, in any case, right where
 * their field begins; spaces and tabs before a number or the zone skipped; numbers of any size
 * (within nine digits here) that roll over, negative ones too; the day's name not checked (the day of
 * the month wins); the zone as SimpleDateFormat reads it, without the non-lenient checks; text after
 * it ignored.
 */
function rfc1123Date(s: string, zone: JavaZone): Date {
  const refuse = (): never => {
    throw new ValueError(
      `Cannot deserialize value of type \`java.util.Date\` from String "${s.slice(0, 40)}": not a valid representation (formats accepted: "yyyy-MM-dd'T'HH:mm:ss.SSSX", "yyyy-MM-dd'T'HH:mm:ss.SSS", "EEE, dd MMM yyyy HH:mm:ss zzz", "yyyy-MM-dd")`
    )
  }
  let at = nameAt(s, 0, WEEKDAYS, SHORT_WEEKDAYS)?.end ?? refuse()
  const literal = (text: string): void => {
    if (!s.startsWith(text, at)) refuse()
    at += text.length
  }
  const number = (): number => {
    const m = /^[ \t]*(-?)(\d{1,9})(?!\d)/.exec(s.slice(at)) ?? refuse()
    at += m[0].length
    return Number(m[1]! + m[2]!)
  }
  literal(', ')
  const day = number()
  literal(' ')
  const month = nameAt(s, at, MONTHS, SHORT_MONTHS) ?? refuse()
  at = month.end
  literal(' ')
  const year = number()
  literal(' ')
  const hour = number()
  literal(':')
  const minute = number()
  literal(':')
  const second = number()
  literal(' ')
  const z = readZoneField(s, at, zone, true) ?? refuse()
  const wall = lenientCalendar(year, month.index, day, ((hour * 60 + minute) * 60 + second) * 1000) ?? refuse()
  const t = z.instant(wall.getTime())
  return (t === null ? null : jsDate(t)) ?? refuse()
}

/** SimpleDateFormat.matchString: the longest of the long names matching at `at` in any case, else of the short ones. */
function nameAt(
  s: string,
  at: number,
  long: readonly string[],
  short: readonly string[]
): { index: number; end: number } | null {
  for (const names of [long, short]) {
    let best = -1
    for (let k = 0; k < names.length; k++)
      if (
        (best < 0 || names[k]!.length > names[best]!.length) &&
        s.slice(at, at + names[k]!.length).toLowerCase() === names[k]!.toLowerCase()
      )
        best = k
    if (best >= 0) return { index: best, end: at + names[best]!.length }
  }
  return null
}
