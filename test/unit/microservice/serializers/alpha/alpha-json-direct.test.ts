// alpha JSON has three readers and two writers: direct ones for the shapes XStream writes for plain
// data (the reader generated per type first, then the interpreting one), and element-tree ones for
// every form. The direct ones must never give another answer:
// whatever the direct reader reads, the tree reader reads to the same value, and whatever the tree
// reader refuses, it leaves alone (checked on what our writer makes, on that text respaced, and on it
// with one byte changed); whatever the direct writer writes is the tree writer's text, byte for byte.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { t, type Descriptor } from '../../../../../src/microservice/descriptors/descriptors'
import {
  createAlphaJsonSerializer,
  readAlphaJsonTree,
  renderAlphaJson,
  JSON_NAMING
} from '../../../../../src/microservice/serializers/alpha/alpha-json'
import {
  tryReadAlphaJson,
  tryWriteAlphaJson
} from '../../../../../src/microservice/serializers/alpha/alpha-json-direct'
import { readAlphaJsonCompiled } from '../../../../../src/microservice/serializers/alpha/alpha-json-compiled'
import { STAND_ASIDE } from '../../../../../src/microservice/serializers/stand-aside'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../../../src/common/contract/limits'
import { toAlphaNode, type AlphaContext } from '../../../../../src/microservice/serializers/alpha/alpha-node'
import { PROFILES, descriptorArb, valueArb, canon } from '../../../../helpers/inputs/arbitraries'
import { respace } from '../../../../helpers/inputs/json-text'

const ctx: AlphaContext = { aliases: new Map([['com.example.In', 'in']]), naming: JSON_NAMING }
const writer = createAlphaJsonSerializer(ctx.aliases)

type Outcome = { value: unknown } | { error: string }

