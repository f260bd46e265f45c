// HTTP/2 at the edge: the nginx configuration `microservice edge nginx-config` writes, with TLS (ALPN
// h2 and http/1.1) and an h2c listener (--h2c-listen), in front of a real platform with the README's
// example. h2load (Debian's nghttp2-client) drives each protocol through it, every call answered 2xx;
// Node's own HTTP/2 client reads the answers, which are the gateway's, as over HTTP/1.1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { connect, type ClientHttp2Session } from 'node:http2'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { post, EXAMPLE_DIR } from '../../helpers/platform'
import { startNginx, type RunningNginx } from '../../helpers/nginx'
import { h2Exchange, type H2Answer } from '../../helpers/inputs/http2'
import { CertificateMaker } from '../../helpers/inputs/certificates'
import { ROOT } from '../../helpers/root'

const work = mkdtempSync(join(tmpdir(), 'edge-h2-'))
const PATH = '/_eapi/ELASTIC_HTTP/example/calculator/multiply'
let platform: DeployPlatform
let nginx: RunningNginx
let ca: string

before(async () => {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'h2load:nghttp2-client'], { stdio: 'inherit' })
  const certs = new CertificateMaker()
  const edge = certs.make('edge', ['localhost'])
  ca = readFileSync(certs.caFile, 'utf8')
  platform = await startDeployPlatform()
  const up = await cli(platform.configFile, 'upload', await packCopy(EXAMPLE_DIR, work))
  assert.equal(up.code, 0, up.stderr)
  nginx = await startNginx(
    [{ host: '127.0.0.1', gatewayPort: platform.platform.port, edgePort: platform.platform.edgePort }],
    undefined,
    { tls: { certFile: edge.certFile, keyFile: edge.keyFile }, h2c: true }
  )
})
after(async () => {
  await nginx?.stop()
  await platform?.stop()
})

/** h2load against `url` (asynchronously: the platform runs in this process); what it printed. */
function h2load(url: string, extra: string[] = [], n = 2000, clients = 4): Promise<string> {
  const body = join(work, 'body.json')
  writeFileSync(body, '{"a":6,"b":7}')
  const args = [
    ...['-n', String(n), '-c', String(clients), '-m', '8', '-d', body, '-H', 'Content-Type: application/json'],
    ...extra,
    url
  ]
  return new Promise((resolve, reject) =>
    execFile('h2load', args, { timeout: 60_000 }, (err, stdout, stderr) =>
      err === null ? resolve(stdout) : reject(new Error(`h2load ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`))
    )
  )
}

function everyCallAnswered(out: string, n: number, protocol: string): void {
  assert.match(out, new RegExp(`^Application protocol: ${protocol}$`, 'm'), out)
  assert.match(
    out,
    new RegExp(`^requests: ${n} total, ${n} started, ${n} done, ${n} succeeded, 0 failed, 0 errored`, 'm'),
    out
  )
  assert.match(out, new RegExp(`^status codes: ${n} 2xx, 0 3xx, 0 4xx, 0 5xx$`, 'm'), out)
}

test('h2load over TLS: ALPN picks h2, every call answered 2xx', async () => {
  everyCallAnswered(await h2load(`${nginx.url}${PATH}`), 2000, 'h2')
})

test("3,000 calls on one HTTP/2 connection: past nginx's default of 1000 a connection, none lost", async () => {
  everyCallAnswered(await h2load(`${nginx.url}${PATH}`, [], 3000, 1), 3000, 'h2')
})

test('h2load over h2c (prior knowledge, no TLS): every call answered 2xx', async () => {
  everyCallAnswered(await h2load(`${nginx.h2cUrl!}${PATH}`), 2000, 'h2c')
})

test('HTTP/1.1 is still offered on the TLS listener; the h2c one speaks HTTP/2 only', async () => {
  everyCallAnswered(await h2load(`${nginx.url}${PATH}`, ['--h1'], 500), 500, 'http/1.1')
  // nginx 1.22 serves one protocol on a plain port: an HTTP/1.1 request there is not answered as one.
  const r = await post(nginx.h2cUrl!, PATH, '{"a":6,"b":7}').catch((err: Error) => err)
  assert.ok(
    r instanceof Error || r.status >= 400,
    `HTTP/1.1 on the h2c port: ${r instanceof Error ? r.message : r.status}`
  )
})

/** One POST over HTTP/2: status, content type and body. */
function h2post(session: ClientHttp2Session, path: string, body: string): Promise<H2Answer> {
  return h2Exchange(session, { ':method': 'POST', ':path': path, 'content-type': 'application/json' }, body)
}

for (const over of ['h2', 'h2c'] as const) {
  test(`over ${over}: the gateway's answers and problems, as over HTTP/1.1`, async () => {
    const url = over === 'h2' ? nginx.url : nginx.h2cUrl!
    const session = over === 'h2' ? connect(url, { ca, servername: 'localhost' }) : connect(url)
    try {
      const ok = await h2post(session, PATH, '{"a":6,"b":7}')
      const okHttp1 = await post(platform.url, '/example/calculator/multiply', '{"a":6,"b":7}')
      assert.deepEqual(ok, { status: 200, type: okHttp1.headers.get('content-type'), text: '{"result":42}' })
      const bad = await h2post(session, PATH, '{"a":6,')
      const http1 = await post(platform.url, '/example/calculator/multiply', '{"a":6,')
      assert.equal(bad.status, 400)
      assert.equal(bad.type, http1.headers.get('content-type'))
      assert.match(bad.type, /^application\/problem\+json/)
      const strip = (t: string): unknown => ({ ...(JSON.parse(t) as object), requestId: null })
      assert.deepEqual(strip(bad.text), strip(http1.text))
      const unknown = await h2post(session, '/_eapi/ELASTIC_HTTP/nowhere/at/all', '{}')
      assert.equal(unknown.status, 404)
      assert.equal((JSON.parse(unknown.text) as { code: string }).code, 'UNKNOWN_MICROSERVICE')
    } finally {
      session.close()
    }
  })
}
