// beta JSON is read three ways: straight from the bytes (the common documents), with JSON.parse and a
// check against the descriptor, and by the exact reader for everything else. The direct reader must
// never give another answer than the JSON.parse path: whatever it reads, that path reads to the same
// value, with the same members in the same order and the same -0; whatever that path leaves to the
// exact reader, the direct reader leaves too. Checked on what our writer makes, respaced, rewritten
// (members reordered, dropped, repeated; numbers in other forms) and with one byte changed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { t, type Descriptor } from '../../../../../src/microservice/descriptors/descriptors'
import { writeBetaJson } from '../../../../../src/microservice/serializers/beta/beta-json'
import {
  readBetaJsonBytes,
  readBetaJsonParsed
} from '../../../../../src/microservice/serializers/beta/beta-json-reader'
import { readBetaJsonCompiled } from '../../../../../src/microservice/serializers/beta/beta-json-compiled'
import { STAND_ASIDE } from '../../../../../src/microservice/serializers/stand-aside'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../../../src/common/contract/limits'
import { PROFILES, descriptorArb, valueArb } from '../../../../helpers/inputs/arbitraries'
import { respace } from '../../../../helpers/inputs/json-text'

/** A value with its members' order and the sign of zero made visible to deepEqual. */
function ordered(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : v
  if (Array.isArray(v)) return v.map(ordered)
  if (v !== null && typeof v === 'object') return Object.entries(v).map(([k, x]) => [k, ordered(x)])
  return v
}

/** The property: the direct reader agrees with the JSON.parse path or stands aside. Returns whether it read. */
function agrees(text: string, d: Descriptor, limits: ReadLimits = DEFAULT_READ_LIMITS): boolean {
  const direct = readBetaJsonCompiled(Buffer.from(text), d, limits)
  if (direct === STAND_ASIDE) return false
  const parsed = readBetaJsonParsed(text, d, limits)
  if (parsed === STAND_ASIDE) assert.fail(`the direct reader read what the JSON.parse path leaves: ${text}`)
  assert.deepEqual(ordered(direct), ordered(parsed), text)
  return true
}

