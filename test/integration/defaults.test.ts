// SPEC's defaults are settings, not constants: defaultApiId and defaultSequenceName set otherwise
// change what a call without those headers does, and the headers still win over them.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, type RunningPlatform } from '../helpers/platform'

describe('a platform whose defaults are RMC and alpha XML', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({
      ENTRY_POINTS: {
        WEB_SERVICE_FACADE_HTTP: { defaultApiId: 'RMC', defaultSequenceName: 'alphaParamArrayXmlInOutSequence' }
      }
    })
  })
  after(() => p.stop())

  test('a call without the two headers is RMC in alpha XML', async () => {
    const r = await post(
      p.url,
      '/example/calculator/multiplyIntsToOut',
      '<paramArray><int>2</int><int>3</int></paramArray>',
      {
        'Content-Type': 'application/xml'
      }
    )
    assert.equal(r.status, 200, r.text)
    assert.equal(r.text, '<out>\n  <result>6</result>\n</out>')
  })

  test('a one-parameter method called without headers takes its argument as RMC does: an array', async () => {
    const r = await post(p.url, '/example/calculator/multiply', '<paramArray><in><a>2</a><b>3</b></in></paramArray>', {
      'Content-Type': 'application/xml'
    })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.text, '<out>\n  <result>6</result>\n</out>')
  })

  test('the headers still decide when they are sent', async () => {
    const r = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      'X-PLATFORM-API-ID': 'ROA',
      'X-PLATFORM-Sequence-Name': 'betaParamArrayJsonInOutSequence'
    })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.text, '{"result":6}')
  })

  test('an ROA body sent without headers is read as RMC, and refused as RMC refuses it', async () => {
    const r = await post(p.url, '/example/calculator/multiply', '<in><a>2</a><b>3</b></in>', {
      'Content-Type': 'application/xml'
    })
    assert.equal(r.status, 400, r.text)
    assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+xml/)
    assert.match(r.text, /<code>MALFORMED_BODY<\/code>/)
    assert.match(r.text, /an RMC body must have the root element &lt;paramArray&gt;, not &lt;in&gt;/)
  })
})
