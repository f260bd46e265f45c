// Client certificates as identity on the uWS listeners (tls.clientCertificates, EDGE.auth.certificates;
// docs/security.md, "Client certificates"). uWS gives JavaScript the peer's certificate only in its
// 20.5x builds, which need a newer glibc than the host's, so this file runs on the image's Node 24 and
// uWebSockets.js 20.57 (npm run test:image, in the container that mounts this checkout), against
// platforms started here, with Node's https as the client.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { request, type RequestOptions } from 'node:https'
import { Platform } from '../../src/platform/platform'
import { uwsReadsPeerCertificates } from '../../src/gateway/http/uws-support'
import { EXAMPLE_DIR, TESTKIT_DIR, TEST_PLATFORM_OPTIONS, testConfig, type Json } from '../helpers/platform'
import { CertificateMaker, type Made } from '../helpers/inputs/certificates'

const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }

let certs: CertificateMaker
let server: Made
let named: Made
/** Signed by the CA, its URI the one the gateway trusts. */
let edge: Made
/** Signed by the CA, named nowhere. */
let plain: Made
/** Named in EDGE.auth.certificates. */
let billing: Made
/** Signed by another CA. */
let foreign: Made

before(() => {
  certs = new CertificateMaker()
  server = certs.make('server', ['gateway.test'])
  named = certs.make('named', ['other.test'])
  edge = certs.make('edge', ['edge.internal'], { uris: ['spiffe://test/edge'] })
  plain = certs.make('plain', ['plain.internal'])
  billing = certs.make('billing', ['billing.internal'], { subject: '/O=Acme/CN=billing' })
  foreign = new CertificateMaker().make('foreign', ['edge.internal'], { uris: ['spiffe://test/edge'] })
})

interface Answer {
  status: number
  text: string
}

interface CallOptions {
  headers?: Record<string, string>
  servername?: string
  method?: string
}

