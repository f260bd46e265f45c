// Reloading the config without a restart (SIGHUP, POST /reload): rate limits, API keys, trusted peers
// and CORS change under load with no failed call; a broken config is refused whole and the running one
// kept; what takes a restart is named, not applied; listener threads follow; counts of unchanged rules
// go on.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Agent, request } from 'node:http'
import { Platform } from '../../../src/platform/platform'
import {
  EXAMPLE_DIR,
  TESTKIT_DIR,
  TEST_PLATFORM_OPTIONS,
  post,
  testConfig,
  type Json,
  until
} from '../../helpers/platform'
import { startPlatformProcess, type PlatformProcess } from '../../helpers/processes/platform-process'
import { freePort } from '../../helpers/nginx'
import type { PlatformConfig } from '../../../src/common/config/config'

const JSON_CT = { 'Content-Type': 'application/json' }
const MULTIPLY = '/example/calculator/multiply'
const PAIR = '/testkit/misc/pair'
const RMC = { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' }
const TOKEN = 'reload-token-0123456789'
const keyOf = (key: string): string => createHash('sha256').update(key).digest('hex')

/** One POST on `agent`: its status (0 when the connection failed). */
function postOn(port: number, path: string, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...JSON_CT, 'X-PLATFORM-User': 'load' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      }
    )
    req.on('error', () => resolve(0))
    req.end('{"a":2,"b":3}')
  })
}

