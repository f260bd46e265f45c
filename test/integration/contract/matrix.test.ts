import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, type RunningPlatform } from '../../helpers/platform'
import { kinds, sequences } from '../../helpers/inputs/spec-calls'

for (const inline of [true, false]) {
  describe(`the SPEC matrix through the gateway (${inline ? 'inline' : 'worker pool'} path)`, () => {
    let p: RunningPlatform
    before(async () => {
      p = await startPlatform({ WORKER_POOL: { inlineMaxBytes: inline ? 65536 : 0 } })
    })
    after(() => p.stop())

    let seed = 3
    for (const s of sequences) {
      for (const k of kinds) {
        for (const mode of ['ROA', 'RMC'] as const) {
          if (mode === 'ROA' && !k.roa) continue
          const a = seed++
          const b = seed++ * 2
          test(`${k.kind} ${k.method} ${mode} ${s.name}`, async () => {
            const args = k.args(s, a, b)
            const body = mode === 'ROA' ? args[0]! : s.rmc(args)
            const headers: Record<string, string> = {
              'Content-Type': s.contentType,
              'X-PLATFORM-Sequence-Name': s.name
            }
            if (mode === 'RMC') headers['X-PLATFORM-API-ID'] = 'RMC'
            const r = await post(p.url, `/example/calculator/${k.method}`, body, headers)
            assert.equal(r.status, 200, r.text)
            assert.equal(r.text, k.out(s, a * b))
            assert.equal(r.headers.get('content-type'), `${s.contentType}; charset=utf-8`)
          })
        }
      }
    }

    test('ROA is the default mode and betaParamArrayJsonInOutSequence the default sequence', async () => {
      const r = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}')
      assert.equal(r.status, 200)
      assert.equal(r.text, '{"result":6}')
    })

    test('a 64-bit long travels exactly, both ways', async () => {
      const r = await post(p.url, '/example/diagnostics/echoLong', '9223372036854775807')
      assert.equal(r.text, '9223372036854775807')
      const x = await post(p.url, '/example/diagnostics/echoLong', '<long>-9223372036854775808</long>', {
        'Content-Type': 'application/xml',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      })
      assert.equal(x.text, '<long>-9223372036854775808</long>')
    })

    test('strings re-serialized by each sequence', async () => {
      const s = 'a "quoted" <tag> & é 日本 😀'
      const cases: Array<[string, string, string, string]> = [
        [
          'betaParamArrayJsonInOutSequence',
          'application/json',
          JSON.stringify(s),
          '"a \\"quoted\\" <tag> & é 日本 😀"'
        ],
        [
          'alphaParamArrayJsonInOutSequence',
          'application/json',
          `{"string":${JSON.stringify(s)}}`,
          '{"string":"a \\"quoted\\" <tag> & é 日本 😀"}'
        ],
        [
          'alphaParamArrayXmlInOutSequence',
          'application/xml',
          '<string>a "quoted" &lt;tag&gt; &amp; é 日本 😀</string>',
          '<string>a &quot;quoted&quot; &lt;tag&gt; &amp; é 日本 😀</string>'
        ],
        [
          'betaParamArrayXmlInOutSequence',
          'application/xml',
          '<String>a "quoted" &lt;tag> &amp; é 日本 😀</String>',
          '<String>a "quoted" &lt;tag> &amp; é 日本 😀</String>'
        ]
      ]
      for (const [seq, ct, body, expected] of cases) {
        const r = await post(p.url, '/example/diagnostics/echo', body, {
          'Content-Type': ct,
          'X-PLATFORM-Sequence-Name': seq
        })
        assert.equal(r.status, 200, `${seq}: ${r.text}`)
        assert.equal(r.text, expected, seq)
      }
    })

    test('a method without parameters takes [] or <paramArray/>', async () => {
      const j = await post(p.url, '/example/diagnostics/context', '[]', {
        'Content-Type': 'application/json',
        'X-PLATFORM-API-ID': 'RMC'
      })
      assert.equal(j.status, 200, j.text)
      const x = await post(p.url, '/example/diagnostics/context', '<paramArray/>', {
        'Content-Type': 'application/xml',
        'X-PLATFORM-API-ID': 'RMC',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      })
      assert.equal(x.status, 200, x.text)
      assert.match(
        x.text,
        /^<context>\n {2}<privilegeNames\/>\n {2}<requestId>[^<]+<\/requestId>\n {2}<ip>127\.0\.0\.1<\/ip>\n {2}<privileged>false<\/privileged>\n<\/context>$/
      )
    })

    test('sumProducts takes a list argument and answers a long', async () => {
      const list = Array.from({ length: 1000 }, (_, k) => ({ a: k, b: 2147483647 - k }))
      const expected = list.reduce((s, x) => s + BigInt(x.a) * BigInt(x.b) * 3n, 0n)
      const r = await post(p.url, '/example/calculator/sumProducts', JSON.stringify([list, 3]), {
        'Content-Type': 'application/json',
        'X-PLATFORM-API-ID': 'RMC'
      })
      assert.equal(r.status, 200, r.text)
      assert.equal(r.text, expected.toString())
    })

    test('a void method answers 204 with no body', async () => {
      const r = await post(p.url, '/testkit/misc/nothing', '"x"')
      assert.equal(r.status, 204)
      assert.equal(r.text, '')
      assert.ok(r.headers.get('x-platform-request-id'))
    })

    test("a microservice's own serializer bean replaces the default of its sequence", async () => {
      const seq = { 'Content-Type': 'application/json', 'X-PLATFORM-Sequence-Name': 'alphaParamArrayJsonInOutSequence' }
      const r = await post(p.url, '/testkit/custom/shout', '"hello"', seq)
      assert.equal(r.status, 200)
      assert.equal(r.text, '{"shouted":"HELLO"}')
      // The other sequences keep their defaults.
      const d = await post(p.url, '/testkit/custom/shout', '"hello"')
      assert.equal(d.text, '"hello"')
    })
  })
}
