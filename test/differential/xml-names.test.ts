// Element names as Jackson's parser (Woodstox 6.2) reads them, against the live oracle: for every
// character of the BMP past ASCII (surrogates aside) and a sample above it, a map key that starts with
// it and one that holds it later. Our beta XML reader takes exactly the keys Jackson takes, with the
// same value, and refuses the others. The table behind it (src/common/xml/generated/woodstox-names.ts)
// was generated from Woodstox itself; this holds it to Jackson as a whole.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Oracle, specOf, type Request } from '../helpers/oracle'
import { serializerFor } from './outcomes'
import { t } from '../../src/microservice/descriptors/descriptors'

const MAP = t.map(t.Integer, 'java.util.LinkedHashMap')
let oracle: Oracle
before(() => {
  oracle = Oracle.start()
})
after(() => oracle.close())

function keys(): string[] {
  const out: string[] = []
  const add = (c: number): void => {
    const ch = String.fromCodePoint(c)
    out.push(`${ch}x`, `x${ch}`)
  }
  for (let c = 0x80; c <= 0xfffd; c++) if (c < 0xd800 || c > 0xdfff) add(c)
  for (let c = 0x10000; c <= 0x10fffd; c += 0x1111) add(c)
  return out
}

test('every character past ASCII in a map key: read where Jackson reads it, to the same key, refused where it refuses', async () => {
  const ours = serializerFor('betaXml', new Map())
  const all = keys()
  const texts = all.map((k) => `<LinkedHashMap><${k}>1</${k}></LinkedHashMap>`)
  const differ: string[] = []
  let read = 0
  for (let at = 0; at < texts.length; at += 4096) {
    const chunk = texts.slice(at, at + 4096)
    const answers = await oracle.batch(
      chunk.map((text): Request => ({ op: 'read', setup: 'betaXml', type: specOf(MAP), text }))
    )
    answers.forEach((java, k) => {
      assert.notEqual(java.oracleFailure, true, java.message)
      const key = all[at + k]!
      let mine: string | null
      try {
        mine = [...(ours.deserialize(Buffer.from(chunk[k]!), MAP) as Map<string, number>).keys()].join()
      } catch {
        mine = null
      }
      const theirs = java.error === undefined ? (java.value as [string, number][]).map(([k]) => k).join() : null
      if (theirs !== null) read++
      if (mine !== theirs)
        differ.push(
          `U+${key.codePointAt(key.startsWith('x') ? 1 : 0)!.toString(16)} in '${key}': ours ${mine}, Java ${theirs}`
        )
    })
  }
  assert.deepEqual(differ.slice(0, 20), [], `${differ.length} keys read differently`)
  // Not vacuous: Jackson reads a good share of them, and refuses a good share.
  assert.ok(read > 20_000 && read < all.length - 20_000, `${read} of ${all.length} read by Jackson`)
})
