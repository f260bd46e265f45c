// Element names as Jackson writes and reads them, through the gateway with the beta XML sequence: a map
// keyed by ordinary words of any script (every name Woodstox reads) is answered 200 and reads back. A
// key that is no name Woodstox reads, Jackson writes all the same into text no parser reads back; we
// refuse to write it (500, naming the key: docs/serializers.md), and a client's text holding such a
// name is refused as Java refuses it, 400, never a 500.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, TESTKIT_DIR, type RunningPlatform } from '../helpers/platform'

const BETA_XML = { 'Content-Type': 'application/xml', 'X-PLATFORM-Sequence-Name': 'betaParamArrayXmlInOutSequence' }
const words = (ws: string[]): string => `<ArrayList>${ws.map((w) => `<item>${w}</item>`).join('')}</ArrayList>`

let p: RunningPlatform
before(async () => {
  p = await startPlatform({}, [TESTKIT_DIR])
})
after(() => p.stop())

test('a map keyed by words of many scripts: 200, each key an element name as Jackson writes it, and it reads back', async () => {
  const keys = ['Straße', 'größe', '日本語', 'ёлка', 'x·y', 'café', 'A1.-_', '😀']
  const r = await post(p.url, '/testkit/misc/lengths', words(keys), BETA_XML)
  assert.equal(r.status, 200, r.text)
  assert.equal(r.text, `<LinkedHashMap>${keys.map((k) => `<${k}>${[...k].length}</${k}>`).join('')}</LinkedHashMap>`)
  const back = await post(p.url, '/testkit/misc/keys', r.text, BETA_XML)
  assert.equal(back.status, 200, back.text)
  assert.equal(back.text, words(keys))
})

test('a key that is no XML name Woodstox reads: refused on writing (500, naming the key), and on reading (400)', async () => {
  const r = await post(p.url, '/testkit/misc/lengths', words(['a b']), BETA_XML)
  assert.equal(r.status, 500, r.text)
  assert.match(r.text, /<code>INTERNAL<\/code>/)
  assert.match(r.text, /map key &apos;a b&apos; is not an XML name/)
  for (const body of [
    '<LinkedHashMap><×>1</×></LinkedHashMap>',
    '<LinkedHashMap><x×y>1</x×y></LinkedHashMap>',
    '<LinkedHashMap><·x>1</·x></LinkedHashMap>',
    '<LinkedHashMap><\u0300x>1</\u0300x></LinkedHashMap>',
    '<LinkedHashMap><\u3001>1</\u3001></LinkedHashMap>',
    '<LinkedHashMap><a:b>1</a:b></LinkedHashMap>'
  ]) {
    const back = await post(p.url, '/testkit/misc/keys', body, BETA_XML)
    assert.equal(back.status, 400, `${body}: ${back.text}`)
    // The argument does not deserialize, as Jackson's parser refuses it: the detail names the name.
    assert.match(back.text, /<code>BAD_ARGUMENT<\/code>/)
    assert.match(back.text, /is not an XML 1\.0 name|undeclared namespace prefix/)
  }
  // A declared prefix is a name like any other.
  const declared = await post(p.url, '/testkit/misc/keys', '<m xmlns:a="urn:a"><a:b>1</a:b></m>', BETA_XML)
  assert.equal(declared.status, 200, declared.text)
})
