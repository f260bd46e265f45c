// The generated nginx edge's own refusals, and the UI and calls through it in every TLS combination the
// generator offers: a real nginx (`microservice edge nginx-config --standalone`) in front of real
// platforms. nginx's 400, 413, 431, 502 and 504 are problem details with the gateway's codes in every
// location; a gateway's own answer passes through untouched; over HTTP/2 a header past nginx's buffer
// closes the connection (GOAWAY ENHANCE_YOUR_CALM), which docs/edge.md says with its numbers.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { connect as connectTcp } from 'node:net'
import { connect as connectH2, type ClientHttp2Session, type SecureClientSessionOptions } from 'node:http2'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { startPlatform, EXAMPLE_DIR, type RunningPlatform, type Json } from '../../helpers/platform'
import { startNginx, freePort, type RunningNginx } from '../../helpers/nginx'
import { h2Exchange } from '../../helpers/inputs/http2'
import { CertificateMaker, type Made } from '../../helpers/inputs/certificates'
import type { NginxEdgeOptions } from '../../../src/cli/manifests/nginx'

const MULTIPLY = '/_eapi/ELASTIC_HTTP/example/calculator/multiply'
const JSON_CT = { 'content-type': 'application/json' }

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

interface Client {
  ca?: string
  certFile?: string
  keyFile?: string
}

/** One HTTP/1.1 request (https with the client's CA and certificate), its answer as text. */
function call(
  url: string,
  path: string,
  o: { method?: string; body?: string | Buffer; headers?: Record<string, string>; client?: Client } = {}
): Promise<Answer> {
  const u = new URL(path, url)
  const tls = u.protocol === 'https:'
  const options = {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers: { ...(o.body === undefined ? {} : JSON_CT), ...o.headers },
    agent: false as const,
    ...(tls
      ? {
          ca: o.client?.ca,
          servername: 'localhost',
          cert: o.client?.certFile === undefined ? undefined : readFileSync(o.client.certFile),
          key: o.client?.keyFile === undefined ? undefined : readFileSync(o.client.keyFile)
        }
      : {})
  }
  return new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(u, options, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') })
      )
    })
    req.on('error', reject)
    req.end(o.body)
  })
}

/** The answer is nginx's problem of `code` (or the gateway's, by its detail): status, type, body, headers. */
function assertProblem(a: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(a.status, status, a.text)
  assert.match(String(a.headers['content-type']), /^application\/problem\+json/, a.text)
  const p = JSON.parse(a.text) as { type: string; status: number; code: string; detail: string; requestId: string }
  assert.equal(p.code, code)
  assert.equal(p.status, status)
  assert.equal(p.type, `urn:platform:problem:${code}`)
  assert.match(p.requestId, /^[0-9a-f]{32}$|^[\w-]+$/)
  assert.equal(a.headers['x-content-type-options'], 'nosniff')
  if (detail !== undefined) assert.match(p.detail, detail)
}

/** Raw bytes on a socket: what nginx answers, as text, once it closes. */
function raw(url: string, bytes: string): Promise<Answer> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const s = connectTcp(Number(u.port), u.hostname, () => s.write(bytes))
    let text = ''
    s.setEncoding('latin1')
    s.on('data', (d: string) => (text += d))
    s.on('error', reject)
    s.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers: IncomingHttpHeaders = {}
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: body })
    })
  })
}

type H2Outcome = { status: number; type: string; text: string } | { goaway: number } | { error: string }

/** One request on a fresh HTTP/2 session; what became of it (an answer, a GOAWAY, a stream error). */
function h2(
  url: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  client?: Client
): Promise<H2Outcome> {
  // Node's own client refuses to send a header block past 64 KiB (REFUSED_STREAM, never on the wire):
  // the limit is raised so that nginx's answer is what is seen.
  const options: SecureClientSessionOptions = { maxSendHeaderBlockLength: 1 << 22 }
  if (client?.ca !== undefined) Object.assign(options, { ca: client.ca, servername: 'localhost' })
  if (client?.certFile !== undefined && client.keyFile !== undefined)
    Object.assign(options, { cert: readFileSync(client.certFile), key: readFileSync(client.keyFile) })
  return new Promise((resolve) => {
    const session: ClientHttp2Session = connectH2(url, options)
    const done = (o: H2Outcome): void => {
      session.destroy()
      resolve(o)
    }
    session.on('goaway', (code: number) => done({ goaway: code }))
    session.on('error', (e: Error) => done({ error: e.message }))
    h2Exchange(session, { ':method': body === undefined ? 'GET' : 'POST', ':path': path, ...headers }, body).then(
      done,
      (e: Error) => done({ error: e.message })
    )
  })
}

const node = (p: RunningPlatform) => ({
  host: '127.0.0.1',
  gatewayPort: p.platform.port,
  edgePort: p.platform.edgePort
})

