// The edge on :8000 against a real platform (gateway, edge, microservice processes): the UI page, the
// description that `microservice pack` puts in the zip, the /_eapi mapping with the gateway's errors,
// every documented example accepted with an answer that matches the documented schema, and deploy,
// redeploy and remove followed without a restart.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, cpSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { post, problem, until, startPlatform, EXAMPLE_DIR, type RunningPlatform } from '../../helpers/platform'
import { KINDS } from '../../fixtures/dockit'
import { schemaChecker, pointerKey, renderXml } from '../../helpers/inputs/openapi'

const work = mkdtempSync(join(tmpdir(), 'edge-test-'))
const DOCKIT_DIR = join(__dirname, '..', '..', 'fixtures', 'dockit')
type Doc = { paths: Record<string, { post: any }> } // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the embedded edge', () => {
  let d: DeployPlatform
  let edge = ''
  before(async () => {
    d = await startDeployPlatform()
    edge = `http://127.0.0.1:${d.platform.edgePort}`
    // The real command: pack puts the description in the zip; upload deploys it.
    const dir = join(work, 'example')
    cpSync(EXAMPLE_DIR, dir, { recursive: true })
    const packed = await cli(d.configFile, 'pack', dir, join(work, 'example.zip'))
    assert.equal(packed.code, 0, packed.stderr)
    assert.match(packed.stdout, /2 documented ROA methods/)
    const up = await cli(d.configFile, 'upload', join(work, 'example.zip'))
    assert.equal(up.code, 0, up.stderr)
  })
  after(() => d.stop())

  async function description(): Promise<{ status: number; doc: Doc | null }> {
    const r = await fetch(`${edge}/_swagger/example/openapi.json`)
    return { status: r.status, doc: r.status === 200 ? ((await r.json()) as Doc) : null }
  }

  test('GET /_swagger/example is the Swagger UI page, its files served locally', async () => {
    const r = await fetch(`${edge}/_swagger/example`)
    assert.equal(r.status, 200)
    assert.match(r.headers.get('content-type') ?? '', /text\/html/)
    const html = await r.text()
    assert.match(html, /swagger-ui-bundle\.js/)
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN')
    const bundle = await fetch(`${edge}/_swagger/~ui/swagger-ui-bundle.js`)
    assert.equal(bundle.status, 200)
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000)
    assert.equal((await fetch(`${edge}/_swagger/~ui/..%2Fpackage.json`)).status, 404)
  })

  test('GET / on the gateway lists what is deployed and where it is described; on the edge, a page of links', async () => {
    const r = await fetch(`${d.url}/`)
    assert.equal(r.status, 200)
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8')
    const index = (await r.json()) as { product: string; call: string; edgePort: number; microservices: unknown[] }
    assert.match(index.product, /^invocation-gateway \d+\.\d+\.\d+/)
    assert.equal(index.edgePort, d.platform.edgePort)
    assert.match(index.call, /^POST \/\{microservice\}\/\{service\}\/\{method\}/)
    const [example] = index.microservices as Array<{ methods: string[] }>
    assert.equal(index.microservices.length, 1)
    assert.deepEqual(
      { ...example, methods: undefined },
      {
        name: 'example',
        version: '1.0.0',
        available: true,
        unavailable: null,
        type: 'nativeApp',
        methods: undefined,
        ui: '/_swagger/example',
        description: '/_swagger/example/openapi.json'
      }
    )
    // The remotely enabled services' methods (the example's `internal` service is not one).
    assert.ok(example!.methods.includes('calculator/multiply') && example!.methods.includes('diagnostics/echo'))
    assert.ok(!example!.methods.some((m) => m.startsWith('internal/')), example!.methods.join(' '))
    // Other methods on / and other paths are what they were: calls.
    assert.equal((await fetch(`${d.url}/`, { method: 'PUT' })).status, 405)
    const page = await fetch(`${edge}/`)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    const html = await page.text()
    assert.match(
      html,
      /<li><a href="\/_swagger\/example">example<\/a> \(<a href="\/_swagger\/example\/openapi\.json">openapi\.json<\/a>\)<\/li>/
    )
    assert.match(html, /POST \/_eapi\/ELASTIC_HTTP\/\{microservice\}\/\{service\}\/\{method\}/)
    // Every link on the page answers.
    for (const [, href] of html.matchAll(/href="([^"]+)"/g))
      assert.equal((await fetch(`${edge}${href}`)).status, 200, href)
  })

  test('the description lists the ROA methods multiply and multiplyToInt only', async () => {
    const { status, doc } = await description()
    assert.equal(status, 200)
    assert.deepEqual(Object.keys(doc!.paths).sort(), ['/calculator/multiply', '/calculator/multiplyToInt'])
  })

  test('POST /_eapi/ELASTIC_HTTP/example/calculator/multiply is the gateway call', async () => {
    const r = await post(edge, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', '{"a":6,"b":7}', {
      'Content-Type': 'application/json',
      'X-PLATFORM-Request-ID': 'edge-1'
    })
    assert.equal(r.status, 200)
    assert.equal(r.text, '{"result":42}')
    assert.equal(r.headers.get('x-platform-request-id'), 'edge-1')
    const xml = await post(
      edge,
      '/_eapi/ELASTIC_HTTP/example/calculator/multiplyIntsToOut',
      '<paramArray><int>6</int><int>7</int></paramArray>',
      {
        'Content-Type': 'application/xml',
        'X-PLATFORM-API-ID': 'RMC',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      }
    )
    assert.equal(xml.text, '<out>\n  <result>42</result>\n</out>')
  })

  test('a short path or an unknown microservice gets the error table problem', async () => {
    const short = await post(edge, '/_eapi/ELASTIC_HTTP/example/calculator', '{}')
    assert.equal(short.status, 404)
    assert.equal(problem(short).code, 'ROUTE_NOT_FOUND')
    const bare = await post(edge, '/_eapi/ELASTIC_HTTP', '{}')
    assert.equal(problem(bare).code, 'ROUTE_NOT_FOUND')
    const unknown = await post(edge, '/_eapi/ELASTIC_HTTP/nope/calculator/multiply', '{}')
    assert.equal(problem(unknown).code, 'UNKNOWN_MICROSERVICE')
    const ui = await fetch(`${edge}/_swagger/nope`)
    assert.equal(ui.status, 404)
    assert.equal(((await ui.json()) as { code: string }).code, 'UNKNOWN_MICROSERVICE')
    const other = await post(edge, '/elsewhere', '{}')
    assert.equal(problem(other).code, 'ROUTE_NOT_FOUND')
    assert.equal(
      problem(other).detail,
      "'/elsewhere' is not served by the edge: the edge serves calls at /_eapi/ELASTIC_HTTP/{microservice}/{service}/{method} and API UIs at /_swagger/{microservice}"
    )
    // The gateway's path tried on the edge: the problem names the edge's path for that call.
    const gatewayPath = await post(edge, '/example/calculator/multiply', '{"a":2,"b":3}')
    assert.equal(gatewayPath.status, 404)
    assert.match(
      problem(gatewayPath).detail,
      /; for this call, POST \/_eapi\/ELASTIC_HTTP\/example\/calculator\/multiply$/
    )
  })

  test('every documented example body is accepted, and the answer matches the documented schema', async () => {
    const { doc } = await description()
    const check = schemaChecker(doc!)
    let checked = 0
    for (const [path, item] of Object.entries(doc!.paths)) {
      const op = item.post
      const json = op.requestBody.content['application/json']
      const r = await post(edge, `/_eapi/ELASTIC_HTTP/example${path}`, JSON.stringify(json.example))
      assert.equal(r.status, 200, `${path}: ${r.text}`)
      const answer = JSON.parse(r.text) as unknown
      const pointer = `#/paths/${pointerKey(path)}/post/responses/200/content/application~1json/schema`
      assert.deepEqual(check(pointer, answer), [], path)
      assert.deepEqual(answer, op.responses['200'].content['application/json'].example, path)
      // XML as a tool renders it from the example and the schema's xml names.
      const xmlAt = (where: string): string =>
        `#/paths/${pointerKey(path)}/post/${where}/content/application~1xml/schema`
      const body = renderXml(doc!, xmlAt('requestBody'), op.requestBody.content['application/xml'].example)
      const rx = await post(edge, `/_eapi/ELASTIC_HTTP/example${path}`, body, {
        'Content-Type': 'application/xml',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      })
      assert.equal(rx.status, 200, `${path} (XML): ${body} -> ${rx.text}`)
      const answer200 = renderXml(doc!, xmlAt('responses/200'), op.responses['200'].content['application/xml'].example)
      assert.equal(rx.text.replace(/>\s+</g, '><'), answer200, path)
      checked += 2
    }
    assert.equal(checked, 4)
  })

  test('a redeploy changes what the edge serves; a remove takes it away; nothing restarts', async () => {
    const pid = process.pid
    const port = d.platform.edgePort
    // v2 exposes only diagnostics (the config overrides the code): no documented ROA method is left.
    const zip = await packCopy(EXAMPLE_DIR, work, (c) => {
      c.version = '2.0.0'
      c.platformRegularExpressionToRemotelyEnabled = ['diagnostics']
    })
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.code, 0, up.stderr)
    await until(
      async () => Object.keys((await description()).doc?.paths ?? { x: 1 }).length === 0,
      10000,
      'the v2 description'
    )
    const { doc } = await description()
    assert.equal((doc as unknown as { info: { version: string } }).info.version, '2.0.0')
    assert.equal((await cli(d.configFile, 'remove', 'example')).code, 0)
    assert.equal((await description()).status, 404)
    assert.equal((await fetch(`${edge}/_swagger/example`)).status, 404)
    assert.equal(d.platform.edgePort, port)
    assert.equal(process.pid, pid)
  })
})

