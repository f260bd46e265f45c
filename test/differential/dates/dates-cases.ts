// The date tests, asked of Java's answers: java.util.Date read from the notations clients write, by
// our beta JSON and beta XML readers and by the real Jackson: every notation reads to the same instant
// as Java's or is refused; none is read where Jackson refuses it, none to another instant. Where we
// refuse what Jackson reads, the notation must be RFC 1123 beyond its exact form (Jackson's lenient
// SimpleDateFormat reads other zones, a wrong day name, trailing text), which is refused rather than
// guessed. XStream's zones, offsets and eras, and both libraries' writing, likewise. dates-oracle.test.ts asks
// the live oracle and keeps the recording current; dates-jackson-recorded.test.ts and
// dates-xstream-recorded.test.ts ask the recording (no JVM: the guard of the mutation module `dates`,
// docs/development.md).
import { test as nodeTest, before, after, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { JavaAnswers, Setup } from '../../helpers/oracle'
import { serializerFor } from '../outcomes'
import { t as types } from '../../../src/microservice/descriptors/descriptors'
import { javaZones, requireJavaZone, type JavaZone } from '../../../src/microservice/serializers/java/zones'
import { JS_DATE_LIMIT_MS } from '../../../src/microservice/serializers/java/epoch-days'
import { defaultSerializers, DEFAULT_READ_LIMITS, type Serializer } from '../../../src/microservice/serializers'

const DATE = types.Date
let oracle: JavaAnswers

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

/** An instant's UTC fields in the proleptic Gregorian calendar (Jackson's fields are Julian before 1582-10-15). */
function iso(ms: number, offsetMinutes = 0): { date: string; time: string; zone: string } {
  const d = new Date(ms + offsetMinutes * 60_000)
  const y = d.getUTCFullYear()
  const sign = offsetMinutes < 0 ? '-' : '+'
  const a = Math.abs(offsetMinutes)
  return {
    date: `${pad(y, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`,
    zone: offsetMinutes === 0 ? 'Z' : `${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`
  }
}

/** RFC 1123 with the local time at an offset and the offset as `±hhmm` (the day's name as JavaScript gives it). */
function rfc1123(ms: number, offsetMinutes: number): string {
  const p = iso(ms, offsetMinutes)
  const local = new Date(ms + offsetMinutes * 60_000).toUTCString().slice(0, 12)
  const [y, mo, d] = p.date.split('-') as [string, string, string]
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][Number(mo) - 1]!
  const zone = p.zone === 'Z' ? 'GMT' : p.zone.replace(':', '')
  return `${local.slice(0, 5)}${d} ${month} ${y} ${p.time.slice(0, 8)} ${zone}`
}

/** The spellings of one instant a client might send (some of which Jackson refuses). */
function notations(ms: number, offset: number): string[] {
  const p = iso(ms, offset)
  const z = p.zone
  return [
    `${p.date}T${p.time}${z}`,
    `${p.date}T${p.time}${z.replace(':', '')}`,
    `${p.date}T${p.time.slice(0, 8)}${z}`,
    `${p.date}T${p.time.slice(0, 5)}${z}`,
    `${p.date}T${p.time}1234${z}`,
    `${p.date}T${p.time}1234567${z}`,
    `${p.date}T${p.time.slice(0, 10)}${z}`,
    `${p.date}T${p.time}`,
    `${p.date}`,
    ` ${p.date}T${p.time}${z} `,
    `${p.date}t${p.time}${z}`,
    `${p.date}T${p.time}${z.toLowerCase() === 'z' ? 'z' : z}`,
    `${p.date} ${p.time}${z}`,
    `${p.date}T${p.time}${z === 'Z' ? '+00' : z.slice(0, 3)}`,
    String(ms),
    new Date(ms).toUTCString(),
    rfc1123(ms, offset)
  ]
}

