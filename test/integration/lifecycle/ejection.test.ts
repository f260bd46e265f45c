// A frozen instance (SIGSTOP) is bypassed: outlier ejection after DISPATCH.ejectAfterMs without any
// answer, not even to a ping. Among two instances no call waits much past that time; alone, the
// call it holds is answered 504 within it and new calls get 503 at once, instead of waiting ~24 s for
// the availability check. Time bounds are generous (5x) on purpose: the point is seconds vs tens.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPlatform, post, problem, until, TESTKIT_DIR, type RunningPlatform } from '../../helpers/platform'

// 1 s, not less: under a loaded CI run (coverage, test files in parallel on two cores) a healthy
// instance's pong took longer than a shorter ejection time, so it was ejected before the freeze and
// taken back by that late pong after it; a new call then went to the frozen instance (504, not 503).
const EJECT_MS = 1000
const BOUND_MS = EJECT_MS * 5

async function timed(url: string): Promise<{ status: number; ms: number; text: string; headers: Headers }> {
  const t0 = Date.now()
  const r = await post(url, '/testkit/custom/shout', '"hi"')
  return { status: r.status, ms: Date.now() - t0, text: r.text, headers: r.headers }
}

describe('outlier ejection of a frozen instance', () => {
  let p: RunningPlatform
  let pids: number[] = []
  before(async () => {
    p = await startPlatform({ PLATFORM: { instances: { testkit: 2 } }, DISPATCH: { ejectAfterMs: EJECT_MS } }, [
      TESTKIT_DIR
    ])
    await until(() => p.platform.directory.get('testkit')?.unavailableReason() === null, 10000, 'testkit serving')
    pids = p.platform.manager
      .get('testkit')!
      .instances.map((i) => i.status().pid!)
      .filter((x) => x > 0)
    assert.equal(pids.length, 2)
  })
  after(async () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT')
      } catch {}
    }
    await p?.stop()
  })

  test('one of two frozen: no call waits much past the ejection time; after it, every call goes to the other', async () => {
    process.kill(pids[0]!, 'SIGSTOP')
    const statuses: number[] = []
    let worst = 0
    for (let k = 0; k < 20; k++) {
      const r = await timed(p.url)
      statuses.push(r.status)
      worst = Math.max(worst, r.ms)
      // A call the frozen instance held when it was ejected is answered 504 (it may have run there).
      if (r.status !== 200)
        assert.equal(problem({ status: r.status, headers: r.headers, text: r.text }).code, 'EXECUTION_TIMEOUT')
    }
    assert.ok(worst < BOUND_MS, `slowest call ${worst} ms`)
    assert.ok(statuses.filter((s) => s !== 200).length <= 1, statuses.join(' '))
    assert.deepEqual(statuses.slice(-10), Array(10).fill(200))
  })

  test('both frozen: the call held is answered 504 within the bound, then new calls get 503 with Retry-After at once', async () => {
    process.kill(pids[1]!, 'SIGSTOP')
    const held = await timed(p.url)
    assert.ok(held.ms < BOUND_MS, `${held.ms} ms`)
    assert.ok(held.status === 504 || held.status === 503, `${held.status} ${held.text}`)
    const next = await timed(p.url)
    assert.equal(next.status, 503)
    assert.equal(
      problem({ status: next.status, headers: next.headers, text: next.text }).code,
      'MICROSERVICE_UNAVAILABLE'
    )
    assert.ok(next.headers.get('retry-after') !== null)
    // At once: not after another ejection period, let alone the availability check's ~24 s.
    assert.ok(next.ms < EJECT_MS, `${next.ms} ms`)
  })

  test('thawed: the instances answer again and take calls', async () => {
    for (const pid of pids) process.kill(pid, 'SIGCONT')
    await until(async () => (await timed(p.url)).status === 200, 10000, 'a call to succeed again')
  })
})

describe('outlier ejection does not count idle time as silence', () => {
  let p: RunningPlatform
  before(async () => {
    // Availability checks every 10 s: between them an idle instance sends no frame at all.
    p = await startPlatform({ DISPATCH: { ejectAfterMs: EJECT_MS, pingIntervalMs: 10000 } }, [TESTKIT_DIR])
    await until(() => p.platform.directory.get('testkit')?.unavailableReason() === null, 10000, 'testkit serving')
  })
  after(() => p?.stop())

  test('after an idle spell longer than the ejection time, a call slower than it (but answering) is not ejected', async () => {
    // Idle for 3x the ejection time, then a call that answers after 2.5x it: the instance pongs the
    // ping sent meanwhile, so it is alive; before the fix the silence counted from its last frame
    // (before the idle spell) and the call was cancelled with 504 at the first watch tick.
    await new Promise((r) => setTimeout(r, EJECT_MS * 3))
    const r = await post(p.url, '/testkit/slow/sleep', String(EJECT_MS * 2.5))
    assert.equal(r.status, 200, r.text)
    assert.equal(r.text, String(EJECT_MS * 2.5))
    assert.equal(p.platform.directory.get('testkit')?.unavailableReason(), null)
  })
})