/** The same value written another way: members shuffled, dropped or repeated, numbers respelled. */
function rewrite(v: unknown, rnd: () => number): string {
  if (typeof v === 'number') {
    const forms = [
      String(v),
      v.toExponential(),
      Number.isInteger(v) ? `${v}.0` : String(v),
      Number.isInteger(v) ? `${v}e0` : v.toPrecision(17),
      v.toFixed(Math.min(20, Math.floor(rnd() * 8))),
      Object.is(v, 0) ? '-0' : String(v)
    ]
    return forms[Math.floor(rnd() * forms.length)]!
  }
  if (Array.isArray(v)) return `[${v.map((x) => rewrite(x, rnd)).join(',')}]`
  if (v !== null && typeof v === 'object') {
    let entries = Object.entries(v)
    const pick = rnd()
    if (pick < 0.15) entries.reverse()
    else if (pick < 0.3) entries = entries.filter(() => rnd() < 0.6)
    else if (pick < 0.4 && entries.length > 0) entries.push(entries[0]!)
    else if (pick < 0.45) entries.push(['unknown', 1])
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${rewrite(x, rnd)}`).join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

const p = PROFILES.betaJsonSerializer
const cases = descriptorArb(p, 3).chain((d) => fc.tuple(fc.constant(d), valueArb(d, p, false)))
const RUNS = Number(process.env.PROPERTY_RUNS ?? 400)

test('what our writer makes, and that respaced: read directly or left to the JSON.parse path, never differently', () => {
  let direct = 0
  fc.assert(
    fc.property(cases, fc.nat(), ([d, v], pick) => {
      const text = writeBetaJson(v, d)
      if (agrees(text, d)) direct++
      agrees(respace(text, pick), d)
    }),
    { numRuns: RUNS }
  )
  // The direct reader is for the common documents (the generated types often hold longs, maps, dates
  // or Objects, which it leaves): it must take a share of them, or it is dead code.
  assert.ok(direct > RUNS / 8, `the direct reader read only ${direct} of ${RUNS}`)
})

test('the same values written otherwise (members reordered, dropped, repeated, unknown; numbers respelled)', () => {
  fc.assert(
    fc.property(cases, fc.integer(), ([d, v], seed) => {
      let s = seed
      const rnd = (): number => ((s = (Math.imul(s, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32
      const plain = JSON.parse(writeBetaJson(v, d)) as unknown
      agrees(rewrite(plain, rnd), d)
    }),
    { numRuns: RUNS * 2 }
  )
})

test('with one byte changed or taken out: the direct reader reads only what the JSON.parse path reads', () => {
  const bytes = '"{}[],:0-+1e.5 \t\n tfnul@$a\\\u00e9\u0001\u2028'
  fc.assert(
    fc.property(cases, fc.nat(), fc.nat(), ([d, v], at, by) => {
      const text = writeBetaJson(v, d)
      const k = at % text.length
      agrees(text.slice(0, k) + bytes[by % bytes.length]! + text.slice(k + 1), d)
      agrees(text.slice(0, k) + text.slice(k + 1), d)
      agrees(text.slice(0, k), d)
    }),
    { numRuns: RUNS * 2 }
  )
})

test('numbers at the edges of the fast path: the same doubles and ints as JSON.parse, or left to it', () => {
  const D = t.list(t.Double)
  const I = t.list(t.Integer)
  const numbers = [
    '0',
    '-0',
    '0.0',
    '-0.0',
    '1e22',
    '1e23',
    '123456789012345',
    '1234567890123456',
    '9007199254740993',
    '0.1',
    '0.3',
    '1.7976931348623157e308',
    '5e-324',
    '2.2250738585072014e-308',
    '1e-22',
    '1e-23',
    '123.456e-5',
    '0.000001',
    '1E+2',
    '1e2',
    '2147483647',
    '2147483648',
    '-2147483648',
    '-2147483649',
    '4294967296',
    '99999999999',
    '00',
    '01',
    '-',
    '1.',
    '.5',
    '1e',
    '1e+',
    '+1',
    '1.5e3',
    '6.5',
    '-6.5',
    // 16 and 17 digits, where summing the digits in a double then dividing once rounds twice.
    '937.7838860031327',
    '920.5836709913149',
    '193.96029953524874',
    '906.03874184863957'
  ]
  let read = 0
  for (const n of numbers) {
    for (const d of [D, I]) {
      for (const text of [`[${n}]`, `[${n},${n}]`, `[ ${n} ]`]) if (agrees(text, d)) read++
    }
  }
  assert.ok(read > 40, `only ${read} read directly`)
  // Where the fast path stands aside, the answer is still JSON.parse's.
  assert.deepEqual(
    readBetaJsonBytes(Buffer.from('[1e23,0.1,2147483648.5]'), D, DEFAULT_READ_LIMITS),
    [1e23, 0.1, 2147483648.5]
  )
})

test('limits: past maxDepth, maxNodes or maxStringLength the direct reader stands aside', () => {
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer, s: t.String })
  const list = t.list(In)
  const text = writeBetaJson(
    Array.from({ length: 50 }, (_, k) => ({ a: k, b: -k, s: `s${k}` })),
    list
  )
  const b = Buffer.from(text)
  for (const limits of [
    { ...DEFAULT_READ_LIMITS, maxNodes: 60 },
    { ...DEFAULT_READ_LIMITS, maxDepth: 1 },
    { ...DEFAULT_READ_LIMITS, maxStringLength: 1 }
  ]) {
    assert.equal(readBetaJsonCompiled(b, list, limits), STAND_ASIDE)
  }
  // The 1 MB benchmark's shape is read directly.
  assert.ok(agrees(text, list))
  assert.equal((readBetaJsonCompiled(b, list, DEFAULT_READ_LIMITS) as unknown[]).length, 50)
})

test('a type tree that shares one type at every level is left to the JSON.parse path, not inlined without end', () => {
  let d: Descriptor = t.object('com.example.L0', { a: t.Integer })
  for (let k = 1; k <= 20; k++) d = t.object(`com.example.L${k}`, { x: d, y: d })
  const text = '{"x":null,"y":null}'
  assert.equal(readBetaJsonCompiled(Buffer.from(text), d, DEFAULT_READ_LIMITS), STAND_ASIDE)
  assert.deepEqual(readBetaJsonBytes(Buffer.from(text), d, DEFAULT_READ_LIMITS), { x: null, y: null })
})

test('what it leaves alone: escapes, BOM, trailing text, longs, maps, recursive types with a long inside', () => {
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
  const Loop: Descriptor = t.object('com.example.Loop', { next: t.list(t.Object()), n: t.long })
  for (const [d, text] of [
    [t.String, '"a\\nb"'],
    [In, '\ufeff{"a":1,"b":2}'],
    [In, '{"a":1,"b":2} x'],
    [t.list(t.long), '[1,2]'],
    [t.map(t.Integer), '{"k":1}'],
    [In, '{"a":1,"__proto__":2}'],
    [Loop, '{"next":[],"n":1}'],
    [t.char, '"ab"']
  ] as const) {
    assert.equal(readBetaJsonCompiled(Buffer.from(text), d, DEFAULT_READ_LIMITS), STAND_ASIDE, text)
  }
})