const FIXED = [
  '',
  'null',
  '1.5',
  '   ',
  '2023-11-14T25:00:00Z',
  '2023-02-29T10:00:00Z',
  '2023-13-01',
  '2024-02-30',
  '2023-11-14T22:13:20.5Z',
  '2023-11-14T22:13:20.1234567890Z',
  '2023-11-14T22:13:20+01',
  '2023-11-14T22:13:20-0530',
  '1500-03-01T00:00:00Z',
  '1582-10-04T12:00:00Z',
  '1582-10-15T00:00:00Z',
  '1582-10-10',
  '0000-01-01T00:00:00Z',
  '0001-01-01',
  '9999-12-31T23:59:59.999Z',
  'Tue, 14 Nov 2023 22:13:20 GMT',
  'Wed, 14 Nov 2023 22:13:20 GMT',
  'Tue, 14 Nov 2023 22:13:20 PST',
  'Tue, 14 Nov 2023 22:13:20 +0100',
  'Tue, 31 Nov 2023 22:13:20 GMT',
  // RFC 1123 as Jackson's lenient SimpleDateFormat reads it (Locale.US, the mapper's zone).
  'Tuesday, 14 Nov 2023 22:13:20 GMT',
  'tue, 14 nov 2023 22:13:20 gmt',
  'Tue, 14 November 2023 22:13:20 GMT',
  'Tue,14 Nov 2023 22:13:20 GMT',
  'Tue, 14  Nov 2023 22:13:20 GMT',
  'Tue,  14 Nov 2023 22:13:20 GMT',
  'Tue, 14 Nov 2023 22:13:20 CET',
  'Tue, 14 Jul 2023 22:13:20 CEST',
  'Tue, 14 Nov 2023 22:13:20 GMT+01:00',
  'Tue, 14 Nov 2023 25:13:20 GMT',
  'Tue, 32 Nov 2023 22:13:20 GMT',
  'Tue, -5 Nov 2023 22:13:20 GMT',
  'Tue, 14 Nov 23 22:13:20 GMT',
  'Tue, 14 Nov 2023 22:13:20 GMTxyz',
  'Tue, 14 Nov 2023 22:13:20',
  'Tue, 14 Nov 2023 22:13 GMT',
  'Tue, 14 Nov 2023 22:13:20 +2400',
  'Tue, 14 Nov 2023 22:13:20 +2359',
  'Tue, 14 Nov 2023 22:13:20 GMT+25:00',
  'Tue, 14 Nov 2023 22:13:20  GMT',
  'Tue, 14 Nov 2023 22:13:20 IST',
  'Tue, 14 Nov 2023 22:13:20 Europe/Paris',
  'Tue, 14 Nov 99999 22:13:20 GMT',
  'Tue, 14 Nov 2023 22:13:20 UTC',
  'Sun, 26 Mar 2023 02:30:00 CET',
  'Sun, 26 Mar 2023 02:30:00 Central European Standard Time',
  'Sun, 26 Mar 2023 02:30:00 CEST',
  'Fri, 01 Jan 1500 00:00:00 GMT',
  'Mon, 15 Oct 1582 00:00:00 GMT',
  'Thu, 04 Oct 1582 23:59:59 GMT',
  'Xyz, 14 Nov 2023 22:13:20 GMT',
  'Tue, 14 Nov 2023 22:13:20 -0000',
  'Tue, 14 Nov 2023 22:13:20 HDT',
  'Tue, 14 Nov 1234567890 22:13:20 GMT',
  '-62135596800000',
  '9223372036854775808',
  '2023-11-14',
  '20231114',
  '2023-1-14',
  '1581-22-20',
  '1575-99-01',
  '1581-22-15T00:00:00Z',
  '1582-10-04T47:00:00Z',
  '1582-09-40',
  '1583-00-00T00:00:00Z',
  '00000000000000000001',
  '0000000000000000001',
  '-0000000000000000000001'
]

/** What we may refuse although Jackson reads it: an RFC 1123 number of ten digits or more (its int overflows). */
function refusedOnPurpose(text: string): boolean {
  return /^[A-Za-z]+, /.test(text.trim()) && /\d{10}/.test(text)
}

type Read = { ms: number | null } | { refused: string }

/** A body read as a Date by one of our serializers: its instant, null, or the refusal. */
function readOurs(serializer: Serializer, body: string): Read {
  try {
    const v = serializer.deserialize(Buffer.from(body), DATE)
    return { ms: v === null ? null : (v as Date).getTime() }
  } catch (err) {
    return { refused: (err as Error).message }
  }
}

/** The same body read by the Java library of `setup`, in `zone` when one is given (else the library's UTC). */
async function readJava(setup: Setup, body: string, zone?: string): Promise<Read> {
  const a = await oracle.ask({ op: 'read', setup, type: { k: 'Date' }, text: body, zone })
  if (a.oracleFailure === true) throw new Error(`the oracle failed: ${a.error ?? ''} ${a.message ?? ''}`)
  if (a.error !== undefined) return { refused: `${a.error}: ${a.message ?? ''}` }
  return { ms: a.value === null || a.value === undefined ? null : Number(a.value) }
}

/** A Date's text as a beta JSON or beta XML body. */
function betaBody(setup: Setup, text: string): string {
  return setup === 'betaJson' ? JSON.stringify(text) : `<Date>${escapeXml(text)}</Date>`
}

function ours(setup: Setup, text: string): Read {
  return readOurs(serializerFor(setup, new Map()), betaBody(setup, text))
}

function java(setup: Setup, text: string): Promise<Read> {
  return readJava(setup, betaBody(setup, text))
}

