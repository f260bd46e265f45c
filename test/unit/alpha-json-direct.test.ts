// alpha JSON has two readers and two writers: direct ones for the shapes XStream writes for plain
// data, and element-tree ones for every form. The direct ones must never give another answer:
// whatever the direct reader reads, the tree reader reads to the same value, and whatever the tree
// reader refuses, it leaves alone (checked on what our writer makes, on that text respaced, and on it
// with one byte changed); whatever the direct writer writes is the tree writer's text, byte for byte.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { t, type Descriptor } from '../../src/descriptors/types'
import {
  createAlphaJsonSerializer,
  readAlphaJsonTree,
  renderAlphaJson,
  JSON_NAMING
} from '../../src/serializers/alpha-json'
import { tryReadAlphaJson, tryWriteAlphaJson } from '../../src/serializers/alpha-json-direct'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../src/core/limits'
import { toAlphaNode, type AlphaContext } from '../../src/serializers/alpha-node'
import { PROFILES, descriptorArb, valueArb, canon } from '../helpers/arbitraries'
import { respace } from '../helpers/json-text'

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

/** The property: the direct reader agrees with the tree reader or stands aside. Returns whether it read. */
function agrees(b: Uint8Array, d: Descriptor, limits: ReadLimits = DEFAULT_READ_LIMITS): boolean {
  const direct = tryReadAlphaJson(b, d, ctx, limits)
  if (direct === undefined) return false
  const expected = tree(b, d, limits)
  if ('error' in expected) assert.fail(`the direct reader read what the tree reader refuses (${expected.error})`)
  assert.deepEqual(canon(direct, d), canon(expected.value, d))
  return true
}

const p = PROFILES.alphaJsonSerializer
const cases = descriptorArb(p, 3).chain((d) => fc.tuple(fc.constant(d), valueArb(d, p, false)))

test('what our writer makes, and that respaced: read directly or left to the tree reader, never differently', () => {
  let direct = 0
  fc.assert(
    fc.property(cases, fc.nat(), ([d, v], pick) => {
      const text = writer.serialize(v, d) as string
      if (agrees(Buffer.from(text), d)) direct++
      agrees(Buffer.from(respace(text, pick)), d)
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) }
  )
  // The direct reader is for the common shapes: it must take a good share of them, or it is dead code.
  assert.ok(direct > 100, `the direct reader read only ${direct} of 400`)
})

test('with one byte changed: the direct reader reads only what the tree reader reads, to the same value', () => {
  const bytes = '"{}[],:0-1e.5 tfnul@$a\\'
  fc.assert(
    fc.property(cases, fc.nat(), fc.nat(), ([d, v], at, by) => {
      const text = writer.serialize(v, d) as string
      const k = at % text.length
      agrees(Buffer.from(text.slice(0, k) + bytes[by % bytes.length]! + text.slice(k + 1)), d)
      agrees(Buffer.from(text.slice(0, k) + text.slice(k + 1)), d)
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) * 2 }
  )
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
    assert.equal(tryReadAlphaJson(b, list, ctx, limits), undefined)
    assert.ok('error' in tree(b, list, limits))
  }
  assert.ok(agrees(b, list))
  // The reading of the 1 MB benchmark's shape goes the direct way.
  assert.equal((tryReadAlphaJson(b, list, ctx, DEFAULT_READ_LIMITS) as unknown[]).length, 50)
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
    assert.equal(tryReadAlphaJson(Buffer.from(text), d, ctx, DEFAULT_READ_LIMITS), undefined, text)
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
        if (text === undefined) continue
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
    assert.equal(tryWriteAlphaJson(v, d, ctx), undefined)
  }
  assert.equal(
    tryWriteAlphaJson([shared, { a: 3, b: 4 }], t.list(In), ctx),
    '{"list":[{"in":[{"a":1,"b":2},{"a":3,"b":4}]}]}'
  )
})
