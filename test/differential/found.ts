// The cases of each class of difference the differential tests found (and that are fixed or listed as
// departures): recorded with Java's answers into found-cases.json by `npm run fuzz:fidelity -- --record`,
// checked against that file without Java (found-cases.test.ts), and the file against live Java
// (fidelity.test.ts), so neither can drift.
import { LocalDate, t, type Descriptor } from '../../src/microservice/descriptors/descriptors'
import type { Setup } from '../helpers/oracle'

const A = 'com.thoughtworks.xstream.annotations'

/** The test classes the cases use, as Java source. */
export const FOUND_SOURCES: Record<string, string> = {
  'com.fixed.C': `package com.fixed; public class C { @${A}.XStreamAsAttribute public char a; }`,
  'com.fixed.I': `package com.fixed; public class I { @${A}.XStreamImplicit(itemFieldName = "i_n") public java.util.List<Integer> n; }`,
  'com.fixed.B': `package com.fixed; public class B { @${A}.XStreamAsAttribute public Boolean b; public Integer x; }`,
  'com.fixed.O': 'package com.fixed; public class O { public String f; public char[] c; }',
  'com.fixed.D': 'package com.fixed; public class D { public Double[] d; }',
  'com.fixed.H': 'package com.fixed; public class H { public Object o; public Integer z; }',
  'com.fixed.Nest': 'package com.fixed; public class Nest { public static class N { public Integer x; } }',
  'com.fixed.HM': 'package com.fixed; public class HM { public java.util.HashMap<String,Integer> m; }',
  'com.fixed.U':
    'package com.fixed; public class U { public Integer straße; public Integer ¢x; public Integer 𝒜; public Integer x\u0301_$; }'
}

const C = t.object('com.fixed.C', { a: t.field(t.char, { attribute: true }) })
const I = t.object('com.fixed.I', { n: t.field(t.list(t.Integer), { implicit: 'i_n' }) })
const B = t.object('com.fixed.B', { b: t.field(t.Boolean, { attribute: true }), x: t.Integer })
const O = t.object('com.fixed.O', { f: t.String, c: t.array(t.char) })
const D = t.object('com.fixed.D', { d: t.array(t.Double) })
const N = t.object('com.fixed.Nest$N', { x: t.Integer })
/** A HashMap field (a LinkedHashMap is one too). */
const HM = t.object('com.fixed.HM', { m: t.map(t.Integer, 'java.util.HashMap') })
/** Field names of many scripts: what each family writes for them. */
const U = t.object('com.fixed.U', { straße: t.Integer, '¢x': t.Integer, '𝒜': t.Integer, 'x\u0301_$': t.Integer })
/** An Object field that may hold an N. */
const H = t.object('com.fixed.H', { o: t.Object([N]), z: t.Integer })

export interface FoundCase {
  /** The class of difference, as the closing notes and the README name it. */
  readonly found: string
  readonly setup: Setup
  readonly type: Descriptor
  /** A value to write, or a text to read. */
  readonly value?: unknown
  readonly text?: string
}

const w = (found: string, setup: Setup, type: Descriptor, value: unknown): FoundCase => ({ found, setup, type, value })
const r = (found: string, setup: Setup, type: Descriptor, text: string): FoundCase => ({ found, setup, type, text })