describe('every documented example of every descriptor kind, through the edge', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({}, [DOCKIT_DIR])
  })
  after(() => p.stop())

  test('each example body is accepted in JSON and XML, and the answer matches the documented response', async () => {
    const edge = `http://127.0.0.1:${p.platform.edgePort}`
    const doc = (await (await fetch(`${edge}/_swagger/dockit/openapi.json`)).json()) as Doc
    const check = schemaChecker(doc)
    let checked = 0
    let xmlChecked = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      const op = item.post
      const json = op.requestBody.content['application/json']
      if (json.example === undefined) continue
      const r = await post(edge, `/_eapi/ELASTIC_HTTP/dockit${path}`, JSON.stringify(json.example))
      assert.equal(r.status, 200, `${path}: ${r.text}`)
      const pointer = `#/paths/${pointerKey(path)}/post/responses/200/content/application~1json/schema`
      assert.deepEqual(check(pointer, JSON.parse(r.text)), [], `${path}: ${r.text}`)
      assert.deepEqual(JSON.parse(r.text), op.responses['200'].content['application/json'].example, path)
      checked++
      // The XML a tool renders from the example (the unit test compares it with the serializer's
      // own, kind by kind); a Date and a map are what the xml object cannot spell.
      const kind = KINDS[Number(path.slice('/kinds/m'.length))]?.[0] ?? ''
      if (['Date', 'Map<String,Integer>', 'Map<String,In>'].includes(kind)) continue
      const at = `#/paths/${pointerKey(path)}/post/requestBody/content/application~1xml/schema`
      const body = renderXml(doc, at, op.requestBody.content['application/xml'].example)
      const rx = await post(edge, `/_eapi/ELASTIC_HTTP/dockit${path}`, body, {
        'Content-Type': 'application/xml',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      })
      assert.equal(rx.status, 200, `${path} (XML): ${body} -> ${rx.text}`)
      xmlChecked++
    }
    assert.equal(checked, KINDS.length)
    assert.equal(xmlChecked, KINDS.length - 3)
  })
})
