// The graceful drain of `npm start`'s process: on SIGTERM, 50 calls in flight (1-3 s each) all finish
// 200, a new request on an open keep-alive connection gets 503 with Connection: close, and the process
// exits within the drain time.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { request, Agent } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../helpers/nginx'
import { TESTKIT_DIR } from '../helpers/platform'

const MAIN = join(__dirname, '..', '..', 'src', 'main.js')
const DRAIN_MS = 8000

function call(port: number, agent: Agent, body: string): Promise<{ status: number; connection: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/testkit/slow/sleep',
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json' }
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection ?? ''), text })
        )
      }
    )
    req.on('error', reject)
    req.end(body)
  })
}

test('SIGTERM drains: every call in flight answered 200, new requests 503 with Connection: close, exit within the drain time', async () => {
  const home = mkdtempSync(join(tmpdir(), 'drain-'))
  const port = await freePort()
  const adminPort = await freePort()
  const child = fork(MAIN, [], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: {
      ...process.env,
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '"127.0.0.1"',
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: String(port),
      PLATFORM__EDGE__enabled: 'false',
      PLATFORM__ADMIN__port: String(adminPort),
      PLATFORM__PLATFORM__bootstrap: '[]',
      PLATFORM__PLATFORM__drainTimeoutMs: String(DRAIN_MS),
      PLATFORM__PLATFORM__uploadDirectory: JSON.stringify(join(home, 'upload')),
      PLATFORM__PLATFORM__deploymentDirectory: JSON.stringify(join(home, 'deployments')),
      PLATFORM__PLATFORM__controlSocket: JSON.stringify(join(home, 'control.sock')),
      PLATFORM__MICROSERVICES__directories: JSON.stringify([TESTKIT_DIR])
    }
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the platform did not start')), 20000)
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('gateway listening')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  const ready = async (): Promise<number> => (await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status
  assert.equal(await ready(), 200)
  const busy = new Agent({ keepAlive: true, maxSockets: 64 })
  const idle = new Agent({ keepAlive: true, maxSockets: 1 })
  assert.equal((await call(port, idle, '1')).status, 200) // an open keep-alive connection for later
  const calls = Array.from({ length: 50 }, (_, k) => call(port, busy, String(1000 + ((k * 41) % 2000))))
  await new Promise((r) => setTimeout(r, 300))
  const t0 = Date.now()
  child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 200))
  assert.equal(await ready(), 503, 'not ready while draining')
  const late = await call(port, idle, '1')
  assert.equal(late.status, 503)
  assert.equal(late.connection, 'close')
  assert.match(late.text, /shutting down/)
  const answers = await Promise.all(calls)
  assert.deepEqual(
    answers.map((a) => a.status),
    Array(50).fill(200)
  )
  const code = await exited
  const took = Date.now() - t0
  assert.equal(code, 0)
  assert.ok(took < DRAIN_MS + 5000, `exited ${took} ms after SIGTERM`)
  busy.destroy()
  idle.destroy()
})