export const FOUND: readonly FoundCase[] = [
  r('attribute-reference', 'alphaXml', C, '<com.fixed.C a="&#xd;"/>'),
  w('xstream-array-names', 'alphaXml', t.array(t.Date), [new Date(0)]),
  w('xstream-array-names', 'alphaXml', t.array(t.list(t.Integer, 'java.util.LinkedList')), [[1]]),
  w('xstream-array-names', 'alphaJson', t.array(t.String), ['a']),
  w('xstream-array-names', 'alphaXml', t.array(t.map(t.Integer, 'java.util.HashMap')), []),
  w('xstream-array-names', 'alphaXml', t.array(t.list(t.Integer)), [[]]),
  w('xstream-array-names', 'alphaXml', t.list(t.array(t.LocalDate)), [[new LocalDate('2023-11-14')], []]),
  w('xstream-array-names', 'alphaJson', t.array(t.LocalDate), [new LocalDate('0999-01-31')]),
  w('xstream-char-nul', 'alphaXml', t.Character, '\u0000'),
  r('xstream-char-nul', 'alphaXml', t.Character, '<char></char>'),
  r('xstream-char-nul', 'alphaXml', t.Character, '<char>ab</char>'),
  w('xstream-julian-dates', 'alphaXml', t.Date, new Date('1411-01-30T01:52:43.915Z')),
  r('xstream-julian-dates', 'alphaJson', t.Date, '{"date":"1000-01-01 00:00:00.41 UTC"}'),
  r('java-parse-double', 'alphaXml', t.Double, '<double>0x1.8P1</double>'),
  r('java-parse-double', 'alphaXml', t.Double, '<double> 1.5d </double>'),
  r('java-parse-double', 'alphaXml', t.Double, '<double>-InfinityF</double>'),
  r('jackson-booleans', 'betaXml', t.Boolean, '<Boolean>truE</Boolean>'),
  r('jackson-booleans', 'betaXml', t.Boolean, '<Boolean>TRUE</Boolean>'),
  w('jackson-primitive-array-root', 'betaXml', t.array(t.int), [1, 2]),
  w('xstream-implicit-items', 'alphaXml', I, { n: [1, null] }),
  r('xstream-implicit-items', 'alphaXml', I, '<com.fixed.I>\n  <i__n>1</i__n>\n  <null/>\n</com.fixed.I>'),
  r('byte-order-mark', 'betaJson', t.Integer, '\ufeff1'),
  r('byte-order-mark', 'alphaJson', t.Integer, '\ufeff{"int":1}'),
  r('xml-version', 'alphaXml', t.Integer, '<?xml version="1.1"?><int>1</int>'),
  r('xml-version', 'betaXml', t.Integer, '<?xml version="1.1"?><Integer>1</Integer>'),
  r('jettison-minus-zero', 'alphaJson', t.Double, '{"double":-0}'),
  r('jackson-int-to-boolean', 'betaJson', t.list(t.Boolean), '[1,0,2]'),
  r('jackson-xml-blank', 'betaXml', t.Character, '<Character> </Character>'),
  r('jackson-xml-blank', 'betaXml', t.list(t.Character), '<ArrayList><item>&#xd;</item></ArrayList>'),
  r('jackson-date-millis', 'betaJson', t.Date, '18446751092537030975'),
  r('jackson-date-millis', 'betaJson', t.Date, '"-15930930219432"'),
  r('jackson-boxed-items', 'betaXml', t.list(t.boolean), '<ArrayList><item/></ArrayList>'),
  r('jackson-boxed-items', 'betaJson', t.list(t.boolean), '[false,true,null]'),
  r('jackson-xml-empty-element', 'betaXml', t.String, '<null/>'),
  r('jackson-xml-empty-element', 'betaXml', O, '<null/>'),
  r('jackson-xml-empty-element', 'betaXml', t.Date, '<Date/>'),
  r('jackson-xml-empty-element', 'betaXml', t.list(t.String), '<ArrayList/>'),
  r('jettison-null-attribute', 'alphaJson', B, '{"com.fixed.B":{"@b":null}}'),
  r('jackson-char-from-string', 'betaJson', t.Character, '" \\n"'),
  r('jackson-char-from-string', 'betaJson', t.Character, '"ab"'),
  w('char-array', 'alphaXml', t.array(t.char), ['a', '<', '\r', ' ']),
  w('char-array', 'alphaJson', t.array(t.char), ['a', '<', '\r', ' ']),
  w('char-array', 'betaXml', O, { f: null, c: ['a', '&', '>'] }),
  w('char-array', 'betaJson', t.array(t.char), ['a', '<', '\r', ' ']),
  r('char-array', 'alphaJson', O, '{"com.fixed.O":{"c":["xy"]}}'),
  r('char-array', 'betaJson', t.array(t.char), '"ab"'),
  w('jettison-repeated-collections', 'alphaJson', t.list(t.array(t.Integer)), [[1], [2]]),
  w('jettison-array-slash', 'alphaJson', t.list(t.String), ['a/b', 'c']),
  w('java17-double-tostring', 'betaJson', t.Double, 1e23),
  w('java17-double-tostring', 'alphaXml', t.Double, 2 ** -44),
  w('java17-double-tostring', 'betaXml', t.Double, 138545688736438432),
  w('java17-double-tostring', 'alphaJson', t.Double, -4.94e-323),
  r('jackson-decimal-to-long', 'betaJson', t.long, '7493358903381639197.0'),
  r('jettison-number-range', 'alphaJson', t.Double, '{"double":1e400}'),
  r('jettison-number-range', 'alphaJson', D, '{"com.fixed.D":{"d":[{"double":[1e400,1.5]}]}}'),
  w(
    'jackson-xml-nested-collections',
    'betaXml',
    t.map(t.list(t.Integer), 'java.util.LinkedHashMap'),
    new Map([
      ['k', [1, 2]],
      ['e', []]
    ])
  ),
  w('jackson-xml-nested-collections', 'betaXml', t.list(t.list(t.Integer)), [[], []]),
  w('jackson-xml-nested-collections', 'betaXml', t.array(t.array(t.boolean)), [[true]]),
  r('jackson-xml-nested-collections', 'betaXml', t.list(t.list(t.Integer)), '<ArrayList><item>5</item></ArrayList>'),
  r('xstream-date-lenient', 'alphaXml', t.Date, '<date> 2020-01-02 03: 04:05.6 UTC</date>'),
  r('xstream-date-lenient', 'alphaXml', t.Date, '<date>2020-13-01 00:00:00.0 UTC</date>'),
  r('xstream-text-ignored', 'alphaJson', B, '{"com.fixed.B":"A"}'),
  w('xstream-class-attribute', 'alphaXml', H, { o: t.typed(N, { x: 1 }), z: null }),
  w('xstream-class-attribute', 'alphaXml', H, { o: t.typed(t.array(N), [{ x: 1 }]), z: null }),
  r('xstream-class-attribute', 'alphaXml', H, '<com.fixed.H><o class="com.fixed.Nest_-N"><x>1</x></o></com.fixed.H>'),
  w('jettison-attribute-text', 'alphaJson', H, { o: ' a b ', z: null }),
  w('jettison-attribute-text', 'alphaJson', H, { o: t.typed(t.Character, ' '), z: null }),
  w('jackson-xml-object-slots', 'betaXml', H, { o: [1, [2, []], null], z: 5 }),
  w('jackson-xml-object-slots', 'betaXml', H, { o: [], z: 5 }),
  r('jackson-xml-object-slots', 'betaXml', H, '<H><o/><z>5</z></H>'),
  r('jackson-xml-object-slots', 'betaXml', t.list(t.Object()), '<ArrayList><item/><item> </item></ArrayList>'),
  r('jackson-xml-object-slots', 'betaXml', t.Object(), '<Object> t </Object>'),
  r('jackson-xml-object-slots', 'betaXml', H, '<H><o a="x">t<a>1</a><b/><a>2</a> u</o></H>'),
  r('jackson-token-first', 'betaJson', t.Date, 'NaN'),
  r('jackson-token-first', 'betaJson', t.map(t.Integer), '"\\u0"'),
  r('jackson-token-first', 'betaJson', t.list(t.Integer), '+1'),
  r('jackson-untyped-big-integer', 'betaJson', t.Object(), '[1000000000000000000,2521537491481840000000000,-1]'),
  r('jackson-xml-root-char-array-text', 'betaXml', t.array(t.char), '<chars>ab</chars>'),
  r('jettison-number-text', 'alphaJson', O, '{"com.fixed.O":{"f":1.50}}'),
  r('jettison-number-text', 'alphaJson', O, '{"com.fixed.O":{"f":9223372036854775808}}'),
  r('jackson-xml-object-slots', 'betaXml', t.map(t.Object(), 'java.util.LinkedHashMap'), '<M><a>1</a><b/><a>2</a></M>'),
  r(
    'woodstox-stream-order',
    'betaXml',
    t.list(t.Integer),
    '<ArrayList><item>x</item><item>&#xffff;</item></ArrayList>'
  ),
  r(
    'woodstox-stream-order',
    'betaXml',
    t.list(t.Integer),
    '<ArrayList><item>&#xffff;</item><item>x</item></ArrayList>'
  ),
  r('woodstox-stream-order', 'betaXml', t.map(t.Integer, 'java.util.LinkedHashMap'), '<M><a>x</a><>1</></M>'),
  r('woodstox-stream-order', 'betaXml', t.map(t.Integer, 'java.util.LinkedHashMap'), '<M><a>1</a><1a>2</1a></M>'),
  r('woodstox-stream-order', 'betaXml', O, '<O><f>a</f><g>&#x0;</g></O>'),
  r('woodstox-stream-order', 'betaXml', O, '<O><f>&#x0;</f><g>b</g></O>'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>x</Integer><'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>1</Integer><'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>1</Integer>x'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>1</Integer><b/>'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>1</Integer><!--'),
  r('woodstox-stream-order', 'betaXml', t.list(t.Integer), '<L><item>1</item></L>&#xffff;'),
  r('woodstox-stream-order', 'betaXml', t.Integer, '<Integer>1</Integer></Integer>'),
  r('woodstox-stream-order', 'alphaXml', t.Integer, '<int>1</int><'),
  r('woodstox-stream-order', 'alphaXml', t.Integer, '<int>1</int>x'),
  r('woodstox-stream-order', 'alphaXml', t.list(t.Integer), '<list><int>x</int><int>&#xffff;</int></list>'),
  r('woodstox-stream-order', 'alphaXml', O, '<com.fixed.O><g>&#x0;</g></com.fixed.O>'),
  r('woodstox-stream-order', 'betaXml', t.list(t.list(t.String)), '<ArrayList><item>a&#xfffe;</item></ArrayList>'),
  w('script-names', 'alphaXml', U, { straße: 1, '¢x': 2, '𝒜': 3, 'x\u0301_$': 4 }),
  w('script-names', 'alphaJson', U, { straße: 1, '¢x': 2, '𝒜': 3, 'x\u0301_$': 4 }),
  w('script-names', 'betaXml', U, { straße: 1, '¢x': 2, '𝒜': 3, 'x\u0301_$': 4 }),
  w('script-names', 'betaJson', U, { straße: 1, '¢x': 2, '𝒜': 3, 'x\u0301_$': 4 }),
  r(
    'script-names',
    'alphaXml',
    U,
    '<com.fixed.U><straße>1</straße><_.00a2x>2</_.00a2x><_.d835_.dc9c>3</_.d835_.dc9c></com.fixed.U>'
  ),
  r('script-names', 'betaXml', U, '<U><straße>1</straße><𝒜>3</𝒜></U>'),
  r('script-names', 'betaXml', U, '<U><¢x>2</¢x></U>'),
  r('script-names', 'betaXml', U, '<?xml version="1.1"?><U><¢x>2</¢x></U>'),
  r('script-names', 'betaXml', t.map(t.Integer, 'java.util.LinkedHashMap'), '<?xml version="1.1"?><M><ℵ>1</ℵ></M>'),
  r('script-names', 'betaXml', t.map(t.Integer, 'java.util.LinkedHashMap'), '<M><ℵ>1</ℵ></M>'),
  r('woodstox-stream-order', 'betaXml', t.list(t.Integer), '<ArrayList><item>x</item></ArrayList>&#x41;'),
  r('jackson-blank-scalar', 'betaJson', t.int, '" "'),
  r('jackson-blank-scalar', 'betaJson', t.Boolean, '"\\t"'),
  r('jackson-blank-scalar', 'betaJson', t.boolean, '""'),
  r('jackson-blank-scalar', 'betaJson', t.list(t.Long), '["\\u0004"," \\n ",1]'),
  r('jackson-blank-scalar', 'betaJson', t.double, '"\\u0000"'),
  r(
    'xstream-linked-hash-map-is-hash-map',
    'alphaXml',
    t.map(t.Integer, 'java.util.HashMap'),
    '<linked-hash-map><entry><string>b</string><int>1</int></entry></linked-hash-map>'
  ),
  r(
    'xstream-linked-hash-map-is-hash-map',
    'alphaJson',
    HM,
    '{"com.fixed.HM":{"m":{"@class":"linked-hash-map","entry":{"string":"b","int":1}}}}'
  ),
  r(
    'xstream-builtin-arrays-in-object-slots',
    'alphaXml',
    t.Object([N]),
    '<int-array><int>1</int><int>2</int></int-array>'
  ),
  r(
    'xstream-builtin-arrays-in-object-slots',
    'alphaXml',
    H,
    '<com.fixed.H><o class="string-array"><string>a</string><null/></o></com.fixed.H>'
  ),
  r(
    'xstream-builtin-arrays-in-object-slots',
    'alphaJson',
    H,
    '{"com.fixed.H":{"o":[{"@class":"java.lang.Integer-array","int":1,"null":""}]}}'
  ),
  r(
    'xstream-builtin-arrays-in-object-slots',
    'alphaXml',
    t.Object([N]),
    '<int-array-array><int-array><int>1</int></int-array><null/></int-array-array>'
  ),
  w('null-item-of-primitive-collection', 'alphaXml', t.list(t.boolean), [true, null]),
  w('null-item-of-primitive-collection', 'alphaJson', t.map(t.long, 'java.util.LinkedHashMap'), new Map([['a', null]])),
  w('null-item-of-primitive-collection', 'betaXml', t.list(t.list(t.double)), [[null]]),
  w('null-item-of-primitive-collection', 'betaJson', t.map(t.char, 'java.util.LinkedHashMap'), new Map([['a', null]])),
  w('null-item-of-primitive-collection', 'betaXml', t.map(t.int, 'java.util.LinkedHashMap'), new Map([['a', null]])),
  w('null-item-of-primitive-collection', 'betaJson', t.list(t.int), [null, 1]),
  w('null-item-of-primitive-collection', 'betaXml', t.list(t.boolean), [true, null]),
  r('null-item-of-primitive-collection', 'alphaXml', t.list(t.int), '<list><int>1</int><null/></list>'),
  r(
    'null-item-of-primitive-collection',
    'alphaXml',
    t.map(t.int, 'java.util.LinkedHashMap'),
    '<linked-hash-map><entry><string>a</string><null/></entry></linked-hash-map>'
  ),
  r('null-item-of-primitive-collection', 'alphaXml', t.array(t.int), '<int-array><null/></int-array>')
]
