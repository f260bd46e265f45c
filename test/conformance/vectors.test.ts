// Every variant-null case of vectors/vectors.json (a copy of the shared reference vectors, see
// vectors/PROVENANCE.md; made by the real XStream, Jettison
// and Jackson), both directions: serialize must give the exact bytes (or fail where Java fails);
// deserialize must give the value (or fail where Java fails); and the bytes of a serialize case
// must read back to the value wherever Java's own round trip did.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { t, type Descriptor } from '../../src/microservice/descriptors/descriptors'
import {
  createAlphaXmlSerializer,
  createAlphaJsonSerializer,
  createBetaJsonSerializer,
  createBetaXmlSerializer,
  type Serializer
} from '../../src/microservice/serializers'
import { ValueError } from '../../src/microservice/serializers/errors'
import { SyntaxErrorAt } from '../../src/common/errors/syntax'
import {
  In,
  Out,
  Outer,
  Holder,
  ANY,
  ALPHA_ALIASES,
  descriptorOf,
  fromVector,
  toVector,
  cleanVector,
  parseTypeTree,
  typeTreeOf
} from './types'

interface Case {
  id: number
  variant: string | null
  family: 'alpha' | 'beta'
  format: 'xml' | 'json'
  direction: 'serialize' | 'deserialize'
  setup: string
  javaType: string
  description: string
  value: unknown
  serialized: string | null
  error: string | null
  roundTrip?: { equal: boolean; value: unknown; typeTree: string | null; error: string | null }
  resultJavaType?: string | null
  resultTypeTree?: string | null
}

// The tests run compiled from dist/test/conformance; the vectors stay in the source tree.
const VECTORS = join(__dirname, '..', '..', '..', 'test', 'conformance', 'vectors', 'vectors.json')
const VECTORS_SHA256 = '3bd931a42855418be3cf330b28c44eca58812e61fa9120aebebe918da358623d'
const raw = readFileSync(VECTORS)
const data = JSON.parse(raw.toString('utf8')) as { cases: Case[] }
const primary = data.cases.filter((c) => c.variant === null)

/** What the suite must cover; a change to the vectors or to the filter shows here, not as fewer silent passes. */
const EXPECTED = {
  primary: 396,
  serialize: 332,
  deserialize: 58,
  javaErrors: 25,
  roundTrips: 254,
  typeTrees: 298,
  exceptions: 6
}

/** Java refused: ours must refuse with one of its own error classes, never a TypeError from a bug. */
function isRefusal(err: unknown): boolean {
  return err instanceof ValueError || err instanceof SyntaxErrorAt
}

/**
 * Cases that cannot hold as Java wrote them, each with the reason; each is still asserted, against
 * the behaviour the reason names. Nothing else is left out.
 */
const TRAP =
  'XStream 1.4.20 with Jettison 1.5.3 misreads its own root collections (NOTES.md "VERSION TRAP": Object[]{2,3} comes back as Object[]{Object[]{2,3}}). We read them as XStream 1.4.21 does (Jettison rootElementArrayWrapper=false), so our own output round-trips; asserted against the value of variant jettison-1.5.4+rootElementArrayWrapper=false.'
const EXCEPTIONS: Record<number, string> = {
  489: TRAP,
  490: TRAP,
  491: TRAP,
  493: TRAP,
  494: TRAP,
  480: "ForbiddenClassException: XStream refuses com.example.In without allowTypes. Our allowlist is the method's descriptors: a parameter declared In may be read as In (asserted), and an Object slot that does not list In refuses it (asserted)."
}
const variantValue = new Map(
  data.cases
    .filter((c) => c.variant === 'jettison-1.5.4+rootElementArrayWrapper=false' && c.direction === 'deserialize')
    .map((c) => [c.description, c.value])
)

function serializerFor(c: Case): Serializer {
  if (c.family === 'alpha') {
    const aliases = /alias\("in"|same aliases/.test(c.setup) ? ALPHA_ALIASES : new Map<string, string>()
    return c.format === 'xml' ? createAlphaXmlSerializer(aliases) : createAlphaJsonSerializer(aliases)
  }
  if (c.format === 'json') return createBetaJsonSerializer({ pretty: c.setup.includes('INDENT_OUTPUT') })
  const root = /withRootName\("([^"]+)"\)/.exec(c.setup)
  return createBetaXmlSerializer(root === null ? {} : { rootName: root[1]! })
}

