import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { startPlatform, post, type RunningPlatform } from '../../helpers/platform'
import { PLATFORM_HEADERS } from '../../../src/gateway/invoke/call-head'
import { IDENTITY_HEADERS } from '../../../src/common/contract/http-names'

describe('headers, CORS and the call context', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform()
  })
  after(() => p.stop())

  test('OPTIONS preflight: 204, Allow, and the CORS headers a browser needs', async () => {
    const res = await fetch(`${p.url}/example/calculator/multiply`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-platform-api-id'
      }
    })
    assert.equal(res.status, 204)
    assert.equal(await res.text(), '')
    assert.equal(res.headers.get('allow'), 'POST, OPTIONS')
    assert.equal(res.headers.get('access-control-allow-origin'), '*')
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST, OPTIONS')
    assert.equal(res.headers.get('access-control-max-age'), '600')
    assert.equal(
      res.headers.get('access-control-expose-headers'),
      'X-PLATFORM-Request-ID, Retry-After, RateLimit-Policy, RateLimit'
    )
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
    // The identity and privilege headers only when cors.allowIdentityHeaders (trust.test.ts).
    const expected = [
      'Content-Type',
      'Accept',
      ...PLATFORM_HEADERS.filter((h) => !(IDENTITY_HEADERS as readonly string[]).includes(h))
    ]
    assert.deepEqual(allowed, expected)
    assert.ok(res.headers.get('x-platform-request-id'))
  })

  test('OPTIONS without Origin: 204 and Allow only', async () => {
    const res = await fetch(`${p.url}/example/calculator/multiply`, { method: 'OPTIONS' })
    assert.equal(res.status, 204)
    assert.equal(res.headers.get('allow'), 'POST, OPTIONS')
    assert.equal(res.headers.get('access-control-allow-origin'), null)
  })

  test('a POST from a browser origin gets Allow-Origin and the exposed request id', async () => {
    const r = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      Origin: 'https://app.example'
    })
    assert.equal(r.headers.get('access-control-allow-origin'), '*')
    assert.equal(
      r.headers.get('access-control-expose-headers'),
      'X-PLATFORM-Request-ID, Retry-After, RateLimit-Policy, RateLimit'
    )
  })

  test('the request id is echoed when sent and generated (unique) when not', async () => {
    const a = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      'X-PLATFORM-Request-ID': 'abc-123'
    })
    assert.equal(a.headers.get('x-platform-request-id'), 'abc-123')
    const ids = new Set<string>()
    for (let k = 0; k < 20; k++)
      ids.add(
        (await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}')).headers.get('x-platform-request-id')!
      )
    assert.equal(ids.size, 20)
    for (const id of ids) assert.match(id, /^[0-9a-f-]{36}$/)
  })

  test('every X-PLATFORM-* header reaches the method as its call context', async () => {
    const r = await post(p.url, '/example/diagnostics/context', '[]', {
      'Content-Type': 'application/json',
      'X-PLATFORM-API-ID': 'RMC',
      'X-PLATFORM-Sequence-Name': 'betaParamArrayJsonInOutSequence',
      'X-PLATFORM-Privilege-Names': 'reader; admin;;auditor ',
      'X-PLATFORM-Locale': 'de_CH',
      'X-PLATFORM-Request-ID': 'req-7',
      'X-PLATFORM-Session-ID': 'sess-9',
      'X-PLATFORM-User': 'jdoe',
      'X-PLATFORM-Client-Application-Name': 'billing-ui',
      'X-PLATFORM-IP': '203.0.113.7'
    })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(JSON.parse(r.text), {
      locale: 'de_CH',
      privilegeNames: ['reader', 'admin', 'auditor'],
      requestId: 'req-7',
      sessionId: 'sess-9',
      user: 'jdoe',
      clientApplicationName: 'billing-ui',
      ip: '203.0.113.7',
      privileged: true // 'admin' is in the example's privilegedNames
    })
  })

  test('X-PLATFORM-IP defaults to the client address; absent headers are null', async () => {
    const r = await post(p.url, '/example/diagnostics/context', '[]', {
      'Content-Type': 'application/json',
      'X-PLATFORM-API-ID': 'RMC'
    })
    const ctx = JSON.parse(r.text) as Record<string, unknown>
    assert.equal(ctx.ip, '127.0.0.1')
    assert.equal(ctx.locale, null)
    assert.equal(ctx.user, null)
    assert.deepEqual(ctx.privilegeNames, [])
    assert.equal(ctx.privileged, false)
    assert.equal(ctx.requestId, r.headers.get('x-platform-request-id'), 'the generated id is the one the method sees')
  })

  test('a repeated header: the first one counts, in any letter case (as uWS getHeader reads)', async () => {
    const port = Number(new URL(p.url).port)
    // Written by hand: fetch would fold the repeated headers into one.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'POST /example/diagnostics/context HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'x-platform-api-id: RMC\r\nX-PLATFORM-User: first\r\nX-Platform-USER: second\r\n' +
            'X-PLATFORM-Locale: \r\nx-platform-locale: fr_CH\r\nContent-Length: 2\r\n\r\n[]'
        )
      })
      let text = ''
      socket.on('data', (d: Buffer) => {
        text += d.toString()
        const end = text.indexOf('\r\n\r\n')
        const length = /content-length: (\d+)/i.exec(text)
        if (end >= 0 && length !== null && text.length >= end + 4 + Number(length[1])) {
          socket.destroy()
          resolve(text)
        }
      })
      socket.on('error', reject)
    })
    assert.match(raw, /^HTTP\/1\.1 200 /)
    const ctx = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>
    assert.equal(ctx.user, 'first')
    assert.equal(ctx.locale, null, 'the first Locale is empty: no locale')
  })

  test('a client that asks to close is told so (Connection: close), and the connection ends; others stay open', async () => {
    const port = Number(new URL(p.url).port)
    /** One request on a connection of its own; what came back until the server closed or 500 ms passed. */
    const exchange = (connection: string): Promise<{ text: string; closed: boolean }> =>
      new Promise((resolve, reject) => {
        const request =
          'POST /example/calculator/multiply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `${connection}Content-Length: 13\r\n\r\n{"a":6,"b":7}`
        let text = ''
        const socket = connect(port, '127.0.0.1', () => socket.write(request))
        const timer = setTimeout(() => (socket.destroy(), resolve({ text, closed: false })), 500)
        socket.on('data', (d: Buffer) => (text += d.toString()))
        socket.on('end', () => (clearTimeout(timer), resolve({ text, closed: true })))
        socket.on('error', reject)
      })
    // uWS closes for "close" alone but writes nothing; a list holding "close" it closes and answers for.
    for (const asked of ['close', 'CLOSE ', 'keep-alive, Close']) {
      const closing = await exchange(`Connection: ${asked}\r\n`)
      assert.match(closing.text, /^HTTP\/1\.1 200 /, asked)
      assert.equal(closing.text.match(/\r\nconnection: close\r\n/gi)?.length, 1, `${asked}: ${closing.text}`)
      assert.equal(closing.closed, true, asked)
    }
    const open = await exchange('Connection: keep-alive\r\n')
    assert.match(open.text, /^HTTP\/1\.1 200 /)
    assert.doesNotMatch(open.text, /connection: close/i)
    assert.equal(open.closed, false)
  })

  test('the call context in alpha JSON (Jettison mapped lists)', async () => {
    const r = await post(p.url, '/example/diagnostics/context', '[]', {
      'Content-Type': 'application/json',
      'X-PLATFORM-API-ID': 'RMC',
      'X-PLATFORM-Sequence-Name': 'alphaParamArrayJsonInOutSequence',
      'X-PLATFORM-Privilege-Names': 'a;b',
      'X-PLATFORM-Request-ID': 'r1',
      'X-PLATFORM-IP': '10.0.0.1'
    })
    assert.equal(
      r.text,
      '{"context":{"privilegeNames":[{"string":["a","b"]}],"requestId":"r1","ip":"10.0.0.1","privileged":false}}'
    )
  })
})

