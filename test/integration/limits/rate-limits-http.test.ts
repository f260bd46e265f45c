// RATE_LIMITS over HTTP, on a real platform: a caller over its limit gets 429 with Retry-After and the
// RateLimit fields while others keep their rate; 1,000 concurrent clients against one limit; two
// listener threads counting as one; the edge counting an API key's user; untrusted claims that never
// choose a key; the metrics.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Agent, request } from 'node:http'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { startPlatform, post, problem, type RunningPlatform, type Json } from '../../helpers/platform'

const JSON_CT = { 'Content-Type': 'application/json' }
const MULTIPLY = '/example/calculator/multiply'

function as(user: string): Record<string, string> {
  return { ...JSON_CT, 'X-PLATFORM-User': user }
}

interface Answer {
  status: number
  code: string
}

/** One POST on its own connection (or on `agent`'s), its status and problem code. */
function call(
  port: number,
  path: string,
  headers: Record<string, string>,
  agent: Agent | false,
  body = '{"a":2,"b":3}'
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          code: res.statusCode === 200 ? '' : (JSON.parse(text) as { code: string }).code
        })
      )
    })
    req.on('error', reject)
    req.end(body)
  })
}

function statuses(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const a of answers) out[`${a.status} ${a.code}`.trim()] = (out[`${a.status} ${a.code}`.trim()] ?? 0) + 1
  return out
}

type Family = { name: string; metrics: Array<{ value: string; labels?: Record<string, string> }> }

async function metric(admin: string, name: string): Promise<Array<{ value: number; labels: Record<string, string> }>> {
  const families = parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text()) as Family[]
  const f = families.find((x) => x.name === name)
  return (f?.metrics ?? []).map((m) => ({ value: Number(m.value), labels: m.labels ?? {} }))
}

async function platformWith(rules: Json[], more: { [k: string]: Json } = {}): Promise<RunningPlatform> {
  return startPlatform({ RATE_LIMITS: { rules }, ...more })
}

describe('a caller over its limit', () => {
  let p: RunningPlatform
  before(async () => {
    p = await platformWith([
      { name: 'per-user', key: 'identity', count: 3, windowSeconds: 3600, match: { microservice: 'example' } }
    ])
  })
  after(() => p?.stop())

  test('gets 429 RATE_LIMITED with Retry-After and the RateLimit fields; within it, the fields count down', async () => {
    for (const left of [2, 1, 0]) {
      const r = await post(p.url, MULTIPLY, '{"a":2,"b":3}', as('alice'))
      assert.equal(r.status, 200)
      assert.equal(r.headers.get('ratelimit-policy'), '"per-user";q=3;w=3600')
      assert.match(r.headers.get('ratelimit') ?? '', new RegExp(`^"per-user";r=${left};t=\\d+$`))
    }
    const r = await post(p.url, MULTIPLY, '{"a":2,"b":3}', as('alice'))
    assert.equal(r.status, 429)
    const body = problem(r)
    assert.equal(body.code, 'RATE_LIMITED')
    assert.match(body.detail, /over the rate limit per-user; try again in \d+ s/)
    const retry = Number(r.headers.get('retry-after'))
    assert.ok(retry >= 1 && retry <= 3600, `Retry-After ${retry}`)
    assert.equal(r.headers.get('ratelimit'), `"per-user";r=0;t=${retry}`)
    assert.equal(r.headers.get('ratelimit-policy'), '"per-user";q=3;w=3600')
  })

  test('others keep their rate, and a call the rule does not match is not counted', async () => {
    assert.equal((await post(p.url, MULTIPLY, '{"a":2,"b":3}', as('bob'))).status, 200)
    const other = await post(p.url, '/testkit/misc/pair', '["a","b"]', { ...as('alice'), 'X-PLATFORM-API-ID': 'RMC' })
    assert.equal(other.status, 200)
    assert.equal(other.headers.get('ratelimit'), null)
  })

  test('a refusal of an XML call is written in XML, with the same fields', async () => {
    const r = await post(p.url, MULTIPLY, '<in><a>2</a><b>3</b></in>', {
      'Content-Type': 'application/xml',
      'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence',
      'X-PLATFORM-User': 'alice'
    })
    assert.equal(r.status, 429)
    assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+xml/)
    assert.match(r.text, /<code>RATE_LIMITED<\/code>/)
    assert.match(r.headers.get('ratelimit') ?? '', /^"per-user";r=0;t=\d+$/)
  })

  test('a 404 is not counted: routing comes first', async () => {
    const r = await post(p.url, '/example/calculator/nothing', '{}', as('carol'))
    assert.equal(r.status, 404)
    assert.equal(r.headers.get('ratelimit'), null)
  })
})

