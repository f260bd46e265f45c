import { brotliDecompressSync } from 'node:zlib'
import { JAVA_ZONES_PACKED } from './generated/zones-data'
import { DAY, gregorianEpochDay, gregorianYear } from './epoch-days'
import { InternalError } from '../../../common/errors/internal'

/**
 * Time zones as java.text.SimpleDateFormat (under XStream's DateConverter) reads and writes them, from
 * the JDK's own data (generated/zones-data.ts, made by scripts/java-zones.sh): the zone strings of
 * DateFormatSymbols for Locale.ENGLISH in their order, which is the order SimpleDateFormat searches
 * them, and each zone's raw and DST offsets as sun.util.calendar.ZoneInfo gives them to
 * GregorianCalendar, by wall time (reading) and by UTC (writing). Before 1900 a Java zone has no
 * history: its raw offset is today's and it keeps no DST; the tables hold that from 1800 on.
 */

/** The end of the tables (2101-01-01T00:00Z): past it, a zone follows its last rule. */
export const TABLES_END = 4_133_980_800_000
const TABLES_START = -5_364_662_400_000

/** An offset over time: before the first change, the initial value; then each change's value from its time on. */
export class OffsetTable {
  constructor(
    private readonly initial: number,
    private readonly times: Float64Array,
    private readonly values: Int32Array
  ) {}

  /** The offset in milliseconds at `t` (wall or UTC milliseconds, as the table is kept). */
  at(t: number): number {
    const times = this.times
    let lo = 0
    let hi = times.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (times[mid]! <= t) lo = mid + 1
      else hi = mid
    }
    return lo === 0 ? this.initial : this.values[lo - 1]!
  }
}

export interface JavaZone {
  readonly id: string
  /** Long standard, short standard, long DST and short DST names, as DateFormatSymbols gives them. */
  readonly names: readonly [string, string, string, string]
  /** TimeZone.getDSTSavings(): what a DST name adds to the raw offset. */
  readonly savingsMs: number
  /** The raw offset at `t`: a wall time (as GregorianCalendar asks when reading) or an instant (writing). */
  raw(t: number, wall: boolean): number
  /** The DST offset at `t`, likewise. */
  dst(t: number, wall: boolean): number
}

/**
 * ZoneInfo: its transitions (here as tables to 2100), then its last rule, or its last offsets without
 * one. A table is unpacked the first time it is asked.
 */
class Zone implements JavaZone {
  constructor(
    readonly id: string,
    readonly names: readonly [string, string, string, string],
    readonly savingsMs: number,
    private readonly tables: readonly [number, number, number, number],
    private readonly rule: LastRule | null,
    private readonly unpacked: Array<OffsetTable | undefined>,
    private readonly packed: readonly string[]
  ) {}

  raw(t: number, wall: boolean): number {
    if (t < TABLES_END || this.rule === null) return this.table(wall ? 0 : 2).at(t)
    return this.rule.raw
  }

  dst(t: number, wall: boolean): number {
    if (t < TABLES_END || this.rule === null) return this.table(wall ? 1 : 3).at(t)
    return this.rule.dstOf(t, wall)
  }

  private table(k: number): OffsetTable {
    const i = this.tables[k]!
    return (this.unpacked[i] ??= unpackTable(this.packed[i]!))
  }
}

/**
 * UTC, as TimeZone.getTimeZone("UTC") is: no offsets, its names as DateFormatSymbols gives them (a test
 * holds them to the data). XStream's and Jackson's default, so a microservice that keeps it never
 * unpacks the data.
 */
export const UTC: JavaZone = {
  id: 'UTC',
  names: ['Coordinated Universal Time', 'UTC', 'Coordinated Universal Time', 'UTC'],
  savingsMs: 0,
  raw: () => 0,
  dst: () => 0
}

const DOM_MODE = 1
const DOW_IN_MONTH_MODE = 2
const DOW_GE_DOM_MODE = 3
const WALL_TIME = 0
const UTC_TIME = 2

/** One edge of a SimpleTimeZone's rule: mode, month (0-based), day, day of week (1 = Sunday), time, time mode. */
type Edge = readonly [number, number, number, number, number, number]

const edge = (rule: readonly number[], at: number): Edge => rule.slice(at, at + 6) as unknown as Edge

/** java.util.SimpleTimeZone as ZoneInfo consults it past its table (Gregorian years, the rule from its start year). */
class LastRule {
  constructor(
    readonly raw: number,
    private readonly savings: number,
    private readonly startYear: number,
    private readonly start: Edge,
    private readonly end: Edge
  ) {}

  /** ZoneInfo.getOffsets past its table: by wall time, the time less the raw offset, and no DST in a gap. */
  dstOf(t: number, wall: boolean): number {
    const msec = wall ? t - this.raw : t
    const dst = this.offset(msec) - this.raw
    if (wall && dst > 0 && this.offset(msec - dst) === this.raw) return 0
    return dst
  }

