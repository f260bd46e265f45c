// What the cross-runtime test (test/integration/contract/cross-runtime.test.ts) found our serializers answering
// otherwise than the Java microservice, once fixed. Every expected text and value here is what the live
// oracle (XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 on Java 17) answered for the same case.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { t } from '../../../../src/microservice/descriptors/descriptors'
import { createAlphaJsonSerializer, createAlphaXmlSerializer } from '../../../../src/microservice/serializers'

const enc = (x: string): Uint8Array => Buffer.from(x)
const text = (v: string | Uint8Array): string => (typeof v === 'string' ? v : Buffer.from(v).toString())

test('alpha: a LinkedHashMap is a HashMap, read where one is declared and written back by its own name', () => {
  const HashMap = t.map(t.Integer, 'java.util.HashMap')
  const HM = t.object('com.fixed.HM', { m: HashMap })
  const xml = createAlphaXmlSerializer()
  const root = xml.deserialize(
    enc(
      '<linked-hash-map><entry><string>b</string><int>1</int></entry><entry><string>a</string><int>2</int></entry></linked-hash-map>'
    ),
    HashMap
  )
  assert.equal(
    text(xml.serialize(root, HashMap)),
    '<linked-hash-map>\n  <entry>\n    <string>b</string>\n    <int>1</int>\n  </entry>\n' +
      '  <entry>\n    <string>a</string>\n    <int>2</int>\n  </entry>\n</linked-hash-map>'
  )
  const field = xml.deserialize(
    enc('<com.fixed.HM><m class="linked-hash-map"><entry><string>b</string><int>1</int></entry></m></com.fixed.HM>'),
    HM
  )
  assert.equal(
    text(xml.serialize(field, HM)),
    '<com.fixed.HM>\n  <m class="linked-hash-map">\n    <entry>\n      <string>b</string>\n      <int>1</int>\n' +
      '    </entry>\n  </m>\n</com.fixed.HM>'
  )
  const json = createAlphaJsonSerializer()
  const j = json.deserialize(
    enc('{"linked-hash-map":{"entry":[{"string":"b","int":1},{"string":"a","int":2}]}}'),
    HashMap
  )
  assert.equal(
    text(json.serialize(j, HashMap)),
    '{"linked-hash-map":[{"entry":[{"string":"b","int":1},{"string":"a","int":2}]}]}'
  )
  // Not the other way: a HashMap is no LinkedHashMap.
  assert.throws(
    () => xml.deserialize(enc('<map/>'), t.map(t.Integer, 'java.util.LinkedHashMap')),
    /expected <linked-hash-map>/
  )
})

test('alpha: an array of a built-in type in an Object slot reads back as the array XStream wrote', () => {
  const N = t.object('com.fixed.N', { x: t.Integer })
  const slot = t.Object([N])
  const H = t.object('com.fixed.H', { o: slot })
  const values = [
    t.typed(t.array(t.int), [1, 2]),
    t.typed(t.array(t.Integer), [1, null]),
    t.typed(t.array(t.String), ['a']),
    t.typed(t.array(t.Date), [new Date(0)]),
    t.typed(t.array(t.list(slot)), [[1]]),
    t.typed(t.array(t.map(slot, 'java.util.LinkedHashMap')), []),
    t.typed(t.array(t.array(t.long)), [[1n], null]),
    t.typed(t.array(t.array(N)), [[{ x: 1 }]])
  ]
  for (const s of [createAlphaXmlSerializer(), createAlphaJsonSerializer()])
    for (const v of values) {
      const field = text(s.serialize({ o: v }, H))
      assert.equal(text(s.serialize(s.deserialize(enc(field), H), H)), field)
      const root = text(s.serialize(v, slot))
      assert.equal(text(s.serialize(s.deserialize(enc(root), slot), slot)), root)
    }
  // Java's names, as XStream 1.4.20 wrote them.
  const xml = createAlphaXmlSerializer()
  assert.equal(text(xml.serialize(values[0], slot)), '<int-array>\n  <int>1</int>\n  <int>2</int>\n</int-array>')
  assert.throws(() => xml.deserialize(enc('<foo-array/>'), slot), /type <foo-array> is not allowed here/)
})
