import { brotliDecompressSync } from 'node:zlib'
import { JAVA_ZONES_PACKED } from './java-zones-data'

/**
 * Time zones as java.text.SimpleDateFormat (under XStream's DateConverter) reads and writes them, from
 * the JDK's own data (java-zones-data.ts, made by scripts/java-zones.sh): the zone strings of
 * DateFormatSymbols for Locale.ENGLISH in their order, which is the order SimpleDateFormat searches
 * them, and each zone's raw and DST offsets as sun.util.calendar.ZoneInfo gives them to
 * GregorianCalendar, by wall time (reading) and by UTC (writing). Before 1900 a Java zone has no
 * history: its raw offset is today's and it keeps no DST; the tables hold that from 1800 on.
 */

/** The end of the tables (2101-01-01T00:00Z): past it, a zone's DST (Java's last rule) is not known here. */
export const TABLES_END = 4_133_980_800_000
const TABLES_START = -5_364_662_400_000
/** 2038-01-01T00:00Z: a zone whose DST still changes after it keeps a yearly rule, which the tables end. */
const LAST_RULE_YEARS = 2_145_916_800_000

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

  /** Whether the offset still changes in the table's last years: a yearly rule that goes on past its end. */
  get ruleAtEnd(): boolean {
    const n = this.times.length
    return n > 0 && this.times[n - 1]! >= LAST_RULE_YEARS
  }
}

export interface JavaZone {
  readonly id: string
  /** Long standard, short standard, long DST and short DST names, as DateFormatSymbols gives them. */
  readonly names: readonly [string, string, string, string]
  /** TimeZone.getDSTSavings(): what a DST name adds to the raw offset. */
  readonly savingsMs: number
  readonly rawByWall: OffsetTable
  readonly dstByWall: OffsetTable
  readonly rawByUtc: OffsetTable
  readonly dstByUtc: OffsetTable
}

interface Packed {
  source: string
  zones: Array<[string, string, string, string, string, number, number, number, number, number]>
  tables: string[]
}

let loaded: { zones: JavaZone[]; byId: Map<string, JavaZone>; source: string } | null = null

/** The zones, unpacked on first use (a microservice that reads no zone name never pays for it). */
function data(): NonNullable<typeof loaded> {
  if (loaded !== null) return loaded
  const packed = JSON.parse(
    brotliDecompressSync(Buffer.from(JAVA_ZONES_PACKED.join(''), 'base64')).toString('utf8')
  ) as Packed
  const tables = packed.tables.map(unpackTable)
  const zones = packed.zones.map(([id, longStd, shortStd, longDst, shortDst, savingsMs, wr, wd, ur, ud]): JavaZone => ({
    id,
    names: [longStd, shortStd, longDst, shortDst],
    savingsMs,
    rawByWall: tables[wr]!,
    dstByWall: tables[wd]!,
    rawByUtc: tables[ur]!,
    dstByUtc: tables[ud]!
  }))
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
  return data().byId.get(id)
}

/** Where the zone data came from (the JDK and its tzdata version). */
export function javaZonesSource(): string {
  return data().source
}