/** One request on a new connection, with `client`'s certificate (none: null); the error's code when TLS fails. */
function call(port: number, path: string, client: Made | null, o: CallOptions = {}): Promise<Answer | string> {
  const options: RequestOptions = {
    host: '127.0.0.1',
    port,
    path,
    method: o.method ?? 'POST',
    servername: o.servername ?? 'gateway.test',
    agent: false,
    ca: readFileSync(certs.caFile),
    headers: { ...RMC, ...o.headers },
    ...(client === null ? {} : { cert: readFileSync(client.certFile), key: readFileSync(client.keyFile) })
  }
  return new Promise((resolve) => {
    const req = request(options, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    req.end(options.method === 'POST' ? '[]' : undefined)
  })
}

/** The problem code of a refusal. */
function code(a: Answer | string): string {
  assert.ok(typeof a !== 'string', a as string)
  return `${a.status} ${(JSON.parse(a.text) as { code: string }).code}`
}

function user(a: Answer | string): string | null {
  assert.ok(typeof a !== 'string' && a.status === 200, JSON.stringify(a))
  return (JSON.parse(a.text) as { user: string | null }).user
}

/** A listener's tls block: the server's certificate, client certificates verified by the test CA. */
function tlsBlock(mode: 'request' | 'require', trusted: string[] = []): { [k: string]: Json } {
  return {
    certFile: server.certFile,
    keyFile: server.keyFile,
    clientCertificates: { mode, caFile: certs.caFile, trusted }
  }
}

async function start(overrides: { [k: string]: Json }): Promise<Platform> {
  const platform = new Platform(testConfig(overrides), TEST_PLATFORM_OPTIONS)
  await platform.start([EXAMPLE_DIR, TESTKIT_DIR])
  return platform
}

test('this uWebSockets.js build gives JavaScript the peer certificate', () => {
  assert.equal(uwsReadsPeerCertificates(), true, 'run this file on the image (npm run test:image)')
})

describe('the gateway requiring a client certificate, trusting one by its URI', () => {
  let platform: Platform
  before(async () => {
    platform = await start({
      ENTRY_POINTS: {
        WEB_SERVICE_FACADE_HTTP: {
          // Loopback is not trusted by address here: only the certificate can make a peer trusted.
          trust: { trustedPeers: [], untrustedIdentity: 'drop' },
          tls: {
            ...tlsBlock('require', ['URI:spiffe://test/edge']),
            serverNames: { 'other.test': { certFile: named.certFile, keyFile: named.keyFile } }
          }
        }
      }
    })
  })
  after(() => platform?.stop(0, 0))

  const CONTEXT = '/example/diagnostics/context'

  test('without a certificate: 403 CLIENT_CERTIFICATE_REQUIRED, under every server name', async () => {
    for (const servername of ['gateway.test', 'other.test'])
      assert.equal(code(await call(platform.port, CONTEXT, null, { servername })), '403 CLIENT_CERTIFICATE_REQUIRED')
    // The index a newcomer's GET / gets is refused too; with a certificate, it is served.
    assert.equal(code(await call(platform.port, '/', null, { method: 'GET' })), '403 CLIENT_CERTIFICATE_REQUIRED')
    const index = await call(platform.port, '/', plain, { method: 'GET' })
    assert.ok(typeof index !== 'string' && index.status === 200, JSON.stringify(index))
  })

  test('a certificate from another CA ends the handshake, under every server name', async () => {
    for (const servername of ['gateway.test', 'other.test']) {
      const a = await call(platform.port, CONTEXT, foreign, { headers: { 'X-PLATFORM-User': 'alice' }, servername })
      assert.equal(typeof a, 'string', `${servername}: answered ${JSON.stringify(a)}`)
    }
  })

  test('identity headers: kept from the trusted certificate, dropped from another the CA signed', async () => {
    const alice = { headers: { 'X-PLATFORM-User': 'alice' } }
    assert.equal(user(await call(platform.port, CONTEXT, edge, alice)), 'alice')
    assert.equal(user(await call(platform.port, CONTEXT, plain, alice)), null)
    // Without a claim, a verified certificate is simply a caller.
    assert.equal(user(await call(platform.port, CONTEXT, plain)), null)
  })

  test("the verified subject reaches the method's context; a claimed one does not replace it", async () => {
    const subject = (client: Made, headers: Record<string, string> = {}) =>
      call(platform.port, '/testkit/misc/certificate', client, { headers }).then((a) => {
        assert.ok(typeof a !== 'string' && a.status === 200, JSON.stringify(a))
        return JSON.parse(a.text) as string
      })
    assert.equal(await subject(plain), 'CN=plain.internal')
    const forged = { 'X-PLATFORM-Certificate-Subject': 'CN=root' }
    assert.equal(await subject(plain, forged), 'CN=plain.internal')
    assert.equal(await subject(edge, forged), 'CN=edge.internal', 'even from the trusted certificate')
  })
})

describe('the edge taking a certificate as a credential (EDGE.auth.certificates)', () => {
  let platform: Platform
  before(async () => {
    platform = await start({
      EDGE: {
        enabled: true,
        tls: tlsBlock('request'),
        auth: {
          required: false,
          apiKeys: [],
          certificates: [{ match: 'O=Acme,CN=billing', user: 'billing', privileges: ['admin'] }],
          jwt: null
        }
      }
    })
  })
  after(() => platform?.stop(0, 0))

  const CONTEXT = '/_eapi/ELASTIC_HTTP/example/diagnostics/context'

  test('a named certificate is its identity; another, or none, is anonymous; a foreign one ends the handshake', async () => {
    const a = await call(platform.edgePort, CONTEXT, billing)
    assert.ok(typeof a !== 'string' && a.status === 200, JSON.stringify(a))
    const c = JSON.parse(a.text) as { user: string; privilegeNames: string[]; privileged: boolean }
    assert.deepEqual([c.user, c.privilegeNames], ['billing', ['admin']])
    const subject = await call(platform.edgePort, '/_eapi/ELASTIC_HTTP/testkit/misc/certificate', billing)
    assert.deepEqual(subject, { status: 200, text: '"CN=billing,O=Acme"' })
    assert.equal(
      user(await call(platform.edgePort, CONTEXT, plain, { headers: { 'X-PLATFORM-User': 'mallory' } })),
      null
    )
    assert.equal(user(await call(platform.edgePort, CONTEXT, null)), null)
    assert.equal(typeof (await call(platform.edgePort, CONTEXT, foreign)), 'string')
  })
})

describe('the edge requiring a client certificate', () => {
  let platform: Platform
  before(async () => {
    platform = await start({
      EDGE: {
        enabled: true,
        tls: tlsBlock('require')
      }
    })
  })
  after(() => platform?.stop(0, 0))

  test('its calls, pages and descriptions are refused without one and served with one', async () => {
    for (const [method, path] of [
      ['POST', '/_eapi/ELASTIC_HTTP/example/diagnostics/context'],
      ['GET', '/_swagger/example'],
      ['GET', '/_swagger/example/openapi.json'],
      ['GET', '/']
    ] as const) {
      assert.equal(code(await call(platform.edgePort, path, null, { method })), '403 CLIENT_CERTIFICATE_REQUIRED', path)
      const a = await call(platform.edgePort, path, plain, { method })
      assert.ok(typeof a !== 'string' && a.status === 200, `${path}: ${JSON.stringify(a)}`)
    }
  })
})