describe('CORS with an explicit list of origins', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { cors: { allowedOrigins: ['https://app.example'] } } }
    })
  })
  after(() => p.stop())

  const preflight = (origin: string): Promise<Response> =>
    fetch(`${p.url}/example/calculator/multiply`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' }
    })

  test('a listed origin is named back (with Vary: Origin), in the preflight and on the answer', async () => {
    const pre = await preflight('https://app.example')
    assert.equal(pre.status, 204)
    assert.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example')
    assert.equal(pre.headers.get('vary'), 'Origin')
    assert.equal(pre.headers.get('access-control-allow-methods'), 'POST, OPTIONS')
    const r = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      Origin: 'https://app.example'
    })
    assert.equal(r.status, 200)
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example')
    assert.equal(r.headers.get('vary'), 'Origin')
  })

  test('an unlisted origin gets no CORS header at all: the browser keeps the answer from its page', async () => {
    const pre = await preflight('https://evil.example')
    assert.equal(pre.status, 204)
    assert.equal(pre.headers.get('allow'), 'POST, OPTIONS')
    for (const h of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'])
      assert.equal(pre.headers.get(h), null, h)
    const r = await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}', {
      'Content-Type': 'application/json',
      Origin: 'https://evil.example'
    })
    assert.equal(r.status, 200)
    assert.equal(r.text, '{"result":6}')
    assert.equal(r.headers.get('access-control-allow-origin'), null)
    assert.equal(r.headers.get('access-control-expose-headers'), null)
  })
})
