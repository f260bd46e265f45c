// Our serializers against the real Java ones (test/oracle/Oracle.java, installed and compiled by
// scripts/ensure-oracle.sh when missing): the differential property of fidelity.ts for a fixed seed,
// and the cases of the classes of differences it found and that are fixed, asked of Java each run.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { t, type Descriptor } from '../../src/descriptors/types'
import { defaultSerializers } from '../../src/serializers'
import { Oracle, specOf, toWire, canonWire, type Setup } from '../helpers/oracle'
import { runFidelity } from './fidelity'

let oracle: Oracle
before(() => {
  oracle = Oracle.start()
})
after(async () => {
  await oracle.close()
})

test('the oracle is the Java the README names', async () => {
  const v = await oracle.ask({ op: 'versions' })
  assert.equal(v.xstream, '1.4.20')
  assert.match(v.jackson ?? '', /^2\.14\./)
  assert.match(v.java ?? '', /^17\./)
})

const RUNS = Number(process.env.FIDELITY_RUNS ?? 1500)
const SEED = Number(process.env.FIDELITY_SEED ?? 20261122)

test(`four families, both directions and a client's notations agree with Java (seed ${SEED}, ${RUNS} runs)`, async (tc) => {
  const report = await runFidelity(oracle, { runs: RUNS, seed: SEED, perUniverse: 500 })
  tc.diagnostic(JSON.stringify({ departures: report.departures, open: report.open }))
  assert.equal(report.runs, RUNS)
  for (const setup of ['alphaXml', 'alphaJson', 'alphaXml+aliases', 'alphaJson+aliases', 'betaXml', 'betaJson'])
    for (const direction of ['write', 'read', 'notation'])
      assert.ok((report.checks[`${setup} ${direction}`] ?? 0) > 0, `no ${setup} ${direction} checks`)
})

const beans = defaultSerializers()
const ours: Record<'alphaXml' | 'alphaJson' | 'betaXml' | 'betaJson', (typeof beans)['alphaXmlSerializer']> = {
  alphaXml: beans.alphaXmlSerializer,
  alphaJson: beans.alphaJsonSerializer,
  betaXml: beans.betaXmlSerializer,
  betaJson: beans.betaJsonSerializer
}

/** Cases of the classes the differential found and we fixed: each written and read as Java does. */
const FIXED: Array<{
  why: string
  setup: Setup & keyof typeof ours
  type: Descriptor
  value?: unknown
  text?: string
}> = [
  {
    why: 'Julian dates before 1582-10-15',
    setup: 'alphaXml',
    type: t.Date,
    value: new Date('1411-01-30T01:52:43.915Z')
  },
  { why: 'Julian dates read', setup: 'alphaJson', type: t.Date, text: '{"date":"1000-01-01 00:00:00.41 UTC"}' },
  { why: 'array of Date', setup: 'alphaXml', type: t.array(t.Date), value: [new Date(0)] },
  {
    why: 'array of LinkedList',
    setup: 'alphaXml',
    type: t.array(t.list(t.Integer, 'java.util.LinkedList')),
    value: [[1]]
  },
  { why: 'array of String', setup: 'alphaJson', type: t.array(t.String), value: ['a'] },
  { why: 'array of HashMap', setup: 'alphaXml', type: t.array(t.map(t.Integer, 'java.util.HashMap')), value: [] },
  { why: 'int[] root', setup: 'betaXml', type: t.array(t.int), value: [1, 2] },
  { why: 'NUL char', setup: 'alphaXml', type: t.Character, value: '\u0000' },
  { why: 'NUL char read', setup: 'alphaXml', type: t.Character, text: '<char></char>' },
  { why: 'char from a longer text', setup: 'alphaXml', type: t.Character, text: '<char>ab</char>' },
  { why: 'hex floating point', setup: 'alphaXml', type: t.Double, text: '<double>0x1.8P1</double>' },
  { why: 'double with spaces and a suffix', setup: 'alphaXml', type: t.Double, text: '<double> 1.5d </double>' },
  { why: 'Jackson booleans', setup: 'betaXml', type: t.Boolean, text: '<Boolean>truE</Boolean>' },
  { why: 'Jackson booleans', setup: 'betaXml', type: t.Boolean, text: '<Boolean>TRUE</Boolean>' },
  {
    why: 'empty Character element',
    setup: 'betaXml',
    type: t.list(t.Character),
    text: '<ArrayList><item/></ArrayList>'
  },
  {
    why: 'a reference in an attribute',
    setup: 'alphaXml',
    type: t.object('com.fixed.C', { a: t.field(t.char, { attribute: true }) }),
    text: '<com.fixed.C a="&#xd;"/>'
  }
]

test('the classes of the fixed cases compile', async () => {
  const source =
    'package com.fixed; public class C { @com.thoughtworks.xstream.annotations.XStreamAsAttribute public char a; }'
  const a = await oracle.ask({ op: 'compile', sources: { 'com.fixed.C': source }, aliases: {} })
  assert.equal(a.classes, 1, a.message)
})

for (const c of FIXED) {
  test(`fixed: ${c.why} (${c.setup}) as Java`, async () => {
    const s = ours[c.setup]
    if (c.value !== undefined) {
      const java = await oracle.ask({
        op: 'write',
        setup: c.setup,
        type: specOf(c.type),
        value: toWire(c.value, c.type)
      })
      const mine = s.serialize(c.value, c.type)
      assert.equal(typeof mine === 'string' ? mine : Buffer.from(mine).toString(), java.text)
      return
    }
    const java = await oracle.ask({ op: 'read', setup: c.setup, type: specOf(c.type), text: c.text! })
    let mine: unknown
    try {
      mine = canonWire(toWire(s.deserialize(Buffer.from(c.text!), c.type), c.type), c.type)
    } catch (e) {
      mine = { error: (e as Error).message }
    }
    if (java.error !== undefined)
      assert.ok(
        typeof mine === 'object' && mine !== null && 'error' in mine,
        `Java refused (${java.error}), we read ${JSON.stringify(mine)}`
      )
    else assert.deepEqual(mine, canonWire(java.value ?? null, c.type))
  })
}
