// Two platforms behind the generated nginx under steady load (16 keep-alive clients), node B
// stopped, restarted and killed as an operator would: SIGTERM to its gateway process, SIGTERM to its
// whole process group, a restart, kill -9. Every call is checked (status and answer); the counts
// are what the drain (Platform.stop) and the generated nginx config promise: no error for a
// graceful stop or a restart, a restarted node taking calls again, and for kill -9 only the calls B
// held failing, each answered by nginx as a problem. The nodes serve test/fixtures/loadkit, which
// records every call it executes: the restarted B is shown to take calls by its own count, no call
// runs twice (nginx must not send a call B may have run to A), and B dies holding calls on purpose.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startNginx, freePort, type RunningNginx } from '../../helpers/nginx'
import {
  startPlatformProcess,
  type PlatformProcess,
  type PlatformProcessOptions
} from '../../helpers/processes/platform-process'
import {
  Records,
  assertExecutedOnce,
  assertOnlyHeldFailed,
  failures,
  holdOn,
  underLoad,
  type Held
} from '../../helpers/load'
import { LOADKIT_DIR } from '../../helpers/platform'

const MS = 'loadkit'

// With one listener thread, and with two (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads): every thread drains.
for (const threads of [1, 2])
  describe(`two platforms behind the generated nginx, ${threads} listener thread${threads > 1 ? 's' : ''} each: stops, restarts and a kill under load`, () => {
    let nginx: RunningNginx
    let a: PlatformProcess
    let b: PlatformProcess
    let bOptions: PlatformProcessOptions
    const records = new Records()
    /** B as its instances' records name it: a new name at every start, so a restarted B's count is its own. */
    let bTag = 'B0'
    const env = {
      PLATFORM__PLATFORM__drainGraceMs: '1000',
      PLATFORM__PLATFORM__bootstrap: JSON.stringify([LOADKIT_DIR]),
      PLATFORM__WORKER_POOL__maxThreads: '1',
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__threads: String(threads)
    }
    const load = (during: () => Promise<void>, tailMs?: number) => underLoad(nginx.url, during, tailMs, MS)

    before(async () => {
      const ports = async (tag: string): Promise<PlatformProcessOptions> => ({
        port: await freePort(),
        edgePort: await freePort(),
        adminPort: await freePort(),
        env: { ...env, ...records.env(tag) }
      })
      const aOptions = await ports('A')
      bOptions = await ports(bTag)
      a = startPlatformProcess(aOptions)
      b = startPlatformProcess(bOptions)
      bOptions = { ...bOptions, home: b.home }
      await Promise.all([a.ready(), b.ready()])
      nginx = await startNginx(
        [aOptions, bOptions].map((o) => ({ host: '127.0.0.1', gatewayPort: o.port, edgePort: o.edgePort })),
        { maxBodyBytes: 16 * 1024 * 1024, executingTimeoutMs: 240000 }
      )
    })

    after(async () => {
      await nginx?.stop()
      for (const p of [a, b]) p?.signal('SIGKILL', true)
    })

    /**
     * Starts B again on its ports and home under a new tag; resolves with ms from its /readyz 200 to
     * the first call its instance executed. How soon rests on nginx (it tries a failed node again
     * fail_timeout after its last failure), so it is reported, not bounded; that B takes calls at
     * all is asserted, within a deadline only a stuck node misses.
     */
    async function restartB(): Promise<number> {
      bTag = `B${Number(bTag.slice(1)) + 1}`
      bOptions = { ...bOptions, env: { ...env, ...records.env(bTag) } }
      b = startPlatformProcess(bOptions)
      await b.ready()
      const readyAt = Date.now()
      while (records.count(bTag) === 0) {
        if (Date.now() - readyAt > 30000) throw new Error('the restarted B executed no call within 30 s of being ready')
        await new Promise((r) => setTimeout(r, 20))
      }
      return Date.now() - readyAt
    }

    for (const [what, group] of [
      ['SIGTERM to its gateway process', false],
      ['SIGTERM to its whole process group', true]
    ] as const) {
      test(`node B: ${what}, then a restart: no call fails or runs twice; the restarted B takes calls`, async (t) => {
        let tookMs = -1
        let stopped = ''
        const tally = await load(async () => {
          b.signal('SIGTERM', group)
          const old = b
          void old.exited.then(
            () =>
              (stopped = old
                .output()
                .split('\n')
                .filter((l) => l.includes('"main"') || l.includes('SIGTERM'))
                .join('\n'))
          )
          assert.equal(await b.exited, 0)
          tookMs = await restartB()
        })
        assert.deepEqual(
          failures(tally),
          {},
          stopped +
            nginx
              .errors()
              .split('\n')
              .filter((l) => !l.includes('Connection refused') && !l.includes('temporarily disabled'))
              .join('\n')
        )
        assert.equal(tally.wrong, 0)
        assert.ok(tally.ok > 100, `${tally.ok} calls`)
        assert.ok(records.count(bTag) > 0, 'the restarted B executed calls')
        t.diagnostic(
          `${tally.ok} calls, 0 failed; the restarted B executed its first call ${tookMs} ms after /readyz 200 and ${records.count(bTag)} in all`
        )
        t.diagnostic(assertExecutedOnce(tally, records))
      })
    }

    test('node B: kill -9 of its group holding calls: only the calls B held fail, each answered 502 NODE_FAILED; none ran twice', async (t) => {
      let held: Held | undefined
      const tally = await load(async () => {
        held = await holdOn(nginx.url, MS, bTag, records)
        b.signal('SIGKILL', true)
        await b.exited
      }, 1500)
      t.diagnostic(assertExecutedOnce(tally, records))
      t.diagnostic(await assertOnlyHeldFailed(tally, '502 NODE_FAILED', held!))
    })
  })