async function compare(
  texts: readonly string[]
): Promise<{ compared: number; refusedOnPurpose: string[]; wrong: string[] }> {
  const wrong: string[] = []
  const purposeful: string[] = []
  let compared = 0
  for (const setup of ['betaJson', 'betaXml'] as const)
    for (const text of texts) {
      if (setup === 'betaXml' && text.trim() === '') continue // an empty element is Jackson XML's epoch, tested elsewhere
      const [o, j] = [ours(setup, text), await java(setup, text)]
      compared++
      if ('ms' in o && 'ms' in j && o.ms === j.ms) continue
      if ('refused' in o && 'refused' in j) continue
      if ('refused' in o && refusedOnPurpose(text)) {
        purposeful.push(`${setup} ${JSON.stringify(text)}`)
        continue
      }
      wrong.push(`${setup} ${JSON.stringify(text)}: ours ${JSON.stringify(o)}, Jackson's ${JSON.stringify(j)}`)
    }
  return { compared, refusedOnPurpose: purposeful, wrong }
}

/** Each text read by our alpha serializers and by XStream's (both families): the same instant, or both refuse. */
async function compareXStream(
  texts: readonly string[],
  setups: ReadonlyArray<'alphaXml' | 'alphaJson'> = ['alphaXml', 'alphaJson']
): Promise<{ wrong: string[]; compared: number }> {
  const wrong: string[] = []
  let compared = 0
  for (const setup of setups)
    for (const text of texts) {
      const body = setup === 'alphaXml' ? `<date>${escapeXml(text)}</date>` : JSON.stringify({ date: text })
      const o = readOurs(serializerFor(setup, new Map()), body)
      const j = await readJava(setup, body)
      compared++
      if ('ms' in o && 'ms' in j && o.ms === j.ms) continue
      if ('refused' in o && 'refused' in j) continue
      // A Date past what a JavaScript Date holds is refused, saying so (the js-date-range departure).
      if (
        'refused' in o &&
        'ms' in j &&
        Math.abs(j.ms!) > JS_DATE_LIMIT_MS &&
        /outside the range of a JavaScript Date/.test(o.refused)
      )
        continue
      wrong.push(`${setup} ${JSON.stringify(text)}: ours ${JSON.stringify(o)}, XStream's ${JSON.stringify(j)}`)
    }
  return { wrong, compared }
}

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')

/** A zone's local time at an instant, as a number of milliseconds. */
const wallOf = (z: JavaZone, ms: number): number => ms + z.raw(ms, false) + z.dst(ms, false)

/** Instants either side of each change of a zone's DST in `year`, found hour by hour (kept: both zone tests ask). */
const changes = new Map<string, number[]>()
function changesIn(z: JavaZone, year: number): number[] {
  const key = `${z.id} ${year}`
  let out = changes.get(key)
  if (out === undefined) changes.set(key, (out = scanChanges(z, year)))
  return out
}

function scanChanges(z: JavaZone, year: number): number[] {
  const out: number[] = []
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 3_600_000)
    if (z.dst(t, false) !== z.dst(t - 3_600_000, false)) {
      let lo = t - 3_600_000
      let hi = t
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2)
        if (z.dst(mid, false) === z.dst(lo, false)) lo = mid
        else hi = mid
      }
      out.push(lo, hi, wallOf(z, hi))
    }
  return out
}

/** The default serializers of a microservice whose settings.timeZone is `zone`. */
function zonedSerializer(setup: 'alphaXml' | 'alphaJson' | 'betaXml' | 'betaJson', zone: string): Serializer {
  return defaultSerializers(new Map(), DEFAULT_READ_LIMITS, zone)[`${setup}Serializer`]
}

const CHOSEN_ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Asia/Gaza',
  'Pacific/Apia',
  'America/St_Johns',
  'Europe/Dublin',
  'Africa/Casablanca',
  'Antarctica/Troll',
  'Asia/Kathmandu',
  'Europe/Moscow'
]
// And 20 more at random; DATE_ZONES=all for every zone Java knows.
const ZONES =
  process.env.DATE_ZONES === 'all'
    ? javaZones().map((z) => z.id)
    : [...CHOSEN_ZONES, ...fc.sample(fc.constantFrom(...javaZones().map((z) => z.id)), { numRuns: 20, seed: 41 })]

/** The two libraries' tests: XStream's (alpha) name it; the others are Jackson's (beta). The writing
 * test, which writes with both, names XStream and is with its tests. */
export type DateLibrary = 'XStream' | 'Jackson'

/** The date tests registered, and those that passed: a recording is written only when all have. */
const tally = { registered: 0, passed: 0 }
export const allDateTestsPassed = (): boolean => tally.registered > 0 && tally.passed === tally.registered

/**
 * Registers the date tests on the answers `start` gives (before the first runs; closed after the
 * last): every test, or one library's (a mutant of the other's rules need not run them).
 */
