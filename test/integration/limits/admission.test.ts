// Adaptive admission (ADMISSION.adaptive) on a real platform: a microservice of fixed capacity under
// 40 closed-loop clients loses nine tenths of its capacity. Admitted calls keep a p99 within 3× of the
// p99 it had before, the rest are refused at once with 503 OVERLOADED and Retry-After (never a 504),
// priority callers are shed last, and the limit grows back within seconds once the capacity returns.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request } from 'node:http'
import { startPlatform, post, LOADKIT_DIR, type RunningPlatform } from '../../helpers/platform'

const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
const SERVICE_MS = 20

interface Outcome {
  status: number
  code: string
  ms: number
  retryAfter: string | null
  vip: boolean
  at: number
}

function work(port: number, agent: Agent, vip: boolean): Promise<Outcome> {
  const started = performance.now()
  const headers = vip ? { ...RMC, 'X-PLATFORM-User': 'vip' } : RMC
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/loadkit/capacity/work', method: 'POST', agent, headers },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => {
          const status = res.statusCode ?? 0
          resolve({
            status,
            code: status === 200 ? '' : (JSON.parse(text) as { code: string }).code,
            ms: performance.now() - started,
            retryAfter: res.headers['retry-after'] ?? null,
            vip,
            at: performance.now()
          })
        })
      }
    )
    req.on('error', reject)
    req.end('[]')
  })
}

/** Closed-loop clients (`vips` of them as the priority user) until stopped; a refused one waits 20 ms. */
function clients(port: number, normal: number, vips: number): { stop(): Promise<Outcome[]>; outcomes(): Outcome[] } {
  const agent = new Agent({ keepAlive: true, maxSockets: normal + vips })
  const out: Outcome[] = []
  let running = true
  const loops = Array.from({ length: normal + vips }, async (_, k) => {
    while (running) {
      const o = await work(port, agent, k < vips)
      out.push(o)
      if (o.status !== 200) await new Promise((r) => setTimeout(r, 20))
    }
  })
  return {
    async stop() {
      running = false
      await Promise.all(loops)
      agent.destroy()
      return out
    },
    outcomes: () => out
  }
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('adaptive admission', () => {
  let p: RunningPlatform
  let port = 0
  const capacity = async (workers: number) =>
    assert.equal(
      (await post(p.url, '/loadkit/capacity/set', `[${workers},${SERVICE_MS}]`, RMC)).status,
      200,
      'capacity set'
    )
  before(async () => {
    // The slowdown comes 3 s after the start: with the default warm-up (10 s) the new connections'
    // slow round trips would cut nothing; a microservice that slows in service is past its warm-up.
    p = await startPlatform({ ADMISSION: { adaptive: true, warmupMs: 0, priority: { users: ['vip'] } } }, [LOADKIT_DIR])
    port = Number(new URL(p.url).port)
  })
  after(() => p?.stop())

  test('a microservice slowed tenfold under load: admitted calls stay fast, the rest shed at once, priority last; the limit recovers', async (t) => {
    // Capacity for all 40 clients at once: calls take their 20 ms.
    await capacity(64)
    let load = clients(port, 36, 4)
    await sleep(1500)
    const warm = await load.stop()
    load = clients(port, 36, 4)
    await sleep(1500)
    const fast = await load.stop()
    const fastP99 = p99(fast.filter((o) => o.status === 200).map((o) => o.ms))
    const fastOk = fast.filter((o) => o.status === 200).length
    assert.ok(
      warm.length > 0 && fastOk > 1000,
      `${fast.length} fast calls, ${fastOk} admitted, p99 ${fastP99.toFixed(1)} ms; warm-up ${warm.length}, ${warm.filter((o) => o.status === 200).length} admitted`
    )

    // A tenth of the capacity under the same 40 clients: unadmitted, a call would wait ~200 ms in line.
    await capacity(4)
    load = clients(port, 36, 4)
    await sleep(1000)
    const settling = await load.stop()
    load = clients(port, 36, 4)
    await sleep(3000)
    const slow = await load.stop()
    const admitted = slow.filter((o) => o.status === 200)
    const shed = slow.filter((o) => o.status !== 200)
    const slowP99 = p99(admitted.map((o) => o.ms))
    const summary = `fast p99 ${fastP99.toFixed(1)} ms; slowed: ${admitted.length} admitted, p99 ${slowP99.toFixed(1)} ms, ${shed.length} shed`
    t.diagnostic(summary)
    assert.ok(settling.length > 0 && admitted.length > 100, summary)
    assert.ok(slowP99 <= 3 * fastP99, summary)
    // Every refusal is an immediate 503 OVERLOADED with Retry-After: nothing waits for the timeout.
    assert.deepEqual([...new Set(shed.map((o) => `${o.status} ${o.code} ${o.retryAfter}`))], ['503 OVERLOADED 1'])
    assert.ok(shed.length > admitted.length, summary)
    assert.ok(p99(shed.map((o) => o.ms)) < fastP99, `shed answers p99 ${p99(shed.map((o) => o.ms)).toFixed(1)} ms`)
    const share = (vip: boolean) =>
      slow.filter((o) => o.vip === vip && o.status === 200).length / slow.filter((o) => o.vip === vip).length
    assert.ok(
      share(true) > 2 * share(false),
      `admitted: priority ${share(true).toFixed(2)}, others ${share(false).toFixed(2)}`
    )

    // The capacity back: within seconds no call is shed any more.
    await capacity(64)
    load = clients(port, 36, 4)
    const back = performance.now()
    let recovered = -1
    for (let t = 0; t < 10 && recovered < 0; t++) {
      await sleep(500)
      const since = performance.now() - 500
      const recent = load.outcomes().filter((o) => o.at >= since)
      if (recent.length > 0 && recent.every((o) => o.status === 200)) recovered = performance.now() - back
    }
    await load.stop()
    t.diagnostic(
      `shed: priority ${share(true).toFixed(2)} admitted, others ${share(false).toFixed(2)}; recovered after ${recovered.toFixed(0)} ms`
    )
    assert.ok(recovered > 0 && recovered <= 5000, `recovered after ${recovered.toFixed(0)} ms`)
  })
})
