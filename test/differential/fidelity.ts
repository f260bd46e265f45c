// The differential property: for random types (a universe of them, compiled by the oracle once) and
// random values, in each setup, our serializer and Java's write the same bytes (or both refuse), read
// those bytes to the same value (or both refuse), and read a client's other notation of them the same
// way. A refusal of ours must be one of our error classes (400 BAD_ARGUMENT at the gateway), never a
// TypeError. Differences that are Java's known bugs are in DEPARTURES, each checked for what it claims;
// how two answers are compared is in outcomes.ts.
import fc from 'fast-check'
import { typeName, type Descriptor } from '../../src/microservice/descriptors/descriptors'
import type { Serializer } from '../../src/microservice/serializers'
import { scriptKey, valueArb, type Profile } from '../helpers/inputs/arbitraries'
import { SETUPS, classesOf, specOf, toWire, type Oracle, type Setup, type Variant, type Wire } from '../helpers/oracle'
import { javaSources, makeUniverse, type Universe } from './universe'
import { mutationArb, type Mutation } from './notations'
import { DEPARTURES, OPEN, type Checked } from './departures'
import { descriptorToJson, type DescriptorJson } from './descriptor-json'
import { DECODER, agree, javaOutcome, ours, serializerFor, type Outcome } from './outcomes'

/** Strings that reach every Unicode category, the controls, surrogate pairs and markup. */
const MARKUP = ['<', '>', '&', '"', "'", '\\', '/', ']]>', '</', '&amp;', '&#x41;', '\r', '\n', '\r\n', '\t', ' ']
const SPECIAL = ['\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u009f', '\u00a0', '\u2028', '\u2029', '\ufeff']
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...MARKUP) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL, '\ufffe', '\uffff', '\ud83d\ude00', '\u{10ffff}') }
)
const bmpChar = fc
  .oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0xffff }))
  .map((c) => String.fromCharCode(c))

export const ORACLE_PROFILE: Profile = {
  char: () => true,
  localDate: true,
  nullItems: true,
  nullTextFields: true,
  nestedLists: true,
  xmlKeys: false,
  text: fc.string({ unit, maxLength: 14 }),
  char1: fc.oneof(bmpChar, fc.constantFrom('<', '&', '>', '"', "'", '\\', ' ', '\r', '\u0000', 'a')),
  key: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/), fc.string({ unit, maxLength: 5 }), scriptKey),
  date: fc.oneof(
    // Years 1000 to 9999, where most dates are; then the whole range a Date holds that XStream can
    // write (years 292,269,054 BC to AD 292,278,994), around the Gregorian switch and year 0.
    {
      weight: 4,
      arbitrary: fc.date({
        min: new Date('1000-01-01T00:00:00Z'),
        max: new Date('9999-12-31T23:59:59Z'),
        noInvalidDate: true
      })
    },
    { weight: 1, arbitrary: fc.integer({ min: -8.2e15, max: 8.2e15 }).map((ms) => new Date(ms)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: -12_300_000_000_000, max: -12_200_000_000_000 }).map((ms) => new Date(ms))
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: -62_200_000_000_000, max: -62_100_000_000_000 }).map((ms) => new Date(ms))
    }
  )
}

/** A difference no departure explains: everything needed to see it and to make it again. */
export interface Difference {
  readonly setup: Setup
  readonly direction: Checked['direction']
  readonly kind: string
  readonly type: string
  readonly descriptor: DescriptorJson
  readonly sources: Record<string, string>
  readonly value: Wire
  readonly input: string | null
  readonly java: Outcome
  readonly ours: Outcome
}

export class DifferenceError extends Error {
  constructor(readonly difference: Difference) {
    super(
      `${difference.setup} ${difference.direction} (${difference.kind}) of ${difference.type} differs from Java\n` +
        `${JSON.stringify(difference, null, 1)}`
    )
  }
}

export interface FidelityOptions {
  runs: number
  seed: number
  /** Root types a universe holds; every run draws one of them. */
  roots?: number
  /** Runs per universe (one compile each). */
  perUniverse?: number
  /** Differences go here instead of failing the run (to survey them all at once). */
  collect?: Difference[]
  /** Called after each universe, for progress. */
  progress?: (done: number, report: FidelityReport) => void
}

export interface FidelityReport {
  runs: number
  universes: number
  /** Comparisons made, by setup and direction. */
  checks: Record<string, number>
  /** Differences explained by a departure, by its id. */
  departures: Record<string, number>
  /** Differences of a class found and not fixed yet (departures.ts OPEN), by its id. */
  open: Record<string, number>
  /** Agreements: the same value or text, or the same kind of refusal. */
  agreed: { values: number; refusals: number }
}

interface Case {
  setup: Setup
  root: number
  value: unknown
  mutation: Mutation | null
}

/** The Java source of the classes a type reaches, superclasses included: what a found case needs. */
function relatedSources(u: Universe, d: Descriptor): Record<string, string> {
  const reached = classesOf(d)
  for (const name of [...reached.keys()]) {
    for (let p = u.parents.get(name); p !== undefined; p = u.parents.get(p.className)) classesOf(p, reached)
  }
  return javaSources(reached, u.parents)
}

