// SPEC: a microservice whose availability check is answered slower than its limit (20000 ms unless
// its microservice.json's availability.responseTimeMs says otherwise) is unavailable, and calls get
// 503 at once; when it answers in time again, calls go through. The limit is the microservice's own
// (400 ms here): a frozen instance (SIGSTOP) answers no ping, and outlier ejection is set far off so
// that only the availability check can be what decides.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startPlatform, post, problem, until, TESTKIT_DIR, type RunningPlatform } from '../../helpers/platform'
import { editedCopy } from '../../helpers/processes/deploy'

describe("an availability check slower than the microservice's own limit", () => {
  let p: RunningPlatform
  let pid = 0
  before(async () => {
    const dir = editedCopy(TESTKIT_DIR, mkdtempSync(join(tmpdir(), 'availability-')), (c) => {
      c.availability = { responseTimeMs: 400 }
    })
    p = await startPlatform({ DISPATCH: { ejectAfterMs: 600000 } }, [dir])
    await until(() => p.platform.directory.get('testkit')?.unavailableReason() === null, 10000, 'testkit serving')
    pid = p.platform.manager.get('testkit')!.instances[0]!.status().pid!
  })
  after(async () => {
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGCONT')
      } catch {}
    }
    await p?.stop()
  })

  test('unanswered past 400 ms: unavailable, and a call is 503 at once with the reason; answered again: calls go through', async () => {
    process.kill(pid, 'SIGSTOP')
    const reason = /did not answer its availability check within 400 ms/
    await until(
      () => reason.test(p.platform.directory.get('testkit')?.unavailableReason() ?? ''),
      10000,
      'the check to time out'
    )
    const r = await post(p.url, '/testkit/custom/shout', '"hi"')
    assert.equal(r.status, 503)
    const pr = problem(r)
    assert.equal(pr.code, 'MICROSERVICE_UNAVAILABLE')
    assert.match(pr.detail, reason)
    assert.ok(r.headers.get('retry-after') !== null)
    process.kill(pid, 'SIGCONT')
    await until(async () => (await post(p.url, '/testkit/custom/shout', '"hi"')).status === 200, 10000, 'calls again')
    const ok = await post(p.url, '/testkit/custom/shout', '"hi"')
    assert.deepEqual([ok.status, ok.text], [200, '"hi"'])
  })
})