  /** SimpleTimeZone.getOffset(long): the raw offset, plus the savings between the year's start and end. */
  private offset(t: number): number {
    const year = gregorianYear(Math.floor((t + this.raw) / DAY))
    if (year < this.startYear) return this.raw
    const start = this.transition(this.start, year, false)
    const end = this.transition(this.end, year, true)
    let inDst: boolean
    if (start <= end) inDst = t >= start && t < end
    else if (t < end) inDst = t >= this.transition(this.start, year - 1, false)
    else inDst = t >= start && t < this.transition(this.end, year + 1, true)
    return inDst ? this.raw + this.savings : this.raw
  }

  /** SimpleTimeZone.getStart / getEnd: the transition's instant in `year`. */
  private transition([mode, month, day, dow, time, timeMode]: Edge, year: number, isEnd: boolean): number {
    let at = time
    if (timeMode !== UTC_TIME) at -= this.raw
    if (isEnd && timeMode === WALL_TIME) at -= this.savings
    let epochDay: number
    if (mode === DOM_MODE) epochDay = daysOf(year, month, day)
    else if (mode === DOW_IN_MONTH_MODE)
      epochDay =
        day > 0
          ? nthDayOfWeek(day, dow, daysOf(year, month, 1))
          : nthDayOfWeek(day, dow, daysOf(year, month + 1, 1) - 1)
    else epochDay = nthDayOfWeek(mode === DOW_GE_DOM_MODE ? 1 : -1, dow, daysOf(year, month, day))
    return epochDay * DAY + at
  }
}

/** Days from 1970-01-01 to a Gregorian date (month 0-based, rolling over; day may be 0). */
function daysOf(year: number, month: number, day: number): number {
  return gregorianEpochDay(year + Math.floor(month / 12), (((month % 12) + 12) % 12) + 1, day)
}

/** BaseCalendar.getNthDayOfWeek: the nth `dow` (1 = Sunday) on or after `day` (n > 0), or on or before it (n < 0). */
function nthDayOfWeek(n: number, dow: number, day: number): number {
  return 7 * n + onOrBefore(n > 0 ? day - 1 : day + 7, dow)
}

/** The `dow` on or before an epoch day (1970-01-01 was a Thursday, day of week 5). */
function onOrBefore(day: number, dow: number): number {
  const dayOfWeek = ((((day + 4) % 7) + 7) % 7) + 1
  return day - ((dayOfWeek - dow + 7) % 7)
}

interface Packed {
  source: string
  zones: Array<[string, string, string, string, string, number, number, number, number, number, number[] | null]>
  tables: string[]
}

let loaded: { zones: JavaZone[]; byId: Map<string, JavaZone>; source: string } | null = null

/** The zones, unpacked on first use (a microservice that reads no zone name never pays for it). */
function data(): NonNullable<typeof loaded> {
  if (loaded !== null) return loaded
  const packed = JSON.parse(
    brotliDecompressSync(Buffer.from(JAVA_ZONES_PACKED.join(''), 'base64')).toString('utf8')
  ) as Packed
  const unpacked = new Array<OffsetTable | undefined>(packed.tables.length)
  const zones = packed.zones.map(
    ([id, longStd, shortStd, longDst, shortDst, savingsMs, wr, wd, ur, ud, rule]): JavaZone =>
      new Zone(
        id,
        [longStd, shortStd, longDst, shortDst],
        savingsMs,
        [wr, wd, ur, ud],
        rule === null ? null : new LastRule(rule[0]!, rule[1]!, rule[2]!, edge(rule, 3), edge(rule, 9)),
        unpacked,
        packed.tables
      )
  )
  loaded = { zones, byId: new Map(zones.map((z) => [z.id, z])), source: packed.source }
  return loaded
}

/** "initial;delta:offset,...": base 36, offsets in seconds, deltas in milliseconds from the change before. */
function unpackTable(text: string): OffsetTable {
  const [initial, rest] = text.split(';') as [string, string | undefined]
  const changes = rest === undefined ? [] : rest.split(',')
  const times = new Float64Array(changes.length)
  const values = new Int32Array(changes.length)
  let t = TABLES_START
  changes.forEach((c, k) => {
    const [delta, value] = c.split(':') as [string, string]
    t += parseInt(delta, 36)
    times[k] = t
    values[k] = parseInt(value, 36) * 1000
  })
  return new OffsetTable(parseInt(initial, 36) * 1000, times, values)
}

/** Every zone, in the order SimpleDateFormat searches their names. */
export function javaZones(): readonly JavaZone[] {
  return data().zones
}

/** The zone of a Java time-zone ID, or undefined when the JDK's data has no such zone. */
export function javaZone(id: string): JavaZone | undefined {
  return id === 'UTC' ? UTC : data().byId.get(id)
}

/** The zone of an ID, or an error that says what IDs look like (TimeZone.getTimeZone would quietly give GMT). */
export function requireJavaZone(id: string): JavaZone {
  const z = javaZone(id)
  if (z === undefined) throw new InternalError('IGW_MICROSERVICE_CONFIG', unknownZone(id))
  return z
}

export function unknownZone(id: string): string {
  return `'${id}' is not a time zone Java knows: use an ID of the tz database, such as UTC, Europe/Berlin or America/New_York`
}

/** Where the zone data came from (the JDK and its tzdata version). */
export function javaZonesSource(): string {
  return data().source
}
