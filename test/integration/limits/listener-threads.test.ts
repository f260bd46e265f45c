// The gateway on several listener threads (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads): one port,
// calls spread by the kernel, one set of bounds, totals and access log, a failing thread answered and
// replaced, a drain that waits for every thread, and a second platform on the port still refused.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request } from 'node:http'
import { postOn } from '../../helpers/http-post'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Platform } from '../../../src/platform/platform'
import { EXAMPLE_DIR, TESTKIT_DIR, TEST_PLATFORM_OPTIONS, testConfig, type Json, until } from '../../helpers/platform'
import { freePort } from '../../helpers/nginx'
import { startPlatformProcess, type PlatformProcess } from '../../helpers/processes/platform-process'

interface Answer {
  status: number
  text: string
  code: string
}

/** One POST on `agent` (keep-alive sockets: each is a connection the kernel gave to one thread). */
async function post(port: number, path: string, body: string, agent: Agent): Promise<Answer> {
  const { status, headers, text } = await postOn({ port, path, body, agent })
  const problem = String(headers['content-type']).startsWith('application/problem+json')
  return { status, text, code: problem ? (JSON.parse(text) as { code: string }).code : '' }
}

/** `count` calls at once over `connections` keep-alive connections. */
async function calls(port: number, count: number, connections: number, path: string, body: (k: number) => string) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  try {
    return await Promise.all(Array.from({ length: count }, (_, k) => post(port, path, body(k), agent)))
  } finally {
    agent.destroy()
  }
}

async function start(
  overrides: { [k: string]: Json },
  lines: string[] = [],
  listenPort = 0
): Promise<{ platform: Platform; port: number; admin: string }> {
  const platform = new Platform(
    testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2 } }, ...overrides }),
    { ...TEST_PLATFORM_OPTIONS, port: listenPort, accessLog: { write: (line) => lines.push(line) } }
  )
  const port = await platform.start([EXAMPLE_DIR, TESTKIT_DIR])
  return { platform, port, admin: `http://127.0.0.1:${platform.adminPort}` }
}

type Family = { name: string; metrics: Array<{ value: string; labels?: Record<string, string> }> }

async function metrics(admin: string): Promise<Family[]> {
  return parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text()) as Family[]
}

function samples(families: Family[], name: string): Array<{ value: number; labels: Record<string, string> }> {
  const f = families.find((x) => x.name === name)
  return (f?.metrics ?? []).map((m) => ({ value: Number(m.value), labels: m.labels ?? {} }))
}

function total(families: Family[], name: string, where: (labels: Record<string, string>) => boolean = () => true) {
  return samples(families, name)
    .filter((s) => where(s.labels))
    .reduce((n, s) => n + s.value, 0)
}

