// The trust boundary: who may claim identity and privileges. An untrusted peer's claims are dropped
// (or refused); a trusted peer's are honoured; the edge removes outside clients' claims and sets them
// only from a credential (API keys stored hashed, JWTs verified with jose); CORS keeps foreign pages
// from sending them unless configured.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, type webcrypto } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startPlatform, post, problem, type Json, type RunningPlatform } from '../../helpers/platform'

const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
const CLAIMS = {
  'X-PLATFORM-User': 'mallory',
  'X-PLATFORM-Session-ID': 's-1',
  'X-PLATFORM-Client-Application-Name': 'forged',
  'X-PLATFORM-IP': '203.0.113.7',
  'X-PLATFORM-Privilege-Names': 'guest;admin'
}
type Context = {
  user: string | null
  privilegeNames: string[]
  ip: string
  privileged: boolean
  sessionId: string | null
  clientApplicationName: string | null
}

/** What a served description declares of security. */
type Declared = {
  security: Array<Record<string, string[]>>
  components: { securitySchemes: Record<string, Record<string, string>> }
}

/** The example's description as a platform's edge serves it. */
async function served(r: RunningPlatform): Promise<Declared> {
  return (await (
    await fetch(`http://127.0.0.1:${r.platform.edgePort}/_swagger/example/openapi.json`)
  ).json()) as Declared
}

async function context(url: string, path: string, headers: Record<string, string>): Promise<Context> {
  const r = await post(url, path, '[]', { ...RMC, ...headers })
  assert.equal(r.status, 200, r.text)
  return JSON.parse(r.text) as Context
}

describe('identity claims from peers that are not trusted', () => {
  let drop: RunningPlatform
  let refuse: RunningPlatform
  before(async () => {
    // The tests connect from 127.0.0.1, which these configs do not trust.
    drop = await startPlatform({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { trust: { trustedPeers: ['10.0.0.0/8'], untrustedIdentity: 'drop' } } }
    })
    refuse = await startPlatform({
      ENTRY_POINTS: {
        WEB_SERVICE_FACADE_HTTP: { trust: { trustedPeers: ['10.0.0.0/8'], untrustedIdentity: 'refuse' } }
      }
    })
  })
  after(async () => {
    await drop?.stop()
    await refuse?.stop()
  })

  test('drop: the claims do not reach the method; the socket address is the IP', async () => {
    const c = await context(drop.url, '/example/diagnostics/context', CLAIMS)
    assert.deepEqual(
      [c.user, c.sessionId, c.clientApplicationName, c.privilegeNames, c.ip, c.privileged],
      [null, null, null, [], '127.0.0.1', false]
    )
  })

  test('drop: a privileged method is refused to an untrusted guest;admin', async () => {
    const r = await post(drop.url, '/testkit/misc/admin', '"x"', {
      'Content-Type': 'application/json',
      'X-PLATFORM-Privilege-Names': 'guest;admin'
    })
    assert.equal(r.status, 403)
    assert.equal(problem(r).code, 'PRIVILEGE_DENIED')
  })

  test('refuse: 403 UNTRUSTED_IDENTITY; a call without claims still works', async () => {
    const r = await post(refuse.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      'X-PLATFORM-User': 'mallory'
    })
    assert.equal(r.status, 403)
    assert.equal(problem(r).code, 'UNTRUSTED_IDENTITY')
    const ok = await post(refuse.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      'X-PLATFORM-Locale': 'de'
    })
    assert.deepEqual([ok.status, ok.text], [200, '{"result":6}'])
  })
})