function tree(b: Uint8Array, d: Descriptor, limits: ReadLimits = DEFAULT_READ_LIMITS): Outcome {
  try {
    return { value: readAlphaJsonTree(b, d, ctx, limits) }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

/** A direct reader: the value, or STAND_ASIDE. */
type DirectRead = (b: Uint8Array, d: Descriptor, limits: ReadLimits) => unknown

const readers: Array<[string, DirectRead]> = [
  ['the direct path (generated, then interpreting)', (b, d, limits) => tryReadAlphaJson(b, d, ctx, limits)],
  ['the compiled reader alone', (b, d, limits) => readAlphaJsonCompiled(b, d, ctx, limits)]
]

/** The property: a direct reader agrees with the tree reader or stands aside. Returns whether it read. */
function agrees(
  b: Uint8Array,
  d: Descriptor,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  read = readers[0]![1]
): boolean {
  const direct = read(b, d, limits)
  if (direct === STAND_ASIDE) return false
  const expected = tree(b, d, limits)
  if ('error' in expected) assert.fail(`the direct reader read what the tree reader refuses (${expected.error})`)
  assert.deepEqual(canon(direct, d), canon(expected.value, d))
  return true
}

const p = PROFILES.alphaJsonSerializer
const cases = descriptorArb(p, 3).chain((d) => fc.tuple(fc.constant(d), valueArb(d, p, false)))

for (const [name, read] of readers) {
  test(`${name}: what our writer makes, and that respaced: read directly or left to the tree, never differently`, () => {
    let direct = 0
    fc.assert(
      fc.property(cases, fc.nat(), ([d, v], pick) => {
        const text = writer.serialize(v, d) as string
        if (agrees(Buffer.from(text), d, DEFAULT_READ_LIMITS, read)) direct++
        agrees(Buffer.from(respace(text, pick)), d, DEFAULT_READ_LIMITS, read)
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) }
    )
    // A direct reader is for the common shapes: it must take a good share of them, or it is dead code.
    assert.ok(direct > 100, `the direct reader read only ${direct} of 400`)
  })

  test(`${name}: with one byte changed, it reads only what the tree reader reads, to the same value`, () => {
    const bytes = '"{}[],:0-1e.5 tfnul@$a\\'
    fc.assert(
      fc.property(cases, fc.nat(), fc.nat(), ([d, v], at, by) => {
        const text = writer.serialize(v, d) as string
        const k = at % text.length
        agrees(
          Buffer.from(text.slice(0, k) + bytes[by % bytes.length]! + text.slice(k + 1)),
          d,
          DEFAULT_READ_LIMITS,
          read
        )
        agrees(Buffer.from(text.slice(0, k) + text.slice(k + 1)), d, DEFAULT_READ_LIMITS, read)
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) * 2 }
    )
  })
}

test('the compiled reader reads tokens the way XStream converts them, or stands aside', () => {
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
  const D = t.object('com.example.D', { x: t.Double, n: t.long, ok: t.boolean, s: t.String })
  const generated = (text: string, d: Descriptor): unknown =>
    readAlphaJsonCompiled(Buffer.from(text), d, ctx, DEFAULT_READ_LIMITS)
  const read: Array<[Descriptor, string]> = [
    // Jettison gives the token -0 the text "0" (through Long): 0, not -0.
    [In, '{"in":{"a":-0,"b":7}}'],
    // XStream leaves out null fields: any of them may be missing.
    [In, '{"in":{"b":7}}'],
    [In, '{"in":{}}'],
    [In, '{"in":[{"a":1}]}'],
    [D, '{"com.example.D":{"x":-2.5e-3,"n":123456789012345,"ok":true,"s":"café"}}'],
    // Jettison writes text that reads back as a JSON number as one, and a double's 1.0E-5 as a string.
    [D, '{"com.example.D":{"x":"1.0E-5","s":123}}'],
    [D, '{"com.example.D":{"x":"NaN","s":-0}}'],
    [D, '{"com.example.D":{"s":false}}'],
    [t.list(In), '{"list":[""]}'],
    [t.list(In), '{"list":[{}]}'],
    [t.list(In), '{"list":[{"in":[]}]}'],
    [t.list(In), '{"list":[{"in":{"a":1,"b":2}}]}'],
    [t.list(In), '{"list":[{"in":[{"a":1},{"b":2}],"in":{"a":3}}]}']
  ]
  for (const [d, text] of read) {
    assert.notEqual(generated(text, d), STAND_ASIDE, text)
    assert.ok(agrees(Buffer.from(text), d, DEFAULT_READ_LIMITS, readers[1]![1]), text)
  }
  assert.ok(Object.is((generated('{"in":{"a":-0,"b":7}}', In) as { a: number }).a, 0))
  assert.equal((generated('{"com.example.D":{"x":"NaN","s":-0}}', D) as { s: string }).s, '0')
  const aside: Array<[Descriptor, string]> = [
    // Members out of declared order, or one twice: the interpreting reader's.
    [In, '{"in":{"b":1,"a":2}}'],
    [In, '{"in":{"a":1,"a":2}}'],
    // Ten digits go through Long.decode and int's wrap-around; a string is Integer.decode's.
    [In, '{"in":{"a":3000000000}}'],
    [In, '{"in":{"a":"5"}}'],
    [In, '{"in":{"a":1.0}}'],
    // -0.0 is -0 but -0 is 0: any negative zero is left to the exact path.
    [D, '{"com.example.D":{"x":-0.0}}'],
    [D, '{"com.example.D":{"x":-0}}'],
    [D, '{"com.example.D":{"x":1e23}}'],
    [D, '{"com.example.D":{"s":"a\\/b"}}'],
    [D, '{"com.example.D":{"ok":"TRUE"}}'],
    [In, '{"in":""}'],
    [In, '{"\\u0069n":{"a":1}}']
  ]
  for (const [d, text] of aside) {
    assert.equal(generated(text, d), STAND_ASIDE, text)
    // The whole direct path agrees with the tree here too (agrees fails otherwise), or leaves it.
    agrees(Buffer.from(text), d)
  }
})

test('limits: past maxDepth, maxNodes or maxStringLength the direct reader stands aside and the tree reader refuses', () => {
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
  const list = t.list(In)
  const text = writer.serialize(
    Array.from({ length: 50 }, (_, k) => ({ a: k, b: k })),
    list
  ) as string
  const b = Buffer.from(text)
  for (const limits of [
    { ...DEFAULT_READ_LIMITS, maxNodes: 100 },
    { ...DEFAULT_READ_LIMITS, maxDepth: 3 },
    { ...DEFAULT_READ_LIMITS, maxStringLength: 0 }
  ]) {
    assert.equal(tryReadAlphaJson(b, list, ctx, limits), STAND_ASIDE)
    assert.equal(readAlphaJsonCompiled(b, list, ctx, limits), STAND_ASIDE)
    assert.ok('error' in tree(b, list, limits))
  }
  assert.ok(agrees(b, list))
  // The reading of the 1 MB benchmark's shape goes the generated way.
  assert.equal((readAlphaJsonCompiled(b, list, ctx, DEFAULT_READ_LIMITS) as unknown[]).length, 50)
})

test('the forms only the tree reader knows are left to it: references, class attributes, null items, "$" text', () => {
  const Node = t.object('com.example.Node', { name: t.String, next: t.Object() })
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
  const shared = { a: 1, b: 2 }
  for (const [d, text] of [
    [t.list(In), writer.serialize([shared, shared], t.list(In)) as string],
    [Node, '{"com.example.Node":{"name":"x","next":{"@class":"int","$":"5"}}}'],
    [t.list(t.Integer), '{"list":[{"int":[1,2],"null":""}]}'],
    [In, '{"in":{"a":{"$":"1"}}}']
  ] as const) {
    assert.equal(tryReadAlphaJson(Buffer.from(text), d, ctx, DEFAULT_READ_LIMITS), STAND_ASIDE, text)
  }
})

function treeText(v: unknown, d: Descriptor): string | { error: string } {
  try {
    return renderAlphaJson(toAlphaNode(v, d, ctx))
  } catch (err) {
    return { error: (err as Error).message }
  }
}

test('the direct writer writes the text the tree writer writes, or leaves the value to it', () => {
  let direct = 0
  fc.assert(
    fc.property(cases, ([d, v]) => {
      for (const [dd, vv] of [
        [d, v],
        // The same value twice: XStream writes a reference the second time, which is the tree's to write.
        [t.list(d), v === null ? [v] : [v, v]]
      ] as const) {
        const text = tryWriteAlphaJson(vv, dd, ctx)
        if (text === STAND_ASIDE) continue
        if (dd === d) direct++
        assert.equal(text, treeText(vv, dd))
      }
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) }
  )
  assert.ok(direct > 100, `the direct writer wrote only ${direct} of 400`)
})

test('values the direct writer leaves to the tree: shared objects, Typed, null items, wrong kinds', () => {
  const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
  const shared = { a: 1, b: 2 }
  for (const [d, v] of [
    [t.list(In), [shared, shared]],
    [t.list(t.Integer), [1, null]],
    [t.Object(), 5],
    [In, { a: 'x', b: 2 }],
    [t.object('com.example.P', { a: t.int }), { a: null }],
    [t.map(t.Integer), new Map([['k', 1]])]
  ] as const) {
    assert.equal(tryWriteAlphaJson(v, d, ctx), STAND_ASIDE)
  }
  assert.equal(
    tryWriteAlphaJson([shared, { a: 3, b: 4 }], t.list(In), ctx),
    '{"list":[{"in":[{"a":1,"b":2},{"a":3,"b":4}]}]}'
  )
})

test('a fast tier stands aside only by its signal: an error that is a bug propagates instead of falling back', () => {
  const In = t.object('com.example.In', { a: t.int, b: t.int })
  // The first read of `a` fails as a bug would; the tree writer reading it again would succeed.
  let reads = 0
  const value = {
    get a(): number {
      if (reads++ === 0) throw new TypeError('a bug in the fast path')
      return 1
    },
    b: 2
  }
  assert.throws(() => writer.serialize(value, In), /a bug in the fast path/)
  // A value the direct writer does not write is not an error: it stands aside and the tree writer writes it.
  assert.equal(tryWriteAlphaJson({ a: 'x', b: 2 }, In, ctx), STAND_ASIDE)
})
