// The graceful drain of `npm start`'s process, signalled as systemd does (SIGTERM to the whole
// process group, the microservice instances included): /readyz turns 503 at once; for the grace
// period the gateway still serves as before, on new connections and on open keep-alive ones; then
// new connections are refused and the open ones are answered with Connection: close; the 50 calls
// in flight (1-3 s each) all finish 200 (the instances ignore the group's signal and stop when the
// platform tells them); the process exits 0. The same for the Java testkit: the Java host too
// leaves the group's signal to the platform and stops when told on its stdin.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { Agent } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../../helpers/nginx'
import { TESTKIT_DIR, until } from '../../helpers/platform'
import { builtPackage } from '../../helpers/java/java-package'
import { ROOT } from '../../helpers/root'
import { slowCall } from '../../helpers/processes/platform-process'

const MAIN = join(__dirname, '..', '..', '..', 'src', 'main.js')
const GRACE_MS = 3000
const DRAIN_MS = 8000

const RUNTIMES = [
  { runtime: 'node', microservice: 'testkit', dir: (): string => TESTKIT_DIR },
  {
    runtime: 'java',
    microservice: 'java-testkit',
    dir: (): string => builtPackage(join(ROOT, 'test', 'fixtures', 'java-testkit'))
  }
]

for (const { runtime, microservice, dir } of RUNTIMES)
  test(`SIGTERM to the process group (${runtime}): not ready at once, served through the grace, then Connection: close, every call in flight 200, exit 0`, async (t) => {
    const call = (ms: string, agent: Agent | false = false): ReturnType<typeof slowCall> =>
      slowCall(port, ms, agent, microservice)
    const home = mkdtempSync(join(tmpdir(), 'drain-'))
    const port = await freePort()
    const adminPort = await freePort()
    const child = fork(MAIN, [], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true, // a process group of its own, as systemd gives a service
      env: {
        ...process.env,
        PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '"127.0.0.1"',
        PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: String(port),
        PLATFORM__EDGE__enabled: 'false',
        PLATFORM__ADMIN__port: String(adminPort),
        PLATFORM__PLATFORM__bootstrap: '[]',
        PLATFORM__PLATFORM__drainGraceMs: String(GRACE_MS),
        PLATFORM__PLATFORM__drainIdleMs: '300',
        PLATFORM__PLATFORM__drainTimeoutMs: String(DRAIN_MS),
        PLATFORM__PLATFORM__uploadDirectory: JSON.stringify(join(home, 'upload')),
        PLATFORM__PLATFORM__deploymentDirectory: JSON.stringify(join(home, 'deployments')),
        PLATFORM__PLATFORM__controlSocket: JSON.stringify(join(home, 'control.sock')),
        PLATFORM__MICROSERVICES__directories: JSON.stringify([dir()])
      }
    })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    // Whatever happens below, nothing of the group outlives the test.
    t.after(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await until(async () => out.includes('gateway listening'), 20000, 'the platform to start')
    const ready = async (): Promise<number> => (await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status
    assert.equal(await ready(), 200)
    const busy = new Agent({ keepAlive: true, maxSockets: 64 })
    const idle = new Agent({ keepAlive: true, maxSockets: 1 })
    assert.equal((await call('1', idle)).connection, '', 'kept alive') // an open connection for later
    const calls = Array.from({ length: 50 }, (_, k) => call(String(1000 + ((k * 41) % 2000)), busy))
    // Every one of them in flight at the gateway before the signal (read off its own metrics).
    const inFlight = async (): Promise<number> =>
      Number(
        /^igw_requests_in_flight (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text())?.[1]
      )
    await until(async () => (await inFlight()) >= 50, 10000, 'the 50 calls to be in flight')
    const t0 = Date.now()
    process.kill(-child.pid!, 'SIGTERM')
    await until(async () => (await ready()) === 503, 2000, '/readyz 503')

    // The grace: served as before, on the open keep-alive connection and on a new one.
    const onOpen = await call('1', idle)
    const fresh = new Agent({ keepAlive: true })
    const onNew = await call('1', fresh)
    fresh.destroy()
    assert.ok(Date.now() - t0 < GRACE_MS, 'both asked within the grace')
    for (const a of [onOpen, onNew]) assert.deepEqual(a, { status: 200, connection: '', text: '1' })

    // After it: new connections are refused (a balancer moves a call it has not sent yet elsewhere),
    // and the open ones are served with Connection: close.
    await until(
      () =>
        call('1', false).then(
          () => false,
          (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED'
        ),
      GRACE_MS + 2000,
      'connections refused'
    )
    assert.ok(Date.now() - t0 >= GRACE_MS, 'not before the grace ended')
    assert.deepEqual(await call('1', idle), { status: 200, connection: 'close', text: '1' })

    const answers = await Promise.all(calls)
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(50).fill(200)
    )
    assert.equal(await exited, 0)
    assert.ok(Date.now() - t0 < GRACE_MS + DRAIN_MS + 5000, `exited ${Date.now() - t0} ms after SIGTERM`)
    assert.match(out, /SIGTERM: draining \(not ready; serving 3000 ms more/)
    assert.match(out, /SIGTERM: left to the platform/, 'the instance saw the group signal and stayed')
    busy.destroy()
    idle.destroy()
  })