describe('a trusted peer, CORS, and the edge with credentials', () => {
  let p: RunningPlatform
  let cors: RunningPlatform
  const key = 'k-0123456789abcdef'
  let keyPair: webcrypto.CryptoKeyPair
  let otherPair: webcrypto.CryptoKeyPair
  let edge = ''
  before(async () => {
    const jose = await import('jose')
    keyPair = await jose.generateKeyPair('ES256', { extractable: true })
    otherPair = await jose.generateKeyPair('ES256', { extractable: true })
    const dir = mkdtempSync(join(tmpdir(), 'trust-'))
    const pem = join(dir, 'issuer.pem')
    writeFileSync(pem, await jose.exportSPKI(keyPair.publicKey))
    p = await startPlatform({
      EDGE: {
        auth: {
          required: false,
          apiKeys: [
            {
              sha256: createHash('sha256').update(key).digest('hex'),
              user: 'svc-orders',
              privileges: ['admin'],
              clientApplicationName: 'orders'
            }
          ],
          jwt: { publicKeyFile: pem, issuer: 'https://issuer.test', audience: 'gateway', algorithms: ['ES256'] }
        }
      }
    })
    cors = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { cors: { allowIdentityHeaders: true } } } })
    edge = `http://127.0.0.1:${p.platform.edgePort}`
  })
  after(async () => {
    await p?.stop()
    await cors?.stop()
  })

  async function token(
    claims: Record<string, unknown>,
    opts: { key?: webcrypto.CryptoKey; audience?: string; exp?: string | number } = {}
  ): Promise<string> {
    const jose = await import('jose')
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('https://issuer.test')
      .setAudience(opts.audience ?? 'gateway')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '5m')
      .sign(opts.key ?? keyPair.privateKey)
  }

  test('a trusted peer (loopback, the default) has its claims honoured', async () => {
    const c = await context(p.url, '/example/diagnostics/context', CLAIMS)
    assert.deepEqual([c.user, c.ip, c.privileged], ['mallory', '203.0.113.7', true]) // the example grants admin
    const r = await post(p.url, '/testkit/misc/admin', '"x"', {
      'Content-Type': 'application/json',
      'X-PLATFORM-Privilege-Names': 'guest;admin'
    })
    assert.deepEqual([r.status, r.text], [200, '"admin x"'])
  })

  test('the edge removes what an outside client claims and sets the real address', async () => {
    const c = await context(edge, '/_eapi/ELASTIC_HTTP/example/diagnostics/context', CLAIMS)
    assert.deepEqual(
      [c.user, c.sessionId, c.clientApplicationName, c.privilegeNames, c.ip, c.privileged],
      [null, null, null, [], '127.0.0.1', false]
    )
  })

  test('an API key becomes its user and privilege names; an unknown key is 401', async () => {
    const c = await context(edge, '/_eapi/ELASTIC_HTTP/example/diagnostics/context', { ...CLAIMS, 'X-API-Key': key })
    assert.deepEqual(
      [c.user, c.privilegeNames, c.clientApplicationName, c.ip],
      ['svc-orders', ['admin'], 'orders', '127.0.0.1']
    )
    const admin = await post(edge, '/_eapi/ELASTIC_HTTP/testkit/misc/admin', '"x"', {
      'Content-Type': 'application/json',
      'X-API-Key': key
    })
    assert.deepEqual([admin.status, admin.text], [200, '"admin x"'])
    const bad = await post(edge, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      'X-API-Key': 'nope'
    })
    assert.equal(bad.status, 401)
    assert.equal(problem(bad).code, 'UNAUTHENTICATED')
    assert.match(bad.headers.get('www-authenticate') ?? '', /Bearer/)
  })

  test('a JWT becomes its subject and privileges; expired, wrong key and wrong audience are 401', async () => {
    const good = await token({ sub: 'ada', privileges: ['admin'] })
    const c = await context(edge, '/_eapi/ELASTIC_HTTP/example/diagnostics/context', {
      Authorization: `Bearer ${good}`
    })
    assert.deepEqual([c.user, c.privilegeNames, c.privileged], ['ada', ['admin'], true])
    const admin = await post(edge, '/_eapi/ELASTIC_HTTP/testkit/misc/admin', '"x"', {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${good}`
    })
    assert.deepEqual([admin.status, admin.text], [200, '"admin x"'])
    const refused: Array<[string, string, RegExp]> = [
      ['expired', await token({ sub: 'ada' }, { exp: Math.floor(Date.now() / 1000) - 60 }), /exp/],
      ['wrong key', await token({ sub: 'ada' }, { key: otherPair.privateKey }), /signature/],
      ['wrong audience', await token({ sub: 'ada' }, { audience: 'someone-else' }), /aud/],
      ['not a JWT', 'abc.def', /^the bearer token is not accepted: Invalid Compact JWS$/]
    ]
    for (const [name, t, detail] of refused) {
      const r = await post(edge, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', '{"a":2,"b":3}', {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${t}`
      })
      assert.equal(r.status, 401, name)
      const pr = problem(r)
      assert.equal(pr.code, 'UNAUTHENTICATED', name)
      assert.match(pr.detail, detail, name)
    }
  })

  test('the description the edge serves declares the API key and the bearer token, each optional', async () => {
    const doc = (await (await fetch(`${edge}/_swagger/example/openapi.json`)).json()) as Declared
    assert.deepEqual(doc.security, [{ ApiKey: [] }, { Bearer: [] }, {}])
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: "An API key from the platform's EDGE.auth.apiKeys: it sets the user and privilege names."
    })
    assert.equal(doc.components.securitySchemes.Bearer?.scheme, 'bearer')
  })

  test('CORS: a preflight does not allow the identity headers unless configured', async () => {
    const preflight = async (url: string): Promise<string[]> => {
      const r = await fetch(`${url}/example/calculator/multiply`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'POST' }
      })
      return (r.headers.get('access-control-allow-headers') ?? '').split(', ')
    }
    const closed = await preflight(p.url)
    for (const h of ['X-PLATFORM-User', 'X-PLATFORM-Privilege-Names', 'X-PLATFORM-IP'])
      assert.ok(!closed.includes(h), h)
    assert.ok(closed.includes('X-PLATFORM-Sequence-Name'))
    const open = await preflight(cors.url)
    assert.ok(open.includes('X-PLATFORM-Privilege-Names'))
  })
})