describe('1,000 concurrent clients against one limit', () => {
  let p: RunningPlatform
  before(async () => {
    p = await platformWith([
      { name: 'everyone', key: 'global', count: 500, windowSeconds: 3600, match: { method: 'multiply' } },
      { name: 'bucket', key: 'global', rate: 100, burst: 200, match: { method: 'multiplyInts' } }
    ])
  })
  after(() => p?.stop())

  test('a quota of 500 allows exactly 500 of 1,000 calls sent at once, each on its own connection', async () => {
    const port = Number(new URL(p.url).port)
    const answers = await Promise.all(Array.from({ length: 1000 }, () => call(port, MULTIPLY, JSON_CT, false)))
    assert.deepEqual(statuses(answers), { '200': 500, '429 RATE_LIMITED': 500 })
  })

  test('a bucket of 200 at 100 a second allows its burst and what the rate added while they came', async () => {
    const port = Number(new URL(p.url).port)
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () =>
        call(port, '/example/calculator/multiplyInts', { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' }, false, '[2,3]')
      )
    )
    const seconds = (performance.now() - started) / 1000
    const ok = answers.filter((a) => a.status === 200).length
    assert.equal(ok + answers.filter((a) => a.code === 'RATE_LIMITED').length, 1000)
    // At least the burst; at most the burst and what the bucket could have filled in the run.
    assert.ok(ok >= 200 && ok <= 200 + Math.ceil(100 * seconds), `${ok} allowed in ${seconds.toFixed(3)} s`)

    // Then it refills at its rate: the platform saw at least the time from the last answer here to the
    // first call sent again, so at least that time's worth is allowed (a bucket that never refills
    // allows none); over both runs, never more than the burst and the rate times the whole time.
    const drained = performance.now()
    await new Promise((r) => setTimeout(r, 1000))
    const waited = (performance.now() - drained) / 1000
    const again = await Promise.all(
      Array.from({ length: 300 }, () =>
        call(port, '/example/calculator/multiplyInts', { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' }, false, '[2,3]')
      )
    )
    const total = (performance.now() - started) / 1000
    const refilled = again.filter((a) => a.status === 200).length
    assert.ok(
      refilled >= Math.floor(100 * waited) - 1 && ok + refilled <= 200 + Math.ceil(100 * total),
      `${refilled} allowed after ${waited.toFixed(3)} s; ${ok + refilled} in ${total.toFixed(3)} s in all`
    )
  })
})

describe('two listener threads', () => {
  let p: RunningPlatform
  before(async () => {
    p = await platformWith([{ name: 'global', key: 'global', count: 300, windowSeconds: 3600 }], {
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2 } }
    })
  })
  after(() => p?.stop())

  test('count as one: 300 of 1,000 calls over 64 connections, served by both threads; the metrics agree', async () => {
    const port = Number(new URL(p.url).port)
    const agent = new Agent({ keepAlive: true, maxSockets: 64 })
    const answers = await Promise.all(Array.from({ length: 1000 }, () => call(port, MULTIPLY, JSON_CT, agent)))
    agent.destroy()
    assert.deepEqual(statuses(answers), { '200': 300, '429 RATE_LIMITED': 700 })
    const admin = `http://127.0.0.1:${p.platform.adminPort}`
    const byThread = await metric(admin, 'igw_listener_thread_requests_total')
    assert.equal(byThread.length, 2)
    for (const t of byThread) assert.ok(t.value > 0, `thread ${t.labels.thread} served none`)
    const decisions = await metric(admin, 'igw_rate_limit_calls_total')
    assert.deepEqual(
      decisions.map((d) => [d.labels.rule, d.labels.decision, d.value]),
      [
        ['global', 'allowed', 300],
        ['global', 'limited', 700]
      ]
    )
    const limited = (await metric(admin, 'igw_requests_total')).find((m) => m.labels.code === 'RATE_LIMITED')
    assert.equal(limited?.value, 700)
    assert.equal(limited?.labels.status, '429')
  })
})

describe('keys from credentials and from peers', () => {
  const key = 'k-rate-limits-0123'
  let p: RunningPlatform
  let untrusted: RunningPlatform
  before(async () => {
    const rule = { name: 'per-user', count: 2, windowSeconds: 3600 }
    p = await platformWith([rule], {
      EDGE: {
        auth: {
          required: false,
          apiKeys: [{ sha256: createHash('sha256').update(key).digest('hex'), user: 'svc-orders', privileges: [] }]
        }
      }
    })
    untrusted = await platformWith([rule], {
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { trust: { trustedPeers: [] } } }
    })
  })
  after(async () => {
    await p?.stop()
    await untrusted?.stop()
  })

  test("at the edge an API key's user is the key: anonymous calls from the same address count apart", async () => {
    const edge = `http://127.0.0.1:${p.platform.edgePort}/_eapi/ELASTIC_HTTP`
    const withKey = { ...JSON_CT, 'X-API-Key': key }
    const codes: number[] = []
    for (let k = 0; k < 3; k++) codes.push((await post(edge, MULTIPLY, '{"a":2,"b":3}', withKey)).status)
    for (let k = 0; k < 3; k++) codes.push((await post(edge, MULTIPLY, '{"a":2,"b":3}', JSON_CT)).status)
    assert.deepEqual(codes, [200, 200, 429, 200, 200, 429])
    // The edge drops an outside client's X-PLATFORM-User: claiming the key's user is not being it.
    const claimed = await post(edge, MULTIPLY, '{"a":2,"b":3}', as('svc-orders'))
    assert.equal(claimed.status, 429, 'counted by the address, whose calls are used up')
  })

  test('an untrusted peer naming different users is counted by its address', async () => {
    const codes: number[] = []
    for (const user of ['u1', 'u2', 'u3'])
      codes.push((await post(untrusted.url, MULTIPLY, '{"a":2,"b":3}', as(user))).status)
    assert.deepEqual(codes, [200, 200, 429])
  })
})