export function dateTests(start: () => JavaAnswers, library: DateLibrary | null = null): void {
  const test = (name: string, fn: (t: TestContext) => Promise<void>): void => {
    if (library !== null && (name.includes('XStream') ? 'XStream' : 'Jackson') !== library) return
    tally.registered++
    nodeTest(name, async (t) => {
      await fn(t)
      tally.passed++
    })
  }
  before(() => {
    oracle = start()
  })
  after(() => oracle.close())

  test('Date notations: the same instant as Jackson, or refused; never another instant, never read where Jackson refuses', async (t) => {
    const r = await compare(FIXED)
    assert.deepEqual(r.wrong, [], r.wrong.join('\n'))
    t.diagnostic(`${r.compared} comparisons; refused where Jackson reads: ${r.refusedOnPurpose.join(', ')}`)
  })

  test('random instants from year 0 to 9999, respelled with offsets and fractions, read as Jackson reads them', async (t) => {
    const instants = fc.sample(
      fc.tuple(
        fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }),
        fc.constantFrom(0, 60, -300, 330, 840, -720, 59)
      ),
      // DATE_RUNS=N for a longer run (the note's 100,000-comparison run: DATE_RUNS=3200).
      { numRuns: Number(process.env.DATE_RUNS ?? 60), seed: Number(process.env.DATE_SEED ?? 31) }
    )
    const r = await compare(instants.flatMap(([ms, offset]) => notations(ms, offset)))
    assert.deepEqual(r.wrong, [], r.wrong.slice(0, 20).join('\n'))
    t.diagnostic(
      `${r.compared} comparisons; ${r.refusedOnPurpose.length} refused where Jackson reads (ten-digit RFC 1123 numbers)`
    )
  })

  test('alpha (XStream): zones and offsets read as XStream reads them, or refused; BC in its era form', async (t) => {
    const texts = [
      '0001-01-03 BC 00:00:00.0 UTC',
      '0565-03-26 BC 05:12:26.870 UTC',
      '0004-02-29 BC 00:00:00.0 UTC',
      '0001-01-01 AD 00:00:00.0 UTC',
      '2023-11-14 22:13:20.5 UTC',
      '2023-11-14 22:13:20.5 GMT',
      '2023-11-14 22:13:20.5 utc',
      '2023-11-14 22:13:20.5 Gmt',
      '2023-11-14 22:13:20.5UTC',
      '2023-11-14 22:13:20 UTC',
      '2023-11-14 22:13:20UTC',
      '2023-11-14 22:13:20 gmt',
      '2023-11-14 22:13:20.5 Z',
      '2023-11-14 22:13:20.5 UTCx',
      '2023-11-14 22:13:20.5 UTC+01:00',
      '2023-11-14 22:13:20.5 GMT+01:00',
      '2023-11-14 22:13:20.5 GMT-05:30',
      '2023-11-14 22:13:20.5 GMT+1:00',
      '2023-11-14 22:13:20.5 GMT-5:30',
      '2023-11-14 22:13:20.5 GMT+01:30',
      '2023-11-14 22:13:20.5 GMT-00:00',
      '2023-11-14 22:13:20.5 GMT+01:00x',
      '2023-11-14 22:13:20.5 GMT+1',
      '2023-11-14 22:13:20.5 GMT+01',
      '2023-11-14 22:13:20.5 GMT+0100',
      '2023-11-14 22:13:20.5 GMT+01:0',
      '2023-11-14 22:13:20.5 GMT+23:59',
      '2023-11-14 22:13:20.5 +0100',
      '2023-11-14 22:13:20.5 -0530',
      '2023-11-14 22:13:20.5 +01:00',
      '2023-11-14 22:13:20 GMT+01:00',
      '2023-11-14 22:13:20.5 CET',
      '2023-11-14 10:13:20.5 PM',
      '2023-11-14T22:13:20.500Z',
      '2023-11-14T22:13:20.500+01:00',
      '2023-11-14T22:13Z',
      '2023-11-14T22:13:20+0100',
      '2023-11-14T22:13:20+01',
      '2023-11-14T22:13:20.123456Z',
      '2023-11-14T22:13:20,5Z',
      '2023-11-14',
      '2023-11-14T22:13:20z',
      '2023-11-14T25:13:20Z',
      '2023-11-14T22:13:20.5+01:00',
      '1500-03-01T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '1582-10-15T00:30:00+01:00',
      '1500-03-01 12:00:00.0 GMT+02:00',
      // Zones by name, as SimpleDateFormat searches DateFormatSymbols' zone strings.
      '2023-11-14 22:13:20.5 CET',
      '2023-07-14 22:13:20.5 CET',
      '2023-07-14 22:13:20.5 CEST',
      '2023-11-14 22:13:20.5 CEST',
      '2023-11-14 22:13:20.5 cet',
      '2023-11-14 22:13:20.5  CET',
      '2023-11-14 22:13:20.5 \tCET',
      '2023-11-14 22:13:20.5 CETxyz',
      '2023-11-14 22:13:20.5CET',
      '2023-11-14 22:13:20CET',
      '2023-11-14 22:13:20 \t cet',
      '2023-11-14 22:13:20.5 PST',
      '2023-07-14 22:13:20.5 PDT',
      '2023-11-14 22:13:20.5 Pacific Standard Time',
      '2023-07-14 22:13:20.5 pacific daylight time',
      '2023-11-14 22:13:20.5 Central European Standard Time',
      '2023-11-14 22:13:20.5 EST',
      '2023-11-14 22:13:20.5 IST',
      '2023-11-14 22:13:20.5 BST',
      '2023-11-14 22:13:20.5 JST',
      '2023-11-14 22:13:20.5 AEST',
      '2023-11-14 22:13:20.5 CST',
      '2023-07-14 22:13:20.5 MSD',
      '2023-07-14 22:13:20.5 HDT',
      '1990-07-14 22:13:20.5 MSD',
      '2012-01-01 12:00:00.0 MSK',
      '1920-01-01 12:00:00.0 MSK',
      '1850-01-01 12:00:00.0 MSK',
      '1920-01-01 12:00:00.0 CET',
      '1911-03-10 23:55:00.0 CET',
      '1890-07-01 12:00:00.0 CEST',
      '0100-11-14 22:13:20.5 PST',
      '0001-01-01 BC 22:13:20.5 PST',
      '2023-11-14 22:13:20.5 Réunion Time',
      '2023-11-14 22:13:20.5 RÉUNION TIME',
      '2023-11-14 22:13:20.5 Europe/Berlin',
      '2023-11-14 22:13:20.5 PT',
      // A wall time that a zone skips or repeats, by its standard or DST name or its own offsets.
      '2023-03-26 02:30:00.0 CET',
      '2023-03-26 02:30:00.0 CEST',
      '2023-10-29 02:30:00.0 CET',
      '2023-10-29 02:30:00.0 CEST',
      '2023-03-12 02:30:00.0 PST',
      '1990-03-25 02:30:00.0 MSD',
      '2023-03-26 01:30:00.0 BST',
      // GMT and offsets without milliseconds: "…ssz" looks for GMT where the field begins.
      '2023-11-14 22:13:20 GMT+01:00',
      '2023-11-14 22:13:20GMT+01:00',
      '2023-11-14 22:13:20 +0100',
      '2023-11-14 22:13:20+0100',
      // The calendar's range of an offset: -13 to +14 hours.
      '2023-11-14 22:13:20.5 +1300',
      '2023-11-14 22:13:20.5 -1300',
      '2023-11-14 22:13:20.5 -1301',
      '2023-11-14 22:13:20.5 +1400',
      '2023-11-14 22:13:20.5 +1401',
      '2023-11-14 22:13:20.5 GMT+13:00',
      '2023-11-14 22:13:20.5 GMT-12:59',
      '2023-11-14T22:13:20.5+13',
      '2023-11-14T22:13:20.5-13',
      '2023-11-14T22:13:20.5+14',
      '2023-11-14T22:13:20.5-14',
      '2023-11-14T22:13:20+1230',
      // AM/PM (`….S a`, `…ssa`): right where the field begins, agreeing with the hour.
      '2023-11-14 22:13:20.5 PM',
      '2023-11-14 22:13:20.5 pm',
      '2023-11-14 02:13:20.5 am',
      '2023-11-14 22:13:20.5 PMx',
      '2023-11-14 22:13:20.5  PM',
      '2023-11-14 22:13:20PM',
      '2023-11-14 22:13:20 PM',
      '2023-11-14 12:13:20AM',
      // The era in any case, right where its field begins.
      '2023-11-14 ad 22:13:20.5 UTC',
      '0001-01-01 bc 22:13:20.5 UTC',
      '2023-11-14  AD 22:13:20.5 UTC',
      '0001-01-01 BC 22:13:20 UTC',
      '2023-11-14 AD 22:13:20 UTC',
      // Each field in its range, as the non-lenient calendar checks it: leap years Julian before the
      // cutover (every fourth) and Gregorian after it (not 1700, 1800, 1900; 1600 and 2000 are).
      '2023-02-29 12:00:00.0 UTC',
      '2024-02-29 12:00:00.0 UTC',
      '1900-02-29 12:00:00.0 UTC',
      '2000-02-29 12:00:00.0 UTC',
      '1600-02-29 12:00:00.0 UTC',
      '1700-02-29 12:00:00.0 UTC',
      '1500-02-29 12:00:00.0 UTC',
      '1300-02-29 12:00:00.0 UTC',
      '0003-02-29 12:00:00.0 UTC',
      '0004-02-29 12:00:00.0 UTC',
      '2023-02-28 12:00:00.0 UTC',
      '2023-13-01 12:00:00.0 UTC',
      '2023-00-10 12:00:00.0 UTC',
      '2023-12-31 12:00:00.0 UTC',
      '2023-04-31 12:00:00.0 UTC',
      '2023-04-30 12:00:00.0 UTC',
      '2023-11-00 12:00:00.0 UTC',
      '2023-11-14 24:00:00.0 UTC',
      '2023-11-14 23:60:00.0 UTC',
      '2023-11-14 23:59:60.0 UTC',
      '2023-11-14 23:59:59.999 UTC',
      '2023-11-14 23:59:59.1000 UTC',
      '0000-01-01 12:00:00.0 UTC',
      '0001-01-01 12:00:00.0 UTC',
      // The reform: 1582-10-04 (Julian) was followed by 1582-10-15 (Gregorian); the days between never were.
      '1582-10-04 12:00:00.0 UTC',
      '1582-10-05 12:00:00.0 UTC',
      '1582-10-10 12:00:00.0 UTC',
      '1582-10-14 12:00:00.0 UTC',
      '1582-10-15 12:00:00.0 UTC',
      '1582-09-30 12:00:00.0 UTC',
      '1582-11-01 12:00:00.0 UTC',
      '1581-10-10 12:00:00.0 UTC',
      '1583-10-10 12:00:00.0 UTC',
      '1582-10-05T12:00:00Z',
      '1582-10-04T12:00:00Z',
      // Past what a JavaScript Date holds (Java reads them): refused, never an invalid Date.
      '275760-09-13 00:00:00.0 UTC',
      '275760-09-13 00:00:00.1 UTC',
      '275761-01-01 00:00:00.0 UTC',
      '300000-11-14T22:13:20Z',
      '271822-01-01 BC 00:00:00.0 UTC'
    ]
    const r = await compareXStream(texts)
    assert.deepEqual(r.wrong, [], r.wrong.join('\n'))
    t.diagnostic(`${r.compared} compared`)
  })

  test("XStream: every zone's four names, in winter, in summer and before 1900, read as XStream reads them", async (t) => {
    const texts = javaZones().flatMap((z) =>
      z.names.flatMap((name) => [
        `2023-01-15 12:00:00.0 ${name}`,
        `2023-07-15 12:00:00.0 ${name}`,
        `1850-07-15 12:00:00.0 ${name}`
      ])
    )
    const r = await compareXStream([...new Set(texts)], ['alphaXml'])
    assert.deepEqual(r.wrong, [], r.wrong.slice(0, 20).join('\n'))
    t.diagnostic(`${r.compared} compared (${javaZones().length} zones)`)
  })

  test('random instants written in a random zone by its name, as clients do, read as XStream reads them', async (t) => {
    const zones = javaZones()
    const samples = fc.sample(
      fc.tuple(
        fc.oneof(
          fc.integer({ min: -5_364_662_400_000, max: 4_133_980_799_999 }),
          fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })
        ),
        fc.nat(zones.length - 1),
        fc.constantFrom('short', 'long', 'lower', 'no space', 'no fraction')
      ),
      { numRuns: Number(process.env.DATE_RUNS ?? 60) * 10, seed: Number(process.env.DATE_SEED ?? 31) }
    )
    const alpha = serializerFor('alphaXml', new Map())
    const texts = samples.map(([ms, k, style]) => {
      const z = zones[k]!
      const dst = z.dst(ms, false)
      const local = String(alpha.serialize(new Date(ms + z.raw(ms, false) + dst), DATE)).replace(
        /^<date>|<\/date>$/g,
        ''
      )
      const name = z.names[(style === 'long' ? 0 : 1) + (dst !== 0 ? 2 : 0)]!
      const text = local.replace(/ UTC$/, ` ${style === 'lower' ? name.toLowerCase() : name}`)
      return style === 'no space'
        ? text.replace(/\.\d+ /, '')
        : style === 'no fraction'
          ? text.replace(/\.\d+ /, ' ')
          : text
    })
    const r = await compareXStream(texts, ['alphaXml'])
    assert.deepEqual(r.wrong, [], r.wrong.slice(0, 20).join('\n'))
    t.diagnostic(`${r.compared} compared`)
  })

  test('Dates written as XStream and Jackson write them, byte for byte, from year -9999 to 9999', async (t) => {
    const instants = [
      0,
      5,
      -1,
      1_700_000_000_500,
      -12_219_292_800_000,
      -12_219_292_800_001,
      -62_135_596_800_000,
      -62_135_596_800_001,
      -62_167_219_200_000,
      -62_198_755_200_000,
      -377_705_116_800_000,
      253_402_300_799_999,
      ...fc.sample(fc.integer({ min: -377_705_116_800_000, max: 253_402_300_799_999 }), { numRuns: 40, seed: 7 })
    ]
    const wrong: string[] = []
    let compared = 0
    for (const setup of ['alphaXml', 'alphaJson', 'betaXml', 'betaJson'] as const)
      for (const ms of instants) {
        let ours: string
        try {
          const out = serializerFor(setup, new Map()).serialize(new Date(ms), DATE)
          ours = typeof out === 'string' ? out : Buffer.from(out).toString()
        } catch (err) {
          ours = `refused: ${(err as Error).message}`
        }
        const a = await oracle.ask({ op: 'write', setup, type: { k: 'Date' }, value: ms })
        if (a.oracleFailure === true) throw new Error(`the oracle failed: ${a.message ?? ''}`)
        compared++
        if (a.text !== ours)
          wrong.push(`${setup} ${ms}: ours ${JSON.stringify(ours)}, Java's ${JSON.stringify(a.text ?? a.error)}`)
      }
    assert.deepEqual(wrong, [], wrong.slice(0, 12).join('\n'))
    t.diagnostic(`${compared} writes compared`)
  })

  test('random instants in XStream notation, with offsets and without milliseconds, read as XStream reads them', async (t) => {
    const samples = fc.sample(
      fc.tuple(
        fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }),
        fc.constantFrom(0, 60, -330, 720, -720, 90)
      ),
      { numRuns: Number(process.env.DATE_RUNS ?? 60), seed: Number(process.env.DATE_SEED ?? 31) }
    )
    const alpha = serializerFor('alphaXml', new Map())
    const wrong: string[] = []
    let compared = 0
    for (const [ms, offset] of samples) {
      // XStream's own text for the instant, then the same local time respelled in another zone.
      const utc = String(alpha.serialize(new Date(ms), DATE)).replace(/^<date>|<\/date>$/g, '')
      const local = String(alpha.serialize(new Date(ms + offset * 60_000), DATE)).replace(/^<date>|<\/date>$/g, '')
      const a = Math.abs(offset)
      const sign = offset < 0 ? '-' : '+'
      const hhmm = `${sign}${pad(Math.floor(a / 60))}${pad(a % 60)}`
      const texts = [
        utc,
        utc.replace(/ UTC$/, ' utc'),
        utc.replace(/\.\d+ UTC$/, ' UTC'),
        utc.replace(/\.\d+ UTC$/, 'UTC'),
        local.replace(/ UTC$/, ` GMT${sign}${Math.floor(a / 60)}:${pad(a % 60)}`),
        local.replace(/ UTC$/, ` GMT${hhmm.slice(0, 3)}:${hhmm.slice(3)}`),
        local.replace(/ UTC$/, ` ${hhmm}`),
        new Date(ms).toISOString(),
        new Date(ms + offset * 60_000).toISOString().replace(/Z$/, `${hhmm.slice(0, 3)}:${hhmm.slice(3)}`)
      ]
      for (const text of texts) {
        let o: Read
        try {
          o = { ms: (alpha.deserialize(Buffer.from(`<date>${text}</date>`), DATE) as Date).getTime() }
        } catch (err) {
          o = { refused: (err as Error).message }
        }
        const j = await oracle.ask({ op: 'read', setup: 'alphaXml', type: { k: 'Date' }, text: `<date>${text}</date>` })
        if (j.oracleFailure === true) throw new Error(`the oracle failed: ${j.message ?? ''}`)
        compared++
        const theirs: Read = j.error !== undefined ? { refused: j.error } : { ms: Number(j.value) }
        if ('ms' in o && 'ms' in theirs && o.ms === theirs.ms) continue
        if ('refused' in o && 'refused' in theirs) continue
        wrong.push(`${text}: ours ${JSON.stringify(o)}, XStream's ${JSON.stringify(theirs)}`)
      }
    }
    assert.deepEqual(wrong, [], wrong.slice(0, 12).join('\n'))
    t.diagnostic(`${compared} XStream notations compared`)
  })

  test('a time zone setting: XStream writes and reads in it, byte for byte and instant for instant, as Java does', async (t) => {
    const runs = Number(process.env.DATE_RUNS ?? 60)
    const wrong: string[] = []
    let compared = 0
    for (const zone of ZONES) {
      const z = requireJavaZone(zone)
      // Random instants from 1970 to 2030 (with the millisecond before, and the local time taken as an
      // instant), just before 1900, around year 1, the cutover, the tables' end, and at random.
      const recent = fc.sample(fc.integer({ min: 0, max: 1_900_000_000_000 }), { numRuns: 8, seed: zone.length })
      const instants = [
        ...recent.flatMap((ms) => [ms, ms - 1, wallOf(z, ms)]),
        -2_208_988_800_001,
        -62_135_769_600_000 - z.raw(-62_135_769_600_000, false),
        -62_135_769_600_001,
        -12_219_292_800_000 - z.raw(-12_219_292_800_000, false),
        4_133_980_800_000,
        // The ends of what a JavaScript Date holds, whose local time in the zone can pass them.
        JS_DATE_LIMIT_MS,
        -JS_DATE_LIMIT_MS,
        // Past 2100 the zone follows its last rule: around its changes in 2150 and 9000.
        ...changesIn(z, 2150),
        ...changesIn(z, 9000),
        ...fc.sample(fc.integer({ min: 4_133_980_800_000, max: 253_402_300_799_999 }), { numRuns: runs / 2, seed: 29 }),
        ...fc.sample(fc.integer({ min: -5_364_662_400_000, max: 4_133_980_799_999 }), { numRuns: runs, seed: 17 }),
        ...fc.sample(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), {
          numRuns: runs / 2,
          seed: 19
        })
      ]
      for (const setup of ['alphaXml', 'alphaJson'] as const) {
        const ours = zonedSerializer(setup, zone)
        for (const ms of instants) {
          let text: string
          try {
            text = String(ours.serialize(new Date(ms), DATE))
          } catch (err) {
            text = `refused: ${(err as Error).message}`
          }
          const a = await oracle.ask({ op: 'write', setup, type: { k: 'Date' }, value: ms, zone })
          if (a.oracleFailure === true) throw new Error(`the oracle failed: ${a.message ?? ''}`)
          compared++
          if (a.text !== text) {
            wrong.push(
              `${zone} ${setup} write ${ms}: ours ${JSON.stringify(text)}, Java's ${JSON.stringify(a.text ?? a.error)}`
            )
            continue
          }
          // What Java wrote, read back by both in the same zone.
          const back = readOurs(ours, a.text)
          const theirs = await readJava(setup, a.text, zone)
          compared++
          if (JSON.stringify(back) !== JSON.stringify(theirs) && !('refused' in back && 'refused' in theirs))
            wrong.push(
              `${zone} ${setup} read ${JSON.stringify(a.text)}: ours ${JSON.stringify(back)}, XStream's ${JSON.stringify(theirs)}`
            )
        }
      }
    }
    assert.deepEqual(wrong, [], wrong.slice(0, 20).join('\n'))
    t.diagnostic(`${compared} compared in ${ZONES.length} zones`)
  })

  test('a time zone setting: Jackson reads a date without an offset in it, as Java does', async (t) => {
    const runs = Number(process.env.DATE_RUNS ?? 60)
    const wrong: string[] = []
    let compared = 0
    for (const zone of ZONES) {
      const z = requireJavaZone(zone)
      const walls = [
        // The local times of random instants from 1970 to 2030, and an hour before and half an hour after.
        ...fc
          .sample(fc.integer({ min: 0, max: 1_900_000_000_000 }), { numRuns: 6, seed: zone.length })
          .flatMap((ms) => {
            const w = wallOf(z, ms)
            return [w, w - 3_600_000, w + 1_800_000]
          }),
        ...fc.sample(fc.integer({ min: -5_364_662_400_000, max: 4_133_980_799_999 }), { numRuns: runs, seed: 23 }),
        ...[...changesIn(z, 2150), ...changesIn(z, 9000)].flatMap((ms) => {
          const w = wallOf(z, ms)
          return [w, w - 3_600_000, w + 1_800_000]
        })
      ]
      const texts = walls.flatMap((w) => {
        const p = iso(w)
        // And RFC 1123 with the zone's own names (searched first, as the format's zone).
        const rfc = rfc1123(w, 0).replace(/ GMT$/, '')
        return [
          `${p.date}T${p.time}`,
          `${p.date}T${p.time.slice(0, 5)}`,
          p.date,
          `${p.date}T${p.time}Z`,
          `${rfc} ${z.names[1]}`,
          `${rfc} ${z.names[3]}`
        ]
      })
      for (const setup of ['betaJson', 'betaXml'] as const) {
        const ours = zonedSerializer(setup, zone)
        for (const text of texts) {
          const body = betaBody(setup, text)
          const o = readOurs(ours, body)
          const j = await readJava(setup, body, zone)
          compared++
          if ('ms' in o && 'ms' in j && o.ms === j.ms) continue
          if ('refused' in o && 'refused' in j) continue
          wrong.push(
            `${zone} ${setup} ${JSON.stringify(text)}: ours ${JSON.stringify(o)}, Jackson's ${JSON.stringify(j)}`
          )
        }
      }
    }
    assert.deepEqual(wrong, [], wrong.slice(0, 20).join('\n'))
    t.diagnostic(`${compared} compared in ${ZONES.length} zones`)
  })
}