describe("nginx's own refusals are problem details", () => {
  let platform: RunningPlatform
  let nginx: RunningNginx
  before(async () => {
    // The gateway's limit is below nginx's (nginx counts whole MiB): a body between the two gets the
    // gateway's own 413, past both nginx's.
    platform = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyBytes: 65536 } } })
    // A short executing timeout for nginx only: its read timeout passes while the gateway still waits.
    nginx = await startNginx([node(platform)], { maxBodyBytes: 65536, executingTimeoutMs: 1000 }, { h2c: true })
  })
  after(async () => {
    await nginx?.stop()
    await platform?.stop()
  })

  test('413: a body past the edge limit, in every location; a body past the gateway limit only: the gateway answers', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'a')
    for (const path of [MULTIPLY, '/_swagger/example/openapi.json', '/elsewhere'])
      assertProblem(await call(nginx.url, path, { body: big }), 413, 'BODY_TOO_LARGE', /the edge accepts/)
    const gateways = await call(nginx.url, MULTIPLY, { body: `{"a":"${'1'.repeat(100_000)}"}` })
    assertProblem(gateways, 413, 'BODY_TOO_LARGE')
    assert.doesNotMatch(JSON.parse(gateways.text).detail, /the edge accepts/, 'the gateway answered, untouched')
    const h2c = await h2(nginx.h2cUrl!, MULTIPLY, JSON_CT, big.toString())
    assert.ok('status' in h2c, JSON.stringify(h2c))
    assert.equal(h2c.status, 413)
    assert.match(h2c.type, /^application\/problem\+json/)
    assert.equal((JSON.parse(h2c.text) as { code: string }).code, 'BODY_TOO_LARGE')
  })

  test('431 over HTTP/1.1: a header line or a request line past the edge limit, in every location', async () => {
    for (const path of [MULTIPLY, '/_swagger/example/', '/'])
      assertProblem(await call(nginx.url, path, { headers: { 'X-Big': 'x'.repeat(10_000) } }), 431, 'HEADERS_TOO_LARGE')
    assertProblem(await call(nginx.url, `${MULTIPLY}?${'q'.repeat(10_000)}`, { body: '{}' }), 431, 'HEADERS_TOO_LARGE')
  })

  test('over h2c: a field past the buffer, or a header list past four of them, closes the connection', async () => {
    const ok = await h2(nginx.h2cUrl!, MULTIPLY, { ...JSON_CT, 'x-big': '&'.repeat(8_100) }, '{"a":6,"b":7}')
    assert.deepEqual(ok, { status: 200, type: 'application/json; charset=utf-8', text: '{"result":42}' })
    // '&' has an 8-bit Huffman code, so the bytes on the wire are the characters: 8,192 is the limit.
    assert.deepEqual(await h2(nginx.h2cUrl!, MULTIPLY, { 'x-big': '&'.repeat(8_200) }, '{}'), { goaway: 11 })
    assert.deepEqual(await h2(nginx.h2cUrl!, MULTIPLY, { 'x-big': 'x'.repeat(100_000) }, '{}'), { goaway: 11 })
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x-big-${i}`, '&'.repeat(3_300)]))
    assert.deepEqual(await h2(nginx.h2cUrl!, MULTIPLY, many, '{}'), { goaway: 11 })
  })

  test('400: a request nginx itself cannot read (two Host headers, a broken request line), as a problem', async () => {
    const a = await raw(nginx.url, `POST ${MULTIPLY} HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 2\r\n\r\n{}`)
    assertProblem(a, 400, 'MALFORMED_REQUEST', /could not read the request/)
    const broken = await raw(nginx.url, `POST ${MULTIPLY} HTTP/1.1 x\r\nHost: a\r\n\r\n`)
    assertProblem(broken, 400, 'MALFORMED_REQUEST', /could not read the request/)
  })

  test('504: no answer within the executing timeout (and a second) is NODE_TIMEOUT', async () => {
    const a = await call(nginx.url, '/_eapi/ELASTIC_HTTP/testkit/slow/sleep', { body: '4000' })
    assertProblem(a, 504, 'NODE_TIMEOUT')
    assert.equal(a.headers['x-platform-request-id'], (JSON.parse(a.text) as { requestId: string }).requestId)
  })

  test('502: a node that refuses connections is NODE_FAILED, for calls and for the UI', async () => {
    const dead = { host: '127.0.0.1', gatewayPort: await freePort(), edgePort: await freePort() }
    const down = await startNginx([dead])
    try {
      assertProblem(await call(down.url, MULTIPLY, { body: '{"a":6,"b":7}' }), 502, 'NODE_FAILED')
      assertProblem(await call(down.url, '/_swagger/example/'), 502, 'NODE_FAILED')
    } finally {
      await down.stop()
    }
  })
})

describe('the UI and calls through nginx in every TLS combination', () => {
  const certs = new CertificateMaker()
  let gatewayCert: Made
  let edgeCert: Made
  let client: Made
  let ca: string
  let plain: RunningPlatform
  let tls: RunningPlatform
  let tlsPlainEdge: RunningPlatform
  before(async () => {
    gatewayCert = certs.make('gateway', ['gateway.test'])
    edgeCert = certs.make('nginx-edge', ['localhost'])
    client = certs.make('client', ['client.test'], { subject: '/O=Acme/CN=billing' })
    ca = readFileSync(certs.caFile, 'utf8')
    const block: { [k: string]: Json } = { certFile: gatewayCert.certFile, keyFile: gatewayCert.keyFile }
    plain = await startPlatform({}, [EXAMPLE_DIR])
    // The embedded edge takes the gateway's certificate, as the platform will by default.
    // The edge takes the gateway's TLS when it has none of its own (docs/security.md, "No plaintext door").
    tls = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: block } } }, [EXAMPLE_DIR])
    // An edge left plain on purpose beside a gateway on TLS: --upstream-edge-tls off.
    tlsPlainEdge = await startPlatform(
      { ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: block } }, EDGE: { allowPlaintext: true } },
      [EXAMPLE_DIR]
    )
  })
  after(async () => {
    await plain?.stop()
    await tls?.stop()
    await tlsPlainEdge?.stop()
  })

  type Combination = Pick<NginxEdgeOptions, 'tls' | 'upstreamTls' | 'upstreamEdgeTls' | 'clientCertificates'> & {
    h2c?: boolean
  }
  const combinations = (): Array<[string, () => RunningPlatform, Combination]> => {
    const front = { certFile: edgeCert.certFile, keyFile: edgeCert.keyFile }
    const upstream = { caFile: certs.caFile, serverName: 'gateway.test' }
    const clients = { caFile: certs.caFile, mode: 'require' as const }
    return [
      ['plain, plain', () => plain, {}],
      ['plain + h2c, plain', () => plain, { h2c: true }],
      ['TLS, plain', () => plain, { tls: front }],
      ['TLS + client certificates, plain', () => plain, { tls: front, clientCertificates: clients }],
      ['plain, TLS to gateways and edges', () => tls, { upstreamTls: upstream }],
      ['TLS, TLS to gateways and edges', () => tls, { tls: front, upstreamTls: upstream }],
      ['TLS + client certificates, TLS', () => tls, { tls: front, upstreamTls: upstream, clientCertificates: clients }],
      ['TLS + h2c, TLS', () => tls, { tls: front, upstreamTls: upstream, h2c: true }],
      [
        'TLS, TLS to gateways, plain edges',
        () => tlsPlainEdge,
        { tls: front, upstreamTls: upstream, upstreamEdgeTls: false }
      ]
    ]
  }

  test('Swagger UI (page, assets, init.js, the description) and a call load through nginx', async (t) => {
    for (const [name, platform, combination] of combinations()) {
      const nginx = await startNginx([node(platform())], undefined, combination)
      const who: Client = { ca, ...(combination.clientCertificates ? client : {}) }
      try {
        const page = await call(nginx.url, '/_swagger/example/', { client: who })
        assert.equal(page.status, 200, `${name}: ${page.text}`)
        const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
        assert.ok(refs.length >= 3, `${name}: ${page.text}`)
        for (const ref of refs)
          assert.equal((await call(nginx.url, ref, { client: who })).status, 200, `${name}: ${ref}`)
        const init = await call(nginx.url, '/_swagger/example/init.js', { client: who })
        const described = /url: "([^"]+)"/.exec(init.text)?.[1]
        assert.ok(described !== undefined, init.text)
        const description = await call(nginx.url, described, { client: who })
        assert.equal(description.status, 200, `${name}: ${description.text}`)
        assert.match((JSON.parse(description.text) as { openapi: string }).openapi, /^3\./)
        const product = await call(nginx.url, MULTIPLY, { body: '{"a":6,"b":7}', client: who })
        assert.deepEqual([product.status, product.text], [200, '{"result":42}'], name)
        if (combination.h2c === true) {
          const over = await h2(nginx.h2cUrl!, MULTIPLY, JSON_CT, '{"a":6,"b":7}')
          assert.deepEqual(over, { status: 200, type: 'application/json; charset=utf-8', text: '{"result":42}' }, name)
          const ui = await h2(nginx.h2cUrl!, described, {})
          assert.ok('status' in ui && ui.status === 200, `${name}: ${JSON.stringify(ui).slice(0, 200)}`)
        }
        if (combination.tls) {
          const over = await h2(nginx.url, described, {}, undefined, who)
          assert.ok('status' in over && over.status === 200, `${name}: ${JSON.stringify(over).slice(0, 200)}`)
        }
        t.diagnostic(`${name}: UI, description and call answered`)
      } finally {
        await nginx.stop()
      }
    }
  })

  test('plain HTTP on the TLS port is a problem, not an HTML page', async () => {
    const nginx = await startNginx([node(plain)], undefined, {
      tls: { certFile: edgeCert.certFile, keyFile: edgeCert.keyFile }
    })
    try {
      assertProblem(
        await call(nginx.url.replace('https:', 'http:'), MULTIPLY, { body: '{}' }),
        400,
        'MALFORMED_REQUEST',
        /use https/
      )
    } finally {
      await nginx.stop()
    }
  })
})