describe('an edge that requires a credential', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({ EDGE: { auth: { required: true, apiKeys: [], jwt: null } } })
  })
  after(() => p?.stop())

  test('its description requires one of the two credentials', async () => {
    const required = await served(p)
    assert.deepEqual(required.security, [{ ApiKey: [] }, { Bearer: [] }])
    assert.deepEqual(Object.keys(required.components.securitySchemes), ['ApiKey', 'Bearer'])
  })

  test('no credential: 401', async () => {
    const r = await post(
      `http://127.0.0.1:${p.platform.edgePort}`,
      '/_eapi/ELASTIC_HTTP/example/calculator/multiply',
      '{"a":2,"b":3}'
    )
    assert.equal(r.status, 401)
    assert.equal(problem(r).code, 'UNAUTHENTICATED')
  })
})

describe("the edge's credentials, case by case", () => {
  let es: RunningPlatform // publicKeyFile, ES256
  let jwks: RunningPlatform // jwksFile, ES256
  let hs: RunningPlatform // secretEnv, HS256; a 1 KiB body limit
  let none: RunningPlatform // no EDGE.auth
  let pair: webcrypto.CryptoKeyPair
  let pem = ''
  const secret = 'a-shared-secret-of-at-least-32-bytes!'
  const edgeOf = (r: RunningPlatform): string => `http://127.0.0.1:${r.platform.edgePort}`
  const CALL = '/_eapi/ELASTIC_HTTP/example/diagnostics/context'
  before(async () => {
    const jose = await import('jose')
    pair = await jose.generateKeyPair('ES256', { extractable: true })
    const dir = mkdtempSync(join(tmpdir(), 'creds-'))
    pem = await jose.exportSPKI(pair.publicKey)
    writeFileSync(join(dir, 'issuer.pem'), pem)
    const jwk = { ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }))
    process.env.TRUST_TEST_HS256 = secret
    const auth = (jwt: { [k: string]: Json }): { [k: string]: Json } => ({
      EDGE: { auth: { required: false, apiKeys: [], jwt: { issuer: null, audience: null, ...jwt } } }
    })
    es = await startPlatform(auth({ publicKeyFile: join(dir, 'issuer.pem'), algorithms: ['ES256'] }))
    jwks = await startPlatform(auth({ jwksFile: join(dir, 'jwks.json'), algorithms: ['ES256'] }))
    hs = await startPlatform({
      ...auth({ secretEnv: 'TRUST_TEST_HS256', algorithms: ['HS256'] }),
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyBytes: 1024 } }
    })
    none = await startPlatform()
  })
  after(async () => {
    for (const r of [es, jwks, hs, none]) await r?.stop()
    delete process.env.TRUST_TEST_HS256
  })

  async function es256(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
    const jose = await import('jose')
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', ...header })
      .setExpirationTime('5m')
      .sign(pair.privateKey)
  }
  async function hs256(claims: Record<string, unknown>, key: string): Promise<string> {
    const jose = await import('jose')
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(key))
  }
  async function refused(url: string, headers: Record<string, string>, detail: RegExp): Promise<void> {
    const r = await post(url, CALL, '[]', { ...RMC, ...headers })
    assert.equal(r.status, 401, r.text)
    const pr = problem(r)
    assert.equal(pr.code, 'UNAUTHENTICATED')
    assert.match(pr.detail, detail)
    assert.equal(r.headers.get('www-authenticate'), 'Bearer, ApiKey header="X-API-Key"')
  }

  test('descriptions: a JWT-only edge declares the bearer token, optional; an edge without EDGE.auth declares none', async () => {
    assert.deepEqual((await served(es)).security, [{ Bearer: [] }, {}])
    const open = await served(none)
    assert.deepEqual(open.security, [])
    assert.equal(open.components.securitySchemes, undefined)
  })

  test('a JWKS file and an HS256 secret verify their tokens; privileges may be one string', async () => {
    const viaJwks = await context(edgeOf(jwks), CALL, {
      Authorization: `Bearer ${await es256({ sub: 'ada', privileges: 'admin;ops' }, { kid: 'k1' })}`
    })
    assert.deepEqual([viaJwks.user, viaJwks.privilegeNames], ['ada', ['admin', 'ops']])
    const viaSecret = await context(edgeOf(hs), CALL, {
      Authorization: `Bearer ${await hs256({ sub: 'bob', privileges: ['x'] }, secret)}`
    })
    assert.deepEqual([viaSecret.user, viaSecret.privilegeNames], ['bob', ['x']])
    await refused(
      edgeOf(hs),
      { Authorization: `Bearer ${await hs256({ sub: 'bob' }, 'another-secret-of-at-least-32-bytes!!')}` },
      /signature verification failed/
    )
  })

  test('algorithm confusion is refused: alg none, and HS256 signed with the public key', async () => {
    const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url')
    const exp = Math.floor(Date.now() / 1000) + 300
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'eve', privileges: ['admin'], exp })}.`
    await refused(edgeOf(es), { Authorization: `Bearer ${unsigned}` }, /not accepted/)
    await refused(edgeOf(es), { Authorization: `Bearer ${await hs256({ sub: 'eve' }, pem)}` }, /not accepted/)
  })

  test('a token without a subject, a non-Bearer Authorization, and credentials sent to an edge that takes none', async () => {
    await refused(edgeOf(es), { Authorization: `Bearer ${await es256({ privileges: ['admin'] })}` }, /no 'sub' claim/)
    await refused(edgeOf(es), { Authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' }, /is not a Bearer token/)
    await refused(edgeOf(none), { 'X-API-Key': 'anything' }, /this edge accepts no credentials/)
    await refused(edgeOf(none), { Authorization: `Bearer ${await es256({ sub: 'ada' })}` }, /accepts no credentials/)
  })

  test('a body over the limit with a valid token is 413 before it is read; within it, the call is made', async () => {
    const authorization = `Bearer ${await hs256({ sub: 'bob' }, secret)}`
    const big = `["${'x'.repeat(2000)}"]`
    const r = await post(edgeOf(hs), CALL, big, { ...RMC, Authorization: authorization })
    assert.equal(r.status, 413, r.text)
    assert.equal(problem(r).code, 'BODY_TOO_LARGE')
    assert.match(problem(r).detail, /the body has 2004 bytes; the limit is 1024/)
    const ok = await context(edgeOf(hs), CALL, { Authorization: authorization })
    assert.equal(ok.user, 'bob')
  })
})
