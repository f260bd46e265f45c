// The gateway's JSON scan has a quick path and an exact one: the quick one must end every value
// where the exact one does, and take nothing the exact one refuses; whatever it leaves (-1), the exact
// one scans. Checked on JSON of every shape, respaced, with one byte changed, cut short, and nested
// around the depth limits.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { JsonSyntaxError, quickScan, scanValue, splitJsonArray } from '../../../../src/common/json/scan'
import { respace } from '../../../helpers/inputs/json-text'

function exact(b: Uint8Array, maxDepth: number): number | 'refused' {
  try {
    return scanValue(b, 0, maxDepth)
  } catch (err) {
    // Only the scanner's own refusal counts as one: a TypeError would be a bug in it.
    if (err instanceof JsonSyntaxError) return 'refused'
    throw err
  }
}

/** The property; returns whether the quick path took the value. */
function agrees(text: string | Uint8Array, maxDepth = 64): boolean {
  const b = typeof text === 'string' ? Buffer.from(text) : text
  const quick = quickScan(b, 0, maxDepth)
  if (quick < 0) return false
  assert.equal(quick, exact(b, maxDepth), Buffer.from(b).toString())
  return true
}

const documents = fc.json({ depthSize: 'medium' })

test('JSON of any shape, and respaced: the quick scan ends where the exact one does', () => {
  let quick = 0
  fc.assert(
    fc.property(documents, fc.nat(), (text, pick) => {
      if (agrees(text)) quick++
      agrees(respace(text, pick))
      agrees(` ${text}`)
    }),
    { numRuns: 1000 }
  )
  // Most documents have no escapes: the quick path must take most of them, or it is not the fast path.
  assert.ok(quick > 500, `the quick scan took only ${quick} of 1000`)
})

test('with one byte changed or removed, or cut short: the quick scan takes only what the exact one takes', () => {
  const bytes = '"{}[],:0-1e.5+E tfnul\\\t\n\u0001x'
  fc.assert(
    fc.property(documents, fc.nat(), fc.nat(), (text, at, by) => {
      if (text.length === 0) return
      const k = at % text.length
      agrees(text.slice(0, k) + bytes[by % bytes.length]! + text.slice(k + 1))
      agrees(text.slice(0, k) + text.slice(k + 1))
      agrees(text.slice(0, k))
    }),
    { numRuns: 3000 }
  )
})

test('numbers, literals and strings the grammar refuses are left to the exact scan', () => {
  for (const text of [
    '-',
    '-a',
    '01',
    '1.',
    '1.e5',
    '1e',
    '1e+',
    '.5',
    'tru',
    'nul',
    'fals',
    '"a',
    '"\u0001"',
    '"\\n"',
    '[1,]',
    '{"a":1,}',
    '{"a" 1}',
    // Member names after '{' and after ',': anything but ':' after the name, or no name.
    '{"a",1}',
    '{"a" , 1}',
    '{"a":1,"b",2}',
    '{"a":1,"b" 2}',
    '{"a":1 "b":2}',
    '{"a":1,2}',
    '{"a\u0001":1}',
    '{"a":1,"b\u0001":2}',
    '{"a":1,"b',
    '{1:2}',
    '[1 2]'
  ]) {
    const b = Buffer.from(text)
    const quick = quickScan(b, 0, 64)
    if (quick >= 0) assert.equal(quick, exact(b, 64), text)
    if (exact(b, 64) === 'refused') assert.equal(quick, -1, text)
  }
  // What the quick scan does take, it ends exactly: the value, not what follows it.
  assert.equal(quickScan(Buffer.from('01'), 0, 64), 1)
  assert.equal(quickScan(Buffer.from('-0.5e+3]'), 0, 64), 7)
  assert.equal(quickScan(Buffer.from('{"k":[true,false,null,"é"]} '), 0, 64), 28)
})

test('nesting: the quick scan stands aside at the depth limit and past 30 levels', () => {
  for (const depth of [1, 5, 29, 30, 31, 40]) {
    const text = '['.repeat(depth) + ']'.repeat(depth)
    for (const maxDepth of [depth - 1, depth, depth + 1, 64]) {
      const b = Buffer.from(text)
      const quick = quickScan(b, 0, maxDepth)
      if (depth > 30 || depth > maxDepth) assert.equal(quick, -1, `${depth} levels, limit ${maxDepth}`)
      else assert.equal(quick, exact(b, maxDepth), `${depth} levels, limit ${maxDepth}`)
    }
  }
  // An escape in a member name goes the exact way, and the split still finds the element's end.
  assert.deepEqual(splitJsonArray(Buffer.from('[{"a\\"b":1},2]')), [1, 11, 12, 13])
})