/** Java's runtime types of values held in Object slots, from any case of the same value whose round trip held. */
const trees = new Map<string, string>()
for (const c of data.cases) {
  if (c.roundTrip?.equal === true && c.roundTrip.typeTree !== null)
    trees.set(c.description.replace(' [no alias]', ''), c.roundTrip.typeTree)
}

function valueFor(c: Case, d: Descriptor): unknown {
  const desc = c.description
  if (/SAME In|same instance|shared In instance/.test(desc)) {
    const x = { a: 2, b: 3 }
    if (d.kind === 'array') return [t.typed(In, x), t.typed(In, x)]
    return [t.typed(In, x), t.typed(Outer, { inner: x, name: 'x' })]
  }
  if (d === Holder) {
    const v = c.value as { value: unknown; items: number[] }
    const value = typeof v.value === 'object' ? t.typed(In, fromVector(v.value, In)) : v.value
    return {
      value,
      items: desc.includes('LinkedList') ? t.typed(t.list(t.Integer, 'java.util.LinkedList'), v.items) : v.items
    }
  }
  const tree = trees.get(desc.replace(' [no alias]', ''))
  return fromVector(c.value, d, tree === undefined ? null : parseTypeTree(tree))
}

function deserializeDescriptor(c: Case): Descriptor {
  // XStream infers the type from the root element: read into Object with every example class allowed.
  if (c.javaType.startsWith('(inferred')) return ANY
  return descriptorOf(c.javaType)
}

const counts = { serialize: 0, deserialize: 0, roundTrips: 0, typeTrees: 0, javaErrors: 0, exceptions: 0 }

test('the vectors are the recorded copy', () => {
  assert.equal(createHash('sha256').update(raw).digest('hex'), VECTORS_SHA256)
  assert.equal(primary.length, EXPECTED.primary)
})

for (const family of ['alpha', 'beta'] as const) {
  for (const format of ['xml', 'json'] as const) {
    describe(`${family} ${format}`, () => {
      for (const c of primary.filter((x) => x.family === family && x.format === format)) {
        test(`#${c.id} ${c.direction} ${c.javaType}: ${c.description}`, () => {
          const s = serializerFor(c)
          if (c.direction === 'serialize') {
            const d = descriptorOf(c.javaType)
            const value = valueFor(c, d)
            if (c.error !== null) {
              assert.throws(() => s.serialize(value, d), isRefusal, `Java fails: ${c.error}`)
              counts.javaErrors++
              counts.serialize++
              return
            }
            const out = s.serialize(value, d)
            assert.equal(typeof out === 'string' ? out : Buffer.from(out).toString(), c.serialized)
            counts.serialize++
            if (c.roundTrip?.equal === true) {
              const back = s.deserialize(Buffer.from(c.serialized!), d)
              assert.deepEqual(toVector(back), cleanVector(c.value), 'reads back to the value')
              counts.roundTrips++
              if (c.roundTrip.typeTree !== null) {
                assert.equal(typeTreeOf(back, d), c.roundTrip.typeTree, 'reads back to the same Java types')
                counts.typeTrees++
              }
            }
            return
          }
          const d = deserializeDescriptor(c)
          const bytes = Buffer.from(c.serialized!)
          if (EXCEPTIONS[c.id] !== undefined) {
            counts.exceptions++
            if (c.id === 480) {
              assert.deepEqual(toVector(s.deserialize(bytes, In)), { a: 2, b: 3 })
              assert.throws(() => s.deserialize(bytes, t.Object([Out])), /not allowed/)
              return
            }
            assert.ok(variantValue.has(c.description), 'the variant documents this case')
            assert.deepEqual(toVector(s.deserialize(bytes, d)), cleanVector(variantValue.get(c.description)))
            return
          }
          if (c.error !== null) {
            assert.throws(() => s.deserialize(bytes, d), isRefusal, `Java fails: ${c.error}`)
            counts.javaErrors++
            counts.deserialize++
            return
          }
          const got = s.deserialize(bytes, d)
          assert.deepEqual(toVector(got), cleanVector(c.value))
          if (c.resultTypeTree != null) {
            assert.equal(typeTreeOf(got, d), c.resultTypeTree, 'the same Java types as Java read')
            counts.typeTrees++
          }
          counts.deserialize++
        })
      }
    })
  }
}

// Declared last, so it runs after every case above (node:test runs a file's tests in order).
test('every recorded case ran, with its type tree checked where Java recorded one', () => {
  assert.deepEqual({ primary: primary.length, ...counts }, EXPECTED)
})