describe('listener threads', () => {
  test('calls spread over both threads; /metrics and the access log count each call once, in whole lines', async () => {
    const lines: string[] = []
    const { platform, port, admin } = await start({}, lines)
    try {
      const n = 640
      const answers = await calls(port, n, 64, '/example/calculator/multiply', (k) => `{"a":${k},"b":3}`)
      answers.forEach((a, k) => assert.equal(a.text, `{"result":${k * 3}}`))
      const m = await metrics(admin)
      const byThread = samples(m, 'igw_listener_thread_requests_total')
      assert.deepEqual(
        byThread.map((s) => s.labels.thread),
        ['0', '1']
      )
      // Each thread served some of the 64 connections (all on one: a chance of 2^-63).
      for (const s of byThread) assert.ok(s.value > 0, JSON.stringify(byThread))
      assert.equal(
        byThread.reduce((t, s) => t + s.value, 0),
        n
      )
      assert.equal(
        total(m, 'igw_requests_total', (l) => l.status === '200'),
        n
      )
      const durations = m.find((f) => f.name === 'igw_request_duration_seconds')?.metrics ?? []
      assert.equal(
        durations.reduce((t, d) => t + Number((d as { buckets?: Record<string, string> }).buckets?.['+Inf']), 0),
        n
      )
      await until(() => lines.length >= n, 10000, 'every access-log line')
      assert.equal(lines.length, n)
      const ids = new Set<string>()
      for (const line of lines) {
        assert.ok(line.endsWith('}\n'), line)
        const record = JSON.parse(line) as { status: number; requestId: string; component: string }
        assert.equal(record.status, 200)
        assert.equal(record.component, 'access')
        ids.add(record.requestId)
      }
      assert.equal(ids.size, n, 'request ids are unique across threads')
    } finally {
      await platform.stop(0, 0)
    }
  })

  test('maxInFlight bounds the calls of every thread together, not each thread', async () => {
    const { platform, port } = await start({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2, maxInFlight: 4 } }
    })
    try {
      // 24 calls held at once over 24 connections (both threads have some): 4 are admitted in all.
      const answers = await calls(port, 24, 24, '/testkit/slow/sleep', () => '1500')
      const ok = answers.filter((a) => a.status === 200)
      const overloaded = answers.filter((a) => a.code === 'OVERLOADED')
      assert.equal(ok.length, 4, JSON.stringify(answers.map((a) => a.status)))
      assert.equal(overloaded.length, 20, JSON.stringify(answers.map((a) => [a.status, a.code])))
      // A thread releases its count right after it writes the answer, in parallel with this thread.
      await until(() => platform.gateway.calls.bounds.inFlight === 0, 10000, 'the bounds released')
      assert.equal(platform.gateway.calls.bounds.bodyBytes, 0)
    } finally {
      await platform.stop(0, 0)
    }
  })

  test('a thread that fails answers the calls it held, is started again, and the other thread serves on', async () => {
    const { platform, port, admin } = await start({})
    try {
      const threads = platform.threads!
      const held = calls(port, 32, 32, '/testkit/slow/sleep', () => '1500')
      await until(() => platform.gateway.calls.bounds.inFlight === 32, 10000, '32 calls in flight')
      threads.fault(1)
      const answers = await held
      const ok = answers.filter((a) => a.status === 200 && a.text === '1500').length
      const failed = answers.filter((a) => a.status === 500 && a.code === 'INTERNAL').length
      // Every call was answered: those on the failing thread 500 INTERNAL, the others as if nothing happened.
      assert.equal(ok + failed, 32, JSON.stringify(answers))
      assert.ok(failed > 0 && ok > 0, `${ok} answered, ${failed} failed`)
      await threads.whenListening(1)
      const after = await calls(port, 256, 32, '/example/calculator/multiply', (k) => `{"a":${k},"b":2}`)
      after.forEach((a, k) => assert.equal(a.text, `{"result":${k * 2}}`))
      const m = await metrics(admin)
      assert.equal(total(m, 'igw_listener_thread_restarts_total'), 1)
      // The failed thread's counts outlive it: every call is counted once.
      assert.equal(
        total(m, 'igw_requests_total', (l) => l.code === 'INTERNAL'),
        failed
      )
      assert.equal(
        total(m, 'igw_requests_total', (l) => l.status === '200'),
        ok + 256
      )
      const byThread = samples(m, 'igw_listener_thread_requests_total')
      assert.equal(
        byThread.reduce((t, s) => t + s.value, 0),
        32 + 256
      )
    } finally {
      await platform.stop(0, 0)
    }
  })

  test('a rollout asks every thread whether it reaches an instance: yes for one it serves, no for one it does not', async () => {
    const { platform } = await start({})
    try {
      const threads = platform.threads!
      const serving = platform.manager.statusOf('example')!.instances[0]!.id
      // The threads connect on their own: each says yes once it does (the manager waits up to startTimeoutMs).
      assert.equal(await threads.whenServing('example', serving, 10000), true)
      // An instance no thread knows: each waits its time and says no; the manager then logs that the
      // old version drains anyway, so a thread's silence must not read as a yes.
      assert.equal(await threads.whenServing('example', 'no-such-instance', 300), false)
      assert.equal(await platform.directory.whenServing('example', 'no-such-instance', 300), false)
    } finally {
      await platform.stop(0, 0)
    }
  })

  test('the drain waits for the calls of every thread, then no thread accepts a connection', async () => {
    const { platform, port } = await start({})
    const held = calls(port, 16, 16, '/testkit/slow/sleep', () => '800')
    try {
      await until(() => platform.gateway.calls.bounds.inFlight === 16, 10000, '16 calls in flight')
    } finally {
      await platform.stop(0, 0)
    }
    for (const a of await held) assert.deepEqual([a.status, a.text], [200, '800'])
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`), /fetch failed/)
  })

  test('EDGE.threads: the edge on two threads, its calls and its descriptions served by both', async () => {
    const { platform } = await start({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 1 } },
      EDGE: { threads: 2 }
    })
    try {
      const edge = platform.edgePort
      const n = 256
      const answers = await calls(
        edge,
        n,
        64,
        '/_eapi/ELASTIC_HTTP/example/calculator/multiply',
        (k) => `{"a":${k},"b":7}`
      )
      answers.forEach((a, k) => assert.equal(a.text, `{"result":${k * 7}}`))
      const byThread = samples(
        await metrics(`http://127.0.0.1:${platform.adminPort}`),
        'igw_listener_thread_requests_total'
      )
      assert.equal(byThread.length, 2)
      for (const s of byThread) assert.ok(s.value > 0, JSON.stringify(byThread))
      // Every connection gets the description, whichever thread the kernel gave it to.
      const agent = new Agent({ keepAlive: false })
      const descriptions = await Promise.all(
        Array.from(
          { length: 32 },
          () =>
            new Promise<number>((resolve, reject) =>
              request({ host: '127.0.0.1', port: edge, path: '/_swagger/example/openapi.json', agent }, (res) => {
                res.resume()
                res.on('end', () => resolve(res.statusCode ?? 0))
              })
                .on('error', reject)
                .end()
            )
        )
      )
      assert.deepEqual(new Set(descriptions), new Set([200]))
    } finally {
      await platform.stop(0, 0)
    }
  })

  test('a second platform on the port the threads share is refused at start', async () => {
    const port = await freePort()
    const first = await start({}, [], port)
    try {
      const second = new Platform(testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2 } } }), {
        ...TEST_PLATFORM_OPTIONS,
        port
      })
      await assert.rejects(second.start([]), /the gateway cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/)
    } finally {
      await first.platform.stop(0, 0)
    }
  })
})

