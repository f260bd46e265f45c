// java.lang.Object slots as the Java libraries write and read them, where the differential fuzz
// (test/differential) found us answering otherwise. Every expected text and value here is what the
// live oracle (XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 on Java 17) answered for the same case.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { t, Typed } from '../../../../src/microservice/descriptors/descriptors'
import {
  createAlphaJsonSerializer,
  createAlphaXmlSerializer,
  createBetaJsonSerializer,
  createBetaXmlSerializer
} from '../../../../src/microservice/serializers'

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

const Slot = t.object('p.H', { o: t.Object(), z: t.Integer })

test('beta XML: a collection in an Object field or map value is written unwrapped, an empty one not at all', () => {
  const xml = createBetaXmlSerializer()
  const write = (o: unknown): string => text(xml.serialize({ o, z: 5 }, Slot))
  assert.equal(write(t.typed(t.list(t.Object(), 'java.util.LinkedList'), [1, 2])), '<H><o>1</o><o>2</o><z>5</z></H>')
  assert.equal(write(t.typed(t.array(t.Object()), [1, null])), '<H><o>1</o><o/><z>5</z></H>')
  assert.equal(write([]), '<H><z>5</z></H>')
  // A collection inside joins the items; an empty one leaves nothing.
  assert.equal(write(t.typed(t.array(t.Object()), [[1], 3])), '<H><o>1</o><o>3</o><z>5</z></H>')
  assert.equal(write(t.typed(t.array(t.Object()), [[], 3])), '<H><o>3</o><z>5</z></H>')
  assert.equal(
    write(
      t.typed(
        t.map(t.Object(), 'java.util.HashMap'),
        new Map<string, unknown>([
          ['a', [1, 2]],
          ['b', []]
        ])
      )
    ),
    '<H><o><a>1</a><a>2</a></o><z>5</z></H>'
  )
  // What is not a collection is written as before: an empty map <o/>, null <o/>.
  assert.equal(write(new Map()), '<H><o/><z>5</z></H>')
  assert.equal(write(null), '<H><o/><z>5</z></H>')
})

test("beta XML: Jackson's untyped reading, by where the element is", () => {
  const xml = createBetaXmlSerializer()
  const field = (o: string): unknown => (xml.deserialize(enc(`<H>${o}</H>`), Slot) as { o: unknown }).o
  const item = (x: string): unknown =>
    (xml.deserialize(enc(`<ArrayList>${x}</ArrayList>`), t.list(t.Object())) as unknown[])[0]
  const root = (x: string): unknown => xml.deserialize(enc(x), t.Object())
  const map = (...entries: Array<[string, unknown]>): Map<string, unknown> => new Map(entries)
  // An element of only text: a String as a member; the start of an object at the root and as an item.
  assert.equal(field('<o/>'), '')
  assert.equal(field('<o> </o>'), ' ')
  assert.deepEqual(item('<item/>'), map())
  assert.deepEqual(item('<item> </item>'), map())
  assert.equal(item('<item> t </item>'), ' t ')
  assert.deepEqual(root('<Object/>'), map())
  assert.deepEqual(root('<Object> t </Object>'), map(['', ' t ']))
  // Attributes and text beside them; whitespace-only text left out.
  assert.deepEqual(field('<o a="1">t</o>'), map(['a', '1'], ['', 't']))
  assert.deepEqual(field('<o a="1"> </o>'), map(['a', '1']))
  // A repeated name is a list where the name first was; text between children under "".
  assert.deepEqual(field('<o><a>1</a><b>2</b><a>3</a><a>4</a></o>'), map(['a', ['1', '3', '4']], ['b', '2']))
  assert.deepEqual(field('<o a="x"><a>1</a></o>'), map(['a', ['x', '1']]))
  assert.deepEqual(field('<o>t<!--c-->u<a>1</a>v</o>'), map(['', ['tu', 'v']], ['a', '1']))
  assert.deepEqual(field('<o><a><b>1</b></a><a/> </o>'), map(['a', [map(['b', '1']), '']]))
})

test("a typed null is Java's null: what each family writes for null fields", () => {
  const L = t.object('p.L', { o: t.Object([N]), l: t.list(t.Integer) })
  const typed = { o: t.typed(N, null), l: t.typed(t.list(t.Integer, 'java.util.LinkedList'), null) }
  // Java's texts for L{o=null, l=null}: XStream leaves null fields out, Jackson XML a null List.
  assert.equal(text(createAlphaXmlSerializer().serialize(typed, L)), '<p.L/>')
  assert.equal(text(createAlphaJsonSerializer().serialize(typed, L)), '{"p.L":""}')
  assert.equal(text(createBetaXmlSerializer().serialize(typed, L)), '<L><o/></L>')
  assert.equal(text(createBetaJsonSerializer().serialize(typed, L)), '{"o":null,"l":null}')
})

test('beta XML: a Map<String,Object> reads its members as untyped, a repeated key squashed into a list', () => {
  const xml = createBetaXmlSerializer()
  const M = t.map(t.Object(), 'java.util.LinkedHashMap')
  const map = (...entries: Array<[string, unknown]>): Map<string, unknown> => new Map(entries)
  // Java's answers (the oracle): Jackson's MapDeserializer squashes duplicates when the values are Object.
  assert.deepEqual(
    xml.deserialize(enc('<HashMap><a>1</a><b/><a>2</a></HashMap>'), M),
    map(['a', ['1', '2']], ['b', ''])
  )
  assert.deepEqual(
    xml.deserialize(enc('<HashMap a="1">t<b>2</b></HashMap>'), M),
    map(['a', '1'], ['', 't'], ['b', '2'])
  )
  assert.deepEqual(xml.deserialize(enc('<HashMap>t</HashMap>'), M), map(['', 't']))
  // Only text, as a field or an item, is a String token Jackson builds no map from.
  const F = t.object('p.F', { m: M })
  assert.throws(() => xml.deserialize(enc('<F><m>t</m></F>'), F), /no String-argument constructor/)
  assert.deepEqual(xml.deserialize(enc('<F><m> </m></F>'), F), { m: map() })
})
