// Element names as Jackson writes and reads them, through the gateway with the beta XML sequence: a map
// keyed by ordinary words of any script (every name Woodstox reads) is answered 200 and reads back. A
// key that is no name Woodstox reads, Jackson writes all the same into text no parser reads back, and so
// do we (200); a client's text holding such a name is refused as Java refuses it, 400, never a 500. Only
// a key holding markup, which would make another document, is refused on writing (500, naming the key:
// docs/serializers.md).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, TESTKIT_DIR, type RunningPlatform } from '../../helpers/platform'

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

test('a key that is no XML name Woodstox reads: written as Jackson writes it (200), refused on reading (400)', async () => {
  const r = await post(p.url, '/testkit/misc/lengths', words(['a b']), BETA_XML)
  assert.equal(r.status, 200, r.text)
  assert.equal(r.text, '<LinkedHashMap><a b>3</a b></LinkedHashMap>')
  // What Jackson wrote, no parser reads: the gateway refuses the body before a microservice sees it.
  const again = await post(p.url, '/testkit/misc/keys', r.text, BETA_XML)
  assert.equal(again.status, 400, again.text)
  assert.match(again.text, /<code>MALFORMED_BODY<\/code>/)
  // A key holding markup would make another document (<a>b>3</a>b>): refused, naming the key.
  const markup = await post(p.url, '/testkit/misc/lengths', '<ArrayList><item>a&gt;b</item></ArrayList>', BETA_XML)
  assert.equal(markup.status, 500, markup.text)
  assert.match(markup.text, /<code>INTERNAL<\/code>/)
  assert.match(markup.text, /map key &apos;a&gt;b&apos; holds markup, which would change the document/)
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
