// How a config is layered (src/common/config/overrides.ts): PLATFORM__… variables over the file, every
// bad one named at once with the keys it could have meant, and a file laid over the shipped defaults.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Json } from '../../../../src/common/json/value'
import { applyEnv, knownKeys, listed, mergeOver } from '../../../../src/common/config/overrides'

const raw = (): { [k: string]: Json } => ({
  $schema: './platform.schema.json',
  PLATFORM: { port: 8082, name: 'a', tls: null },
  top: 1
})

test('an override sets its key, as JSON when it parses and as text when not; other variables are left alone', () => {
  const r = raw()
  const problems = applyEnv(r, {
    PLATFORM__PLATFORM__port: '9000',
    PLATFORM__PLATFORM__name: 'not json',
    PLATFORM__top: '{"a":[1]}',
    PLATFORM__PLATFORM__unset: undefined,
    HOME: '/root',
    PLATFORMX__top: '5'
  })
  assert.deepEqual(problems, [])
  assert.deepEqual(r, {
    $schema: './platform.schema.json',
    PLATFORM: { port: 9000, name: 'not json', tls: null },
    top: { a: [1] }
  })
})

test("a block null in the defaults opens under a key set inside it, and keys under it are the schema's to check", () => {
  const r = raw()
  assert.deepEqual(applyEnv(r, { PLATFORM__PLATFORM__tls__certFile: '/c.pem', PLATFORM__PLATFORM__tls__x__y: '1' }), [])
  assert.deepEqual((r.PLATFORM as { [k: string]: Json }).tls, { certFile: '/c.pem', x: { y: 1 } })
})

test('every bad override named at once: an unknown key with the keys there, a value used as a block', () => {
  const r = raw()
  const problems = applyEnv(r, {
    PLATFORM__PLATFORM__prot: '1',
    PLATFORM__top__x: '1',
    PLATFORM__PLATFORM__port__x: '1',
    PLATFORM__unheard: '1'
  })
  assert.deepEqual(problems, [
    'PLATFORM__PLATFORM__prot: unknown key PLATFORM.prot (did you mean port? known in PLATFORM: port, name, tls)',
    'PLATFORM__top__x: top is a value, not a block: PLATFORM__top=… sets it',
    'PLATFORM__PLATFORM__port__x: PLATFORM.port is a value, not a block: PLATFORM__PLATFORM__port=… sets it',
    'PLATFORM__unheard: unknown key unheard (known at the top: PLATFORM, top)'
  ])
  assert.deepEqual(r, raw(), 'nothing applied from a bad override')
})

test('the keys it could have meant: any case, or two edits away; every one of them', () => {
  const s = { $schema: 'x', maxInFlight: 1, port: 2, sort: 3, threads: 4 }
  assert.equal(
    knownKeys(s, 'MAXINFLIGHT', 'A'),
    'did you mean maxInFlight? known in A: maxInFlight, port, sort, threads'
  )
  assert.equal(
    knownKeys(s, 'pert', ''),
    'did you mean port or sort? known at the top: maxInFlight, port, sort, threads'
  )
  assert.equal(knownKeys(s, 'workers', 'A.B'), 'known in A.B: maxInFlight, port, sort, threads')
})

test('one problem as it is, several counted and listed', () => {
  assert.equal(listed(['a']), 'a')
  assert.equal(listed(['a', 'b']), '2 problems:\n  a\n  b')
})

test('a file over the defaults: sections merged key by key, anything else replaced whole (null too)', () => {
  const base: { [k: string]: Json } = { a: { b: 1, c: 2 }, d: { e: 1 }, f: 1, g: [1, 2] }
  assert.deepEqual(mergeOver(base, { a: { c: 3 }, d: null, f: { x: 1 }, g: [3] }), {
    a: { b: 1, c: 3 },
    d: null,
    f: { x: 1 },
    g: [3]
  })
  assert.deepEqual(mergeOver({ a: { b: 1 } }, { a: 5 }), { a: 5 })
  assert.deepEqual(base.a, { b: 1, c: 2 }, 'the defaults are not changed')
})
