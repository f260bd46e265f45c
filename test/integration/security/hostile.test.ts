import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  startPlatform,
  post,
  problem,
  EXAMPLE_DIR,
  TYPEKIT_DIR,
  type RunningPlatform,
  type Reply
} from '../../helpers/platform'

const SEQ = {
  alphaXml: { 'Content-Type': 'application/xml', 'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence' },
  alphaJson: { 'Content-Type': 'application/json', 'X-PLATFORM-Sequence-Name': 'alphaParamArrayJsonInOutSequence' },
  betaJson: { 'Content-Type': 'application/json', 'X-PLATFORM-Sequence-Name': 'betaParamArrayJsonInOutSequence' },
  betaXml: { 'Content-Type': 'application/xml', 'X-PLATFORM-Sequence-Name': 'betaParamArrayXmlInOutSequence' }
}

/** Checks a 400 and its code; XML requests get problem+xml, checked by hand. */
function expect400(r: Reply, code: 'BAD_ARGUMENT' | 'MALFORMED_BODY', detail: RegExp): void {
  assert.equal(r.status, 400, r.text)
  if ((r.headers.get('content-type') ?? '').includes('xml')) {
    assert.match(r.text, new RegExp(`<code>${code}</code>`))
    assert.match(
      r.text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&amp;/g, '&'),
      detail
    )
    return
  }
  const p = problem(r)
  assert.equal(p.code, code)
  assert.match(p.detail, detail)
}

