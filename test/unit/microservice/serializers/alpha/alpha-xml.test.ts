// XStream's name coder as XStream 1.4.20's XmlFriendlyNameCoder.encodeNode answered it for each name
// (asked once of the Debian jar; the differential tests ask it again through whole documents).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { xstreamName } from '../../../../../src/microservice/serializers/alpha/alpha-xml'

const JAVA: ReadonlyArray<[string, string]> = [
  ['ä', 'ä'],
  ['straße', 'straße'],
  ['¢x', '_.00a2x'],
  ['x¢', 'x_.00a2'],
  ['\u{1d49c}b', '_.d835_.dc9cb'],
  ['b\u{1d49c}', 'b_.d835_.dc9c'],
  ['x·y', 'x·y'],
  ['·x', '_.00b7x'],
  ['a\u0301', 'a\u0301'],
  ['\u0301a', '_.0301a'],
  ['x‿y', 'x_.203fy'],
  ['名前', '名前'],
  ['٣x', '_.0663x'],
  ['x٣', 'x٣'],
  ['_x$y', '__x_-y'],
  ['\u{10330}', '_.d800_.df30'],
  ['1a', '_.0031a'],
  ['a:b', 'a:b']
]

test("field and class names as XStream's XmlFriendlyNameCoder writes them, unit by unit", () => {
  for (const [name, java] of JAVA) assert.equal(xstreamName(name), java, name)
})
