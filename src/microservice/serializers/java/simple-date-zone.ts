import { javaZone, javaZones, type JavaZone } from './zones'

/**
 * The `z` field of java.text.SimpleDateFormat (JDK 17, Locale.ENGLISH) read as XStream's DateConverter
 * reads it, non-lenient, with the GregorianCalendar's checks that follow (or lenient, as Jackson's RFC
 * 1123 format reads it). Ported from
 * SimpleDateFormat.subParse, subParseNumericZone and subParseZoneString.
 */

/** What the field read: where it ended, and how a wall time (ms as if in UTC) becomes an instant. */
export interface ZoneField {
  end: number
  /** The instant, or null where the non-lenient calendar refuses the time in this zone (a gap, its range). */
  instant(wall: number): number | null
}

const HOUR = 3_600_000
/** GregorianCalendar's bounds of ZONE_OFFSET and DST_OFFSET, checked when the parse sets them. */
const ZONE_OFFSET_MIN = -13 * HOUR
const ZONE_OFFSET_MAX = 14 * HOUR
const DST_OFFSET_MAX = 2 * HOUR

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

/**
 * Reads the zone at `start` (where the field begins: SimpleDateFormat skips spaces and tabs first, but
 * looks for "GMT" at `start` itself, so " GMT+01:00" reads as the zone named GMT). `zone` is the
 * format's own (the converter's) zone, searched first. Null when nothing there is a zone. A lenient
 * format's calendar checks nothing the parse set: no offset's range, no time a zone skips.
 */
export function readZoneField(text: string, start: number, zone: JavaZone, lenient = false): ZoneField | null {
  let pos = start
  while (text[pos] === ' ' || text[pos] === '\t') pos++
  const c = text[pos]
  if (c === undefined) return null
  if (c === '+' || c === '-') return numericZone(text, pos + 1, c === '-' ? -1 : 1, false, lenient)
  if ((c === 'G' || c === 'g') && regionMatches(text, start, 'GMT')) {
    const after = start + 3
    const s = text[after]
    if (s !== '+' && s !== '-') return fixed(after, 0, lenient)
    return numericZone(text, after + 1, s === '-' ? -1 : 1, true, lenient)
  }
  return zoneName(text, pos, zone, lenient)
}

/** `hhmm` (RFC 822) or, after GMT, `h:mm` / `hh:mm`: an offset that ZONE_OFFSET and DST_OFFSET (0) hold. */
function numericZone(text: string, at: number, sign: number, colon: boolean, lenient: boolean): ZoneField | null {
  let i = at
  if (!isDigit(text[i])) return null
  let hours = Number(text[i++])
  if (isDigit(text[i])) hours = hours * 10 + Number(text[i++])
  else if (!colon) return null
  if (hours > 23) return null
  if (colon) {
    if (text[i] !== ':') return null
    i++
  }
  if (!isDigit(text[i]) || !isDigit(text[i + 1])) return null
  const minutes = Number(text.slice(i, i + 2))
  if (minutes > 59) return null
  return fixed(i + 2, sign * (hours * 60 + minutes) * 60_000, lenient)
}

/** A lenient calendar does not check the fields the parse set. */
function fixed(end: number, offset: number, lenient: boolean): ZoneField | null {
  if (!lenient && (offset < ZONE_OFFSET_MIN || offset > ZONE_OFFSET_MAX)) return null
  return { end, instant: (wall) => wall - offset }
}

/**
 * A zone's name, long or short, standard or DST, matched case-insensitively as a prefix of the text:
 * the format's zone first, then the JVM's default (UTC here, as the oracle runs), then every zone in
 * DateFormatSymbols' order. A standard name takes the zone's raw offset and no DST, a DST name the
 * zone's raw offset and its DST savings; where the two names are the same, or the savings are 0, the
 * zone's own offsets at that wall time decide.
 */
function zoneName(text: string, at: number, zone: JavaZone, lenient: boolean): ZoneField | null {
  let matched: JavaZone | null = null
  let index = -1
  for (const candidate of searchOrder(zone)) {
    index = matchNames(text, at, candidate)
    if (index >= 0) {
      matched = candidate
      break
    }
  }
  if (matched === null) return null
  const z = matched
  const names = z.names
  const end = at + names[index]!.length
  const sameName = index <= 1 && equalsIgnoreCase(names[index]!, names[index + 2]!)
  const dst = index >= 2 ? z.savingsMs : 0
  if (sameName || (index >= 2 && dst === 0)) return { end, instant: (wall) => zoneInstant(z, wall, lenient) }
  if (!lenient && dst > DST_OFFSET_MAX) return null
  return {
    end,
    instant: (wall) => {
      const t = wall - z.raw(wall, true) - dst
      // The non-lenient calendar computes the fields again from the instant, with the zone's raw offset there.
      return lenient || t + z.raw(t, false) + dst === wall ? t : null
    }
  }
}

/**
 * A wall time in a zone that decides both offsets (by wall time, as GregorianCalendar asks ZoneInfo):
 * a time the zone skips is refused, as the non-lenient calendar finds its fields changed.
 */
export function zoneInstant(z: JavaZone, wall: number, lenient = false): number | null {
  const t = wall - z.raw(wall, true) - z.dst(wall, true)
  return lenient || t + z.raw(t, false) + z.dst(t, false) === wall ? t : null
}

function* searchOrder(zone: JavaZone): Generator<JavaZone> {
  yield zone
  const utc = javaZone('Etc/UTC')
  if (utc !== undefined) yield utc
  yield* javaZones()
}

/** SimpleDateFormat.matchZoneString: the first of the four names that the text starts with at `at`. */
function matchNames(text: string, at: number, z: JavaZone): number {
  for (let k = 0; k < 4; k++) if (regionMatches(text, at, z.names[k]!)) return k
  return -1
}

/** String.regionMatches(true, at, name, 0, name.length). */
function regionMatches(text: string, at: number, name: string): boolean {
  if (at + name.length > text.length) return false
  for (let k = 0; k < name.length; k++) if (!sameIgnoringCase(text[at + k]!, name[k]!)) return false
  return true
}

function equalsIgnoreCase(a: string, b: string): boolean {
  return a.length === b.length && regionMatches(a, 0, b)
}

/** Character.toUpperCase, then toLowerCase, of single UTF-16 units, as Java compares them. */
function sameIgnoringCase(a: string, b: string): boolean {
  if (a === b) return true
  const ua = upper(a)
  const ub = upper(b)
  return ua === ub || lower(ua) === lower(ub)
}

const upper = (c: string): string => {
  const u = c.toUpperCase()
  return u.length === 1 ? u : c
}
const lower = (c: string): string => {
  const l = c.toLowerCase()
  return l.length === 1 ? l : c
}
