// Malformed HTTP, measured: uWebSockets.js 20.30 (the build that loads on this glibc) gives no answer
// to a malformed head and holds the connection until its idle timeout, and takes the first of two
// Content-Length headers (docs/security.md, "Malformed HTTP", has the table). The generated nginx edge refuses them
// at once, so every kind below is answered within a second there; what the gateway can do itself
// (nosniff, bounded echoes) is checked directly.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { firstAnswer } from '../../helpers/inputs/malformed-http'
import { startPlatform, post, problem, type RunningPlatform } from '../../helpers/platform'
import { startNginx, type RunningNginx } from '../../helpers/nginx'

const P = '/_eapi/ELASTIC_HTTP/example/calculator/multiply'
const HEAD = `POST ${P} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n`
const BODY = '{"a":2,"b":3}'

/** Malformed (or merely unusual) requests and the statuses an answer may have. */
const KINDS: Array<[string, string, RegExp]> = [
  ['conflicting Content-Length', `${HEAD}Content-Length: 13\r\nContent-Length: 5\r\n\r\n${BODY}`, /^400$/],
  [
    'Transfer-Encoding with Content-Length',
    `${HEAD}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
    /^400$/
  ],
  ['a header line without a colon', `${HEAD}Bogus header line\r\nContent-Length: 13\r\n\r\n${BODY}`, /^400$/],
  ['a space before the colon', `${HEAD}Content-Length : 13\r\n\r\n${BODY}`, /^400$/],
  ['obs-fold', `${HEAD}X-PLATFORM-Locale: en\r\n  folded\r\nContent-Length: 13\r\n\r\n${BODY}`, /^400$/],
  ['a bare CR in a header', `${HEAD}X-A: a\rb\r\nContent-Length: 13\r\n\r\n${BODY}`, /^400$/],
  ['a NUL in the path', `POST ${P}\0x HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\n\r\n${BODY}`, /^400$/],
  ['a NUL in a header', `${HEAD}X-A: a\0b\r\nContent-Length: 13\r\n\r\n${BODY}`, /^400$/],
  ['a 100 KiB header', `${HEAD}X-Big: ${'a'.repeat(100 * 1024)}\r\nContent-Length: 13\r\n\r\n${BODY}`, /^431$/],
  [
    'a 100 KiB URL',
    `POST ${P}?${'a'.repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\n\r\n${BODY}`,
    /^(414|431)$/
  ],
  // Tolerable forms are normalized by nginx and answered by the gateway.
  [
    '70 headers',
    `${HEAD}${Array.from({ length: 70 }, (_, k) => `X-H${k}: v`).join('\r\n')}\r\nContent-Length: 13\r\n\r\n${BODY}`,
    /^200$/
  ],
  [
    'bare LF line ends',
    `POST ${P} HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 13\n\n${BODY}`,
    /^200$/
  ],
  [
    'an absolute-form target',
    `POST http://x${P} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
    /^200$/
  ],
  [
    'HTTP/1.0 (ApacheBench)',
    `POST ${P} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
    /^200$/
  ]
]

describe('malformed HTTP at the nginx edge', () => {
  let p: RunningPlatform
  let nginx: RunningNginx
  before(async () => {
    p = await startPlatform()
    nginx = await startNginx([{ host: '127.0.0.1', gatewayPort: p.platform.port, edgePort: p.platform.edgePort }])
  })
  after(async () => {
    await nginx?.stop()
    await p?.stop()
  })

  for (const [name, text, status] of KINDS) {
    test(`${name}: answered with a status within a second`, async () => {
      const r = await firstAnswer(Number(new URL(nginx.url).port), text, 3000)
      assert.ok(r !== null, 'an answer')
      assert.match(r.status, status)
      assert.ok(r.ms < 1000, `${r.ms} ms`)
      // No header names the server, by its name or in its value (uWS's own error pages end in
      // "uWebSockets/20 Server"; `Server: uWebSockets` would identify it as well).
      const naming = [...r.headers].filter(([k, v]) => /uwebsockets/i.test(k) || /uwebsockets/i.test(v))
      assert.deepEqual(naming, [], 'no server-identifying header')
    })
  }

  test('the gateway itself: nosniff on every answer, and echoed input bounded', async () => {
    const ok = await post(p.url, '/example/calculator/multiply', BODY)
    assert.equal(ok.headers.get('x-content-type-options'), 'nosniff')
    const long = `/${'m'.repeat(50_000)}/calculator/multiply`
    const r = await post(p.url, long, BODY)
    assert.equal(problem(r).code, 'UNKNOWN_MICROSERVICE')
    assert.ok(r.text.length < 1000, `${r.text.length} bytes`)
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff')
    // No Content-Type on a 204: nosniff and the extra headers leave without it (http/respond.ts).
    const options = await fetch(`${p.url}/example/calculator/multiply`, { method: 'OPTIONS' })
    assert.equal(options.status, 204)
    assert.equal(options.headers.get('content-type'), null)
    assert.equal(options.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(options.headers.get('allow'), 'POST, OPTIONS')
    assert.match(options.headers.get('x-platform-request-id') ?? '', /./)
  })
})