describe('listener threads in a platform process', () => {
  const start = async (): Promise<{ p: PlatformProcess; port: number }> => {
    const port = await freePort()
    const p = startPlatformProcess({
      port,
      edgePort: await freePort(),
      adminPort: await freePort(),
      env: {
        PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__threads: '2',
        PLATFORM__PLATFORM__drainGraceMs: '0',
        PLATFORM__PLATFORM__drainIdleMs: '0',
        PLATFORM__MICROSERVICES__directories: JSON.stringify([TESTKIT_DIR])
      }
    })
    await p.ready()
    return { p, port }
  }

  test('SIGTERM drains every thread and the process exits 0', async () => {
    const { p, port } = await start()
    try {
      // The start-up line names what a client connects to, and how many threads serve it. The port can
      // answer before the line is written (the threads listen, then the main thread logs), so wait for it.
      const listening = new RegExp(`"msg":"gateway listening on http://127\\.0\\.0\\.1:${port} \\(2 threads\\)"`)
      await until(() => listening.test(p.output()), 10000, 'the start-up line')
      const answers = await calls(port, 64, 16, '/example/calculator/multiply', (k) => `{"a":${k},"b":5}`)
      answers.forEach((a, k) => assert.equal(a.text, `{"result":${k * 5}}`))
      p.signal('SIGTERM')
      assert.equal(await p.exited, 0, p.output().slice(-2000))
      assert.doesNotMatch(p.output(), /Assertion failed|open handles/)
    } finally {
      p.signal('SIGKILL', true)
    }
  })

  test('a second signal stops at once: the threads close their Apps first, so the process exits 1, not aborted', async () => {
    const { p, port } = await start()
    try {
      // Calls held on both threads keep the drain waiting, so the second signal comes during it.
      const held = calls(port, 16, 16, '/example/calculator/multiply', () => '{"a":1,"b":1}')
      await held
      const slow = calls(port, 16, 16, '/testkit/slow/sleep', () => '5000').catch(() => [])
      await new Promise((r) => setTimeout(r, 300))
      p.signal('SIGTERM')
      await new Promise((r) => setTimeout(r, 200))
      p.signal('SIGTERM')
      assert.equal(await p.exited, 1, p.output().slice(-2000))
      assert.match(p.output(), /SIGTERM again: stopping now/)
      assert.doesNotMatch(p.output(), /Assertion failed|open handles/)
      await slow
    } finally {
      p.signal('SIGKILL', true)
    }
  })
})