export async function runFidelity(oracle: Oracle, o: FidelityOptions): Promise<FidelityReport> {
  const report: FidelityReport = {
    runs: 0,
    universes: 0,
    checks: {},
    departures: {},
    open: {},
    agreed: { values: 0, refusals: 0 }
  }
  const perUniverse = o.perUniverse ?? 500
  const roots = o.roots ?? 60
  for (let done = 0; done < o.runs; done += perUniverse) {
    const seed = (o.seed + report.universes * 7919) >>> 0
    const u = makeUniverse(seed, roots)
    report.universes++
    const compiled = await oracle.ask({ op: 'compile', sources: u.sources, aliases: Object.fromEntries(u.aliases) })
    if (compiled.error !== undefined) throw new Error(`the test types did not compile: ${compiled.message}`)
    const serializers = new Map(SETUPS.map((s) => [s, serializerFor(s, u.aliases)]))
    const caseArb: fc.Arbitrary<Case> = fc
      .tuple(fc.constantFrom(...SETUPS), fc.nat(u.roots.length - 1))
      .chain(([setup, root]) =>
        valueArb(u.roots[root]!, ORACLE_PROFILE, false).chain((value) => {
          const text = ours(
            () => serializers.get(setup)!.serialize(value, u.roots[root]!),
            (b) => ({ text: typeof b === 'string' ? b : DECODER.decode(b) })
          ).text
          const format = setup.includes('Xml') ? 'xml' : 'json'
          return (text === undefined ? fc.constant(null) : mutationArb(text, format)).map((mutation) => ({
            setup,
            root,
            value,
            mutation
          }))
        })
      )
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        await check(oracle, u, serializers.get(c.setup)!, c, report, o.collect)
      }),
      { numRuns: Math.min(perUniverse, o.runs - done), seed, endOnFailure: false }
    )
    report.runs += Math.min(perUniverse, o.runs - done)
    o.progress?.(report.runs, report)
  }
  return report
}

async function check(
  oracle: Oracle,
  u: Universe,
  s: Serializer,
  c: Case,
  report: FidelityReport,
  collect: Difference[] | undefined
): Promise<void> {
  const d = u.roots[c.root]!
  const spec = specOf(d)
  const wire = toWire(c.value, d)
  const written = ours(
    () => s.serialize(c.value, d),
    (b) => ({ text: typeof b === 'string' ? b : DECODER.decode(b) })
  )
  const read = (text: string): Outcome =>
    ours(
      () => s.deserialize(Buffer.from(text, 'utf8'), d),
      (v) => ({ value: toWire(v, d) })
    )
  const inputs: Array<{ direction: Checked['direction']; kind: string; text: string }> = []
  if (written.text !== undefined) inputs.push({ direction: 'read', kind: 'own', text: written.text })
  if (c.mutation !== null) inputs.push({ direction: 'notation', kind: c.mutation.kind, text: c.mutation.text })
  // Java 1.4.20 cannot read alpha JSON root collections back; 1.4.21's reading is asked beside it
  // (an Object root may hold a collection at run time).
  const trap =
    c.setup.startsWith('alphaJson') && (d.kind === 'list' || d.kind === 'array' || d.kind === 'map' || d.kind === 'any')
  const variant = `${c.setup}~1.4.21` as Variant
  const answers = await oracle.batch([
    { op: 'write', setup: c.setup, type: spec, value: wire },
    ...inputs.flatMap((i) => [
      { op: 'read' as const, setup: c.setup, type: spec, text: i.text },
      ...(trap ? [{ op: 'read' as const, setup: variant, type: spec, text: i.text }] : [])
    ])
  ])
  const step = trap ? 2 : 1
  const judge = (
    direction: Checked['direction'],
    kind: string,
    input: string | null,
    o: Outcome,
    j: Outcome,
    v?: Outcome
  ): void => {
    const key = `${c.setup} ${direction}`
    report.checks[key] = (report.checks[key] ?? 0) + 1
    if (agree(o, j, d)) {
      if (o.error === undefined) report.agreed.values++
      else report.agreed.refusals++
      return
    }
    const checked: Checked = {
      setup: c.setup,
      direction,
      kind,
      descriptor: d,
      value: wire,
      input,
      java: j,
      ours: o,
      agrees: (x) => agree(o, x, d),
      readOurs: read,
      agreeing: (a, b) => agree(a, b, d),
      ...(v === undefined ? {} : { variant: v })
    }
    const departure = o.crash === true ? undefined : DEPARTURES.find((x) => x.applies(checked))
    if (departure !== undefined) {
      report.departures[departure.id] = (report.departures[departure.id] ?? 0) + 1
      return
    }
    const open = o.crash === true ? undefined : OPEN.find((x) => x.applies(checked))
    if (open !== undefined) {
      report.open[open.id] = (report.open[open.id] ?? 0) + 1
      return
    }
    const difference: Difference = {
      setup: c.setup,
      direction,
      kind,
      type: typeName(d),
      descriptor: descriptorToJson(d),
      sources: relatedSources(u, d),
      value: wire,
      input,
      java: j,
      ours: o
    }
    if (collect === undefined) throw new DifferenceError(difference)
    collect.push(difference)
  }
  judge('write', 'value', null, written, javaOutcome(answers[0]))
  inputs.forEach((i, k) =>
    judge(
      i.direction,
      i.kind,
      i.text,
      read(i.text),
      javaOutcome(answers[1 + k * step]),
      trap ? javaOutcome(answers[2 + k * step]) : undefined
    )
  )
}