/** 16 keep-alive clients calling until stopped; the statuses they got. */
function load(port: number): { stop(): Promise<number[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  const statuses: number[] = []
  let running = true
  const clients = Array.from({ length: 16 }, async () => {
    while (running) statuses.push(await postOn(port, MULTIPLY, agent))
  })
  return {
    async stop() {
      running = false
      await Promise.all(clients)
      agent.destroy()
      return statuses
    }
  }
}

const failures = (statuses: number[]): number[] => statuses.filter((s) => s !== 200)

describe('a reload in a running platform', () => {
  let platform: Platform
  let url = ''
  let port = 0
  let next: () => PlatformConfig
  const base: { [k: string]: Json } = {
    ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2 } },
    ADMIN: { deployTokenEnv: 'RELOAD_TEST_TOKEN' },
    EDGE: { auth: { apiKeys: [{ sha256: keyOf('old-key'), user: 'old', privileges: [] }] } },
    RATE_LIMITS: { rules: [{ name: 'quota', count: 2, windowSeconds: 3600, match: { method: 'multiplyInts' } }] }
  }
  // testConfig makes new directories each time: the running ones are kept, as a config file would.
  const withOverrides = (over: { [k: string]: Json }): PlatformConfig => ({
    ...testConfig({ ...base, ...over }),
    platform: platform.config.platform
  })
  before(async () => {
    process.env.RELOAD_TEST_TOKEN = TOKEN
    next = () => withOverrides({})
    platform = new Platform(testConfig(base), { ...TEST_PLATFORM_OPTIONS, reloadConfig: () => next() })
    port = await platform.start([EXAMPLE_DIR, TESTKIT_DIR])
    url = `http://127.0.0.1:${port}`
  })
  after(async () => {
    await platform?.stop()
    delete process.env.RELOAD_TEST_TOKEN
  })
  const admin = (): string => `http://127.0.0.1:${platform.adminPort}`
  const reload = (token = TOKEN) =>
    fetch(`${admin()}/reload`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } })

  test('a new rule applies at once on both threads, under 16 keep-alive clients that see no failure', async () => {
    assert.equal((await post(url, MULTIPLY, '{"a":2,"b":3}', JSON_CT)).headers.get('ratelimit'), null)
    const running = load(port)
    let statuses: number[] = []
    try {
      await new Promise((r) => setTimeout(r, 200))
      next = () =>
        withOverrides({
          RATE_LIMITS: {
            rules: [
              { name: 'quota', count: 2, windowSeconds: 3600, match: { method: 'multiplyInts' } },
              { name: 'pairs', key: 'global', count: 40, windowSeconds: 3600, match: { method: 'pair' } }
            ]
          }
        })
      const r = await reload()
      assert.equal(r.status, 200)
      assert.deepEqual(await r.json(), { applied: true, changed: ['RATE_LIMITS'], needsRestart: [] })
      await new Promise((r) => setTimeout(r, 200))
    } finally {
      statuses = await running.stop()
    }
    assert.ok(statuses.length > 100, `${statuses.length} calls`)
    assert.deepEqual(failures(statuses), [])
    // 100 calls over 32 connections, spread over both threads: the shared count allows exactly 40.
    const agent = new Agent({ keepAlive: true, maxSockets: 32 })
    const codes = await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise<number>((resolve, reject) => {
            const req = request({ host: '127.0.0.1', port, path: PAIR, method: 'POST', agent, headers: RMC }, (res) => {
              res.resume()
              res.on('end', () => resolve(res.statusCode ?? 0))
            })
            req.on('error', reject)
            req.end('["a","b"]')
          })
      )
    )
    agent.destroy()
    assert.deepEqual([codes.filter((c) => c === 200).length, codes.filter((c) => c === 429).length], [40, 60])
  })

  test('a rule kept through a reload keeps its count', async () => {
    const ints = () => post(url, '/example/calculator/multiplyInts', '[2,3]', RMC).then((r) => r.status)
    assert.deepEqual([await ints(), await ints(), await ints()], [200, 200, 429])
    next = () =>
      withOverrides({
        RATE_LIMITS: { rules: [{ name: 'quota', count: 3, windowSeconds: 3600, match: { method: 'multiplyInts' } }] }
      })
    assert.equal((await platform.reload()).applied, true)
    // The quota is now 3, of which 2 were used before the reload.
    assert.deepEqual([await ints(), await ints()], [200, 429])
  })

  test('a broken config is refused whole with its reason; the running rules stay', async () => {
    next = () =>
      withOverrides({
        ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2, trust: { trustedPeers: [] } } },
        RATE_LIMITS: { rules: [{ name: 'broken', rate: 1, count: 1, windowSeconds: 1 }] }
      })
    const r = await reload()
    assert.equal(r.status, 422)
    const body = (await r.json()) as { applied: boolean; reason: string }
    assert.equal(body.applied, false)
    assert.match(body.reason, /RATE_LIMITS\.rules\[0\]: give either rate \(and burst\) or count \(and windowSeconds\)/)
    // Neither the rules nor the trust of the broken file were applied.
    assert.equal((await post(url, '/example/calculator/multiplyInts', '[2,3]', RMC)).status, 429)
    const context = await post(url, '/example/diagnostics/context', '[]', { ...RMC, 'X-PLATFORM-User': 'jdoe' })
    assert.equal((JSON.parse(context.text) as { user: string }).user, 'jdoe')
  })

  test('trusted peers, CORS and API keys change; a listener setting is named as needing a restart', async () => {
    next = () =>
      withOverrides({
        ENTRY_POINTS: {
          WEB_SERVICE_FACADE_HTTP: {
            threads: 2,
            port: 1,
            trust: { trustedPeers: [] },
            cors: { allowedOrigins: ['https://app.example'] }
          }
        },
        EDGE: { auth: { apiKeys: [{ sha256: keyOf('new-key'), user: 'new', privileges: [] }] } },
        // As the test before left them: unchanged.
        RATE_LIMITS: { rules: [{ name: 'quota', count: 3, windowSeconds: 3600, match: { method: 'multiplyInts' } }] }
      })
    const r = await reload()
    assert.deepEqual(await r.json(), {
      applied: true,
      changed: ['EDGE.auth', 'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.trust', 'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.cors'],
      needsRestart: ['ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.port']
    })
    // Each thread: 32 calls over 16 connections, every one without the claimed user.
    const agent = new Agent({ keepAlive: true, maxSockets: 16 })
    const users = await Promise.all(
      Array.from(
        { length: 32 },
        () =>
          new Promise<string | null>((resolve, reject) => {
            const req = request(
              {
                host: '127.0.0.1',
                port,
                path: '/example/diagnostics/context',
                method: 'POST',
                agent,
                headers: { ...RMC, 'X-PLATFORM-User': 'jdoe' }
              },
              (res) => {
                let text = ''
                res.on('data', (d: Buffer) => (text += d.toString()))
                res.on('end', () => resolve((JSON.parse(text) as { user: string | null }).user))
              }
            )
            req.on('error', reject)
            req.end('[]')
          })
      )
    )
    agent.destroy()
    assert.deepEqual(new Set(users), new Set([null]))
    const preflight = (origin: string) =>
      fetch(url + MULTIPLY, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' }
      }).then((r) => r.headers.get('access-control-allow-origin'))
    assert.equal(await preflight('https://app.example'), 'https://app.example')
    assert.equal(await preflight('https://other.example'), null)
    const edge = `http://127.0.0.1:${platform.edgePort}/_eapi/ELASTIC_HTTP`
    const withKey = (key: string) =>
      post(edge, MULTIPLY, '{"a":2,"b":3}', { ...JSON_CT, 'X-API-Key': key }).then((r) => r.status)
    assert.deepEqual([await withKey('new-key'), await withKey('old-key')], [200, 401])
    // The port was not changed.
    assert.equal((await post(url, MULTIPLY, '{"a":2,"b":3}', JSON_CT)).status, 200)
  })

  test('POST /reload needs the token', async () => {
    const r = await reload('wrong')
    assert.equal(r.status, 401)
    assert.match(((await r.json()) as { error: string }).error, /a reload needs Authorization: Bearer/)
  })
})

