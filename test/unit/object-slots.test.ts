// java.lang.Object slots as the Java libraries write and read them, where the differential fuzz
// (test/differential) found us answering otherwise. Every expected text and value here is what the
// live oracle (XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 on Java 17) answered for the same case.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { t, Typed } from '../../src/microservice/descriptors'
import { createAlphaJsonSerializer, createAlphaXmlSerializer } from '../../src/microservice/serializers'

const N = t.object('p.Nest$N', { x: t.Integer })
const H = t.object('p.H', { o: t.Object([N]) })
const enc = (x: string): Uint8Array => Buffer.from(x)
const text = (v: string | Uint8Array): string => (typeof v === 'string' ? v : Buffer.from(v).toString())

test('alpha XML: a class attribute names a nested class as it is, where the element name is coded', () => {
  const xml = createAlphaXmlSerializer()
  assert.equal(
    text(xml.serialize({ o: t.typed(N, { x: 1 }) }, H)),
    '<p.H>\n  <o class="p.Nest$N">\n    <x>1</x>\n  </o>\n</p.H>'
  )
  assert.equal(
    text(xml.serialize({ o: t.typed(t.array(N), [{ x: 1 }]) }, H)),
    '<p.H>\n  <o class="p.Nest$N-array">\n    <p.Nest_-N>\n      <x>1</x>\n    </p.Nest_-N>\n  </o>\n</p.H>'
  )
  const read = xml.deserialize(enc('<p.H><o class="p.Nest$N-array"><p.Nest_-N><x>1</x></p.Nest_-N></o></p.H>'), H)
  const o = (read as { o: unknown }).o
  assert.ok(o instanceof Typed && o.type.kind === 'array')
  assert.deepEqual(o.value, [{ x: 1 }])
  // XStream does not decode a class attribute: the coded name is no class (CannotResolveClassException).
  assert.throws(() => xml.deserialize(enc('<p.H><o class="p.Nest_-N"><x>1</x></o></p.H>'), H), /not allowed/)
})

test("alpha JSON: text beside a class attribute is trimmed as Jettison's String.trim, and left out when empty", () => {
  const json = createAlphaJsonSerializer()
  const S = t.object('p.H', { o: t.Object() })
  assert.equal(json.serialize({ o: ' a b ' }, S), '{"p.H":{"o":{"@class":"string","$":"a b"}}}')
  assert.equal(json.serialize({ o: '\r\n' }, S), '{"p.H":{"o":{"@class":"string"}}}')
  assert.equal(json.serialize({ o: t.typed(t.Character, ' ') }, S), '{"p.H":{"o":{"@class":"char"}}}')
  // Unicode spaces are not String.trim's.
  assert.equal(json.serialize({ o: '\u00a0x\u00a0' }, S), '{"p.H":{"o":{"@class":"string","$":"\u00a0x\u00a0"}}}')
  // What Jettison wrote reads back as XStream reads it: "" and NUL.
  assert.deepEqual(json.deserialize(enc('{"p.H":{"o":{"@class":"string"}}}'), S), { o: '' })
  assert.deepEqual(json.deserialize(enc('{"p.H":{"o":{"@class":"char"}}}'), S), { o: t.typed(t.Character, '\u0000') })
})
