// SPEC's defaults are settings, not constants: defaultApiId and defaultSequenceName set otherwise
// change what a call without those headers does, and the headers still win over them.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, type RunningPlatform } from '../../helpers/platform'
import { renderXml } from '../../helpers/inputs/openapi'

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

  test("the edge's API description shows these defaults: the sequence header's default, API-ID required", async () => {
    const r = await fetch(`http://127.0.0.1:${p.platform.edgePort}/_swagger/example/openapi.json`)
    assert.equal(r.status, 200)
    const doc = (await r.json()) as Description
    assert.deepEqual(doc.info['x-platform-defaults'], { sequence: 'alphaParamArrayXmlInOutSequence', apiId: 'RMC' })
    const op = doc.paths['/calculator/multiply'].post
    const header = (name: string) => op.parameters.find((h) => h.name === name)!
    assert.equal(header('X-PLATFORM-Sequence-Name').schema.default, 'alphaParamArrayXmlInOutSequence')
    assert.equal(header('X-PLATFORM-API-ID').required, true)
    assert.match(doc.info.description, /calls a method RMC when X-PLATFORM-API-ID is not sent: send ROA/)
    // The example, sent as XML the way the description's xml names spell it, is answered as shown.
    const example = renderXml(doc, REQUEST_XML, op.requestBody.content['application/xml'].example)
    assert.equal(example, '<in><a>6</a><b>7</b></in>')
    const call = await post(p.url, '/example/calculator/multiply', example, {
      'Content-Type': 'application/xml',
      'X-PLATFORM-API-ID': 'ROA'
    })
    assert.equal(call.status, 200, call.text)
    assert.equal(
      call.text.replace(/>\s+</g, '><'),
      renderXml(doc, RESPONSE_XML, op.responses['200'].content['application/xml'].example)
    )
  })
})

describe('a platform whose default sequence is beta XML', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { defaultSequenceName: 'betaParamArrayXmlInOutSequence' } }
    })
  })
  after(() => p.stop())

  test("the description's XML is Jackson XML, and its example called without headers is answered as shown", async () => {
    const r = await fetch(`http://127.0.0.1:${p.platform.edgePort}/_swagger/example/openapi.json`)
    const doc = (await r.json()) as Description
    const op = doc.paths['/calculator/multiply'].post
    const xml = op.requestBody.content['application/xml']
    const example = renderXml(doc, REQUEST_XML, xml.example)
    assert.equal(example, '<In><a>6</a><b>7</b></In>')
    assert.equal(xml.schema.$ref, '#/components/schemas/com.example.In')
    const call = await post(p.url, '/example/calculator/multiply', example, { 'Content-Type': 'application/xml' })
    assert.equal(call.status, 200, call.text)
    assert.equal(call.text, '<Out><result>42</result></Out>')
    assert.equal(
      renderXml(doc, RESPONSE_XML, op.responses['200'].content['application/xml'].example),
      '<Out><result>42</result></Out>'
    )
  })
})

const REQUEST_XML = '#/paths/~1calculator~1multiply/post/requestBody/content/application~1xml/schema'
const RESPONSE_XML = '#/paths/~1calculator~1multiply/post/responses/200/content/application~1xml/schema'

interface Description {
  info: { description: string; 'x-platform-defaults': unknown }
  paths: {
    '/calculator/multiply': {
      post: {
        parameters: Array<{ name: string; required: boolean; schema: { default?: string } }>
        requestBody: { content: { 'application/xml': { example: unknown; schema: { $ref?: string } } } }
        responses: { '200': { content: { 'application/xml': { example: unknown } } } }
      }
    }
  }
}