describe('SIGHUP to a platform process', () => {
  let p: PlatformProcess
  let file = ''
  let port = 0
  const rules = (count: number): string =>
    JSON.stringify({
      RATE_LIMITS: { rules: [{ name: 'pairs', key: 'global', count, windowSeconds: 3600, match: { method: 'pair' } }] }
    })
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reload-'))
    file = join(dir, 'platform.json')
    writeFileSync(file, rules(1000))
    port = await freePort()
    p = startPlatformProcess({
      port,
      edgePort: await freePort(),
      adminPort: await freePort(),
      env: {
        PLATFORM_CONFIG: file,
        PLATFORM__MICROSERVICES__directories: JSON.stringify([TESTKIT_DIR])
      }
    })
    await p.ready()
  })
  after(async () => {
    p?.signal('SIGTERM')
    await p?.exited
  })

  const pair = () => post(`http://127.0.0.1:${port}`, PAIR, '["a","b"]', RMC)

  test('reads the file again under load (0 failed calls), and a broken file is refused with the old rules kept', async () => {
    assert.equal((await pair()).headers.get('ratelimit-policy'), '"pairs";q=1000;w=3600')
    const running = load(port)
    let statuses: number[] = []
    try {
      writeFileSync(file, rules(3))
      // To the whole group, as `kill -HUP -- -PGID` does: the instances go on.
      p.signal('SIGHUP', true)
      await until(() => p.output().includes('reloaded: RATE_LIMITS'), 10_000, 'the reload logged')
    } finally {
      statuses = await running.stop()
    }
    assert.deepEqual(failures(statuses), [])
    // One call was counted before the reload, and the count goes on.
    assert.deepEqual([(await pair()).status, (await pair()).status, (await pair()).status], [200, 200, 429])
    assert.match(p.output(), /SIGHUP: the platform reads its config again; this instance goes on/)

    writeFileSync(file, '{ "RATE_LIMITS": { "rules": [ { "name": "x" ')
    p.signal('SIGHUP')
    await until(() => p.output().includes('reload refused'), 10_000, 'the refusal logged')
    assert.match(p.output(), /reload refused, the running config kept: config .*platform\.json: /)
    const kept = await pair()
    assert.equal(kept.status, 429)
    assert.equal(kept.headers.get('ratelimit-policy'), '"pairs";q=3;w=3600')
    assert.equal(await p.readyz(), 200)
  })
})