describe('hostile input reaches no further than a 400', () => {
  let p: RunningPlatform
  let pid = ''
  // The gateway splitter would stop deep bodies first; let them through to test the deserializers.
  before(async () => {
    p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxDepth: 100000 } } }, [
      EXAMPLE_DIR,
      TYPEKIT_DIR
    ])
    pid = (await post(p.url, '/typekit/types/pid', '[]', { ...SEQ.betaJson, 'X-PLATFORM-API-ID': 'RMC' })).text
  })
  after(async () => {
    // The process is unharmed: the same pid answers, and nothing reached Object.prototype.
    const rmc = { ...SEQ.betaJson, 'X-PLATFORM-API-ID': 'RMC' }
    assert.equal((await post(p.url, '/typekit/types/pid', '[]', rmc)).text, pid)
    assert.equal((await post(p.url, '/typekit/types/polluted', '[]', rmc)).text, 'false')
    await p.stop()
  })

  test('type names the descriptors do not allow (alpha: element names and class attributes)', async () => {
    expect400(
      await post(
        p.url,
        '/typekit/types/anything',
        '<java.lang.ProcessBuilder><command/></java.lang.ProcessBuilder>',
        SEQ.alphaXml
      ),
      'BAD_ARGUMENT',
      /type <java\.lang\.ProcessBuilder> is not allowed here/
    )
    expect400(
      await post(p.url, '/typekit/types/holder', '<holder><value class="java.lang.Runtime"/></holder>', SEQ.alphaXml),
      'BAD_ARGUMENT',
      /class 'java\.lang\.Runtime' is not allowed for Object/
    )
    expect400(
      await post(p.url, '/typekit/types/anything', '{"sun.rmi.server.UnicastRef":{"x":1}}', SEQ.alphaJson),
      'BAD_ARGUMENT',
      /type <sun\.rmi\.server\.UnicastRef> is not allowed here/
    )
    expect400(
      await post(
        p.url,
        '/typekit/types/holder',
        '{"holder":{"value":{"@class":"javax.naming.InitialContext"}}}',
        SEQ.alphaJson
      ),
      'BAD_ARGUMENT',
      /class 'javax\.naming\.InitialContext' is not allowed/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '{"@class":"java.lang.Runtime","a":1}', SEQ.betaJson),
      'BAD_ARGUMENT',
      /Unrecognized field "@class"/
    )
    // The allowed class still works through the same slot.
    const ok = await post(p.url, '/typekit/types/anything', '<in><a>2</a><b>3</b></in>', SEQ.alphaXml)
    assert.equal(ok.text, '<in>\n  <a>2</a>\n  <b>3</b>\n</in>')
    // beta has no type names: an Object slot reads plain maps, never a class.
    const beta = await post(p.url, '/typekit/types/anything', '{"@class":"java.lang.Runtime"}', SEQ.betaJson)
    assert.equal(beta.text, '{"@class":"java.lang.Runtime"}')
  })

  test('10,000-deep nesting in each sequence', async () => {
    const n = 10000
    expect400(
      await post(p.url, '/typekit/types/anything', '['.repeat(n) + ']'.repeat(n), SEQ.betaJson),
      'BAD_ARGUMENT',
      /nesting deeper than 1000 levels/
    )
    // A typed slot meets the nesting where it does not belong, before any depth matters.
    expect400(
      await post(p.url, '/typekit/types/ints', '['.repeat(n) + ']'.repeat(n), SEQ.betaJson),
      'BAD_ARGUMENT',
      /at \/0: Cannot deserialize value of type `Integer` from Array value/
    )
    expect400(
      await post(p.url, '/typekit/types/anything', `{"list":${'['.repeat(n)}${']'.repeat(n)}}`, SEQ.alphaJson),
      'BAD_ARGUMENT',
      /nesting deeper than 1000 levels/
    )
    expect400(
      await post(p.url, '/typekit/types/anything', '<list>'.repeat(n) + '</list>'.repeat(n), SEQ.alphaXml),
      'BAD_ARGUMENT',
      /nesting deeper than 1000 levels/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '<In>' + '<a>'.repeat(n) + '</a>'.repeat(n) + '</In>', SEQ.betaXml),
      'BAD_ARGUMENT',
      /nesting deeper than 1000 levels/
    )
  })

  test('with the default maxDepth the gateway refuses such a body itself, before any round trip', async () => {
    const strict = await startPlatform({}, [TYPEKIT_DIR])
    try {
      expect400(
        await post(strict.url, '/typekit/types/ints', '['.repeat(10000) + ']'.repeat(10000), SEQ.betaJson),
        'MALFORMED_BODY',
        /nesting deeper than 1000 levels/
      )
    } finally {
      await strict.stop()
    }
  })

  test('integers as XStream reads them: octal and hex notations, and a refusal (400), never a 500', async () => {
    const rmc = { ...SEQ.alphaXml, 'X-PLATFORM-API-ID': 'RMC' }
    const ok = await post(
      p.url,
      '/example/calculator/multiplyInts',
      '<paramArray><int>010</int><int>0x10</int></paramArray>',
      rmc
    )
    assert.equal(ok.text, '<int>128</int>')
    const wrapped = await post(
      p.url,
      '/example/calculator/multiplyInts',
      '<paramArray><int>4294967295</int><int>3</int></paramArray>',
      rmc
    )
    assert.equal(wrapped.text, '<int>-3</int>', 'XStream wraps 0xFFFFFFFF to -1')
    // Java 17's own words, as the oracle gave them (Long.decode inside XStream's IntConverter).
    for (const [bad, words] of [
      ['07e4', 'For input string: "7e4" under radix 8'],
      ['08', 'For input string: "8" under radix 8'],
      ['0x-1', 'Sign character in wrong position'],
      ['4294967296', 'For input string: "4294967296"'],
      [' 6', 'For input string: " 6"']
    ] as const) {
      const r = await post(
        p.url,
        '/example/calculator/multiplyInts',
        `<paramArray><int>${bad}</int><int>1</int></paramArray>`,
        rmc
      )
      expect400(r, 'BAD_ARGUMENT', new RegExp(`\\(Integer\\): ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}<`))
    }
  })

  test('huge numbers are out of range, never rounded or wrapped', async () => {
    expect400(
      await post(p.url, '/typekit/types/long', '9223372036854775808', SEQ.betaJson),
      'BAD_ARGUMENT',
      /out of range of a 64-bit integer/
    )
    expect400(
      await post(p.url, '/typekit/types/long', '1' + '0'.repeat(5000), SEQ.betaJson),
      'BAD_ARGUMENT',
      /out of range/
    )
    expect400(await post(p.url, '/typekit/types/input', '{"a":1e400}', SEQ.betaJson), 'BAD_ARGUMENT', /out of range/)
    expect400(
      await post(p.url, '/typekit/types/long', '<long>99999999999999999999</long>', SEQ.alphaXml),
      'BAD_ARGUMENT',
      /For input string: "99999999999999999999"/ // Java's NumberFormatException, as XStream reports it
    )
    expect400(
      await post(p.url, '/typekit/types/input', '{"in":{"a":12345678901234567890}}', SEQ.alphaJson),
      'BAD_ARGUMENT',
      // Jettison hands a number past a long to XStream as a double's text (checked with the real pair).
      /For input string: "1.2345678901234567E19"/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '<In><a>2147483648</a></In>', SEQ.betaXml),
      'BAD_ARGUMENT',
      /out of range/
    )
    // Within range, 64 bits are exact end to end.
    assert.equal(
      (await post(p.url, '/typekit/types/long', '-9223372036854775808', SEQ.betaJson)).text,
      '-9223372036854775808'
    )
  })

  test('prototype keys are unknown fields or plain map keys, never properties', async () => {
    expect400(
      await post(p.url, '/typekit/types/input', '{"__proto__":{"polluted":1},"a":1}', SEQ.betaJson),
      'BAD_ARGUMENT',
      /Unrecognized field "__proto__"/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '{"constructor":{"prototype":{"polluted":1}}}', SEQ.betaJson),
      'BAD_ARGUMENT',
      /Unrecognized field "constructor"/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '{"in":{"__proto__":{"polluted":1}}}', SEQ.alphaJson),
      'BAD_ARGUMENT',
      /No such field com\.example\.In\.__proto__/
    )
    expect400(
      await post(p.url, '/typekit/types/input', '<In><__proto__><polluted>1</polluted></__proto__></In>', SEQ.betaXml),
      'BAD_ARGUMENT',
      /Unrecognized field "__proto__"/
    )
    const map = await post(p.url, '/typekit/types/anything', '{"__proto__":{"polluted":1}}', SEQ.betaJson)
    assert.equal(map.status, 200)
    assert.equal(map.text, '{"__proto__":{"polluted":1}}', 'kept as a map entry and written back as data')
  })

  test('entity declarations and undefined entities are refused', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE in [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><in><a>&b;</a></in>'
    expect400(
      await post(p.url, '/typekit/types/input', laughs, SEQ.alphaXml),
      'MALFORMED_BODY',
      /DOCTYPE declarations are not accepted/
    )
    expect400(
      await post(
        p.url,
        '/typekit/types/input',
        '<!DOCTYPE In [<!ENTITY x SYSTEM "file:///etc/passwd">]><In><a>&x;</a></In>',
        SEQ.betaXml
      ),
      'MALFORMED_BODY',
      /DOCTYPE/
    )
    expect400(
      await post(p.url, '/typekit/types/text', '<string>&x;</string>', SEQ.alphaXml),
      'MALFORMED_BODY',
      /undefined entity '&x;'/
    )
  })
})
