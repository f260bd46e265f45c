// Generated request ids (src/gateway/invoke/request-id.ts) and the batches they are cut from
// (src/common/bytes/random-texts.ts): each one a version 4 UUID as crypto.randomUUID writes them,
// none repeated across batches.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { newRequestId } from '../../../../src/gateway/invoke/request-id'
import { RandomTexts, dashesAt, writeHex } from '../../../../src/common/bytes/random-texts'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

test('generated request ids are version 4 UUIDs, all different, across many batches', () => {
  const seen = new Set<string>()
  const variants = new Set<string>()
  const digits = new Set<string>()
  for (let k = 0; k < 1000; k++) {
    const id = newRequestId()
    assert.match(id, UUID_V4)
    seen.add(id)
    variants.add(id[19]!)
    for (const c of id.replaceAll('-', '')) digits.add(c)
  }
  assert.equal(seen.size, 1000)
  // The variant's two random bits are kept: all four of 8, 9, a, b turn up in 1,000 ids.
  assert.deepEqual([...variants].sort(), ['8', '9', 'a', 'b'])
  assert.equal(digits.size, 16)
})

test("an id's random digits owe nothing to the id before it (the version's byte keeps its own low bits)", () => {
  // Ids are cut from one batch of random bytes, 16 apart: reading a neighbour's byte instead of its own
  // would repeat a digit of the previous id. The digit after the version's '4' (byte 6's low half)
  // equals the previous id's byte 10's low half (its 26th character) 1 time in 16 by chance; 200 of
  // 999 is beyond any chance (a binomial tail below 1e-40).
  let previous = newRequestId()
  let same = 0
  for (let k = 0; k < 999; k++) {
    const id = newRequestId()
    if (id[15] === previous[25]) same++
    previous = id
  }
  assert.ok(same < 200, `${same} of 999`)
})

test('a batch refuses a layout that writes a text of another length than declared', () => {
  const wrong = new RandomTexts(10, 4, (text, at, random, r) => writeHex(text, at, random, r, 4, 0))
  assert.throws(() => wrong.next(), /a random text of 8 characters, not 10/)
  const dashed = new RandomTexts(9, 4, (text, at, random, r) => writeHex(text, at, random, r, 4, dashesAt(2)), 3)
  const texts = [dashed.next(), dashed.next(), dashed.next(), dashed.next()]
  for (const t of texts) assert.match(t, /^[0-9a-f]{4}-[0-9a-f]{4}$/)
  assert.equal(new Set(texts).size, 4)
})

test('dashes stand before exactly the byte indexes named, from 0 to 31', () => {
  const at = (...indexes: number[]): string => {
    const text = Buffer.alloc(100)
    const end = writeHex(text, 0, Buffer.alloc(32, 0xab), 0, 32, dashesAt(...indexes))
    return text.toString('latin1', 0, end)
  }
  assert.equal(at(), 'ab'.repeat(32))
  assert.equal(at(0, 31), '-' + 'ab'.repeat(31) + '-ab')
  assert.equal(at(1, 2), 'ab-ab-' + 'ab'.repeat(30))
  assert.throws(() => dashesAt(32), /from 0 to 31, not 32/)
})
