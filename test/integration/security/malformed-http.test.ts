// Malformed HTTP sent straight to the gateway's port (no nginx in front): what the installed
// uWebSockets.js build answers, kind by kind (test/helpers/inputs/malformed-http.ts). On the host's build
// (20.30, Node 20) most kinds get no answer, which is why the nginx edge is the answer there
// (hardening.test.ts); the image's build (20.57, Node 24) answers each within a second. The same
// file runs on both: `npm test` on the host, `npm run test:image` in the image.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, problem, type RunningPlatform } from '../../helpers/platform'
import { MALFORMED_KINDS, firstAnswer as raw } from '../../helpers/inputs/malformed-http'
import { uwsBuild } from '../../../src/gateway/http/uws-support'

const build = uwsBuild()
const current = !build.version.startsWith('20.30.')

describe(`malformed HTTP directly on the gateway (${build.name} ${build.version})`, { concurrency: true }, () => {
  let p: RunningPlatform
  let port = 0
  before(async () => {
    p = await startPlatform()
    port = p.platform.port
  })
  after(async () => {
    await p?.stop()
  })

  for (const kind of MALFORMED_KINDS) {
    const expected = current ? kind.current : kind.host
    test(`${kind.name}: ${expected === null ? 'no answer (a known limit of this build)' : expected}`, async () => {
      const r = await raw(port, kind.text)
      assert.equal(r?.status ?? null, expected, r?.body)
    })
  }

  test('answers do not name the server (uWS `_cfg("silent")`), errors included', async () => {
    const ok = await raw(port, MALFORMED_KINDS.find((k) => k.name === 'the same Content-Length twice')!.text)
    const refused = await raw(port, MALFORMED_KINDS.find((k) => k.name === 'conflicting Content-Length')!.text)
    for (const r of [ok, refused]) {
      assert.ok(r !== null)
      assert.equal(r.headers.get('uwebsockets'), null)
      assert.ok(r.headers.get('date') !== null, 'the rest of the mark (Date) stays')
    }
  })

  test('conflicting Content-Length headers: a MALFORMED_REQUEST problem, and the connection closed', async () => {
    const kind = MALFORMED_KINDS.find((k) => k.name === 'conflicting Content-Length')!
    const r = await raw(port, kind.text)
    assert.ok(r !== null)
    assert.equal(r.headers.get('connection'), 'close')
    const p = problem({ status: Number(r.status), headers: r.headers, text: r.body })
    assert.equal(p.code, 'MALFORMED_REQUEST')
    assert.match(p.detail, /Content-Length headers with different values/)
  })
})
