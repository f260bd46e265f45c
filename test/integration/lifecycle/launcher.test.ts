// `npm start`'s launcher (scripts/start.mjs) killed with SIGKILL together with its whole process
// group, as `kill -9 -- -PGID` of a terminal's or a supervisor's group does: the platform, which
// runs in a group of its own, must not be left orphaned, serving and holding its ports. Its IPC
// channel to the launcher closes, and it drains and exits; so do its microservice instances.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { freePort } from '../../helpers/nginx'
import { platformEnv } from '../../helpers/processes/platform-process'

const START = join(__dirname, '..', '..', '..', '..', 'scripts', 'start.mjs')

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(false)
    })
    s.once('error', () => resolve(true))
  })
}

test('kill -9 of the launcher and its group leaves nothing running or listening', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'launcher-'))
  const [port, edgePort, adminPort] = [await freePort(), await freePort(), await freePort()]
  const launcher = spawn(process.execPath, [START], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...platformEnv(home, { port, edgePort, adminPort }),
      PLATFORM__PLATFORM__drainGraceMs: '200',
      PLATFORM__PLATFORM__drainIdleMs: '200'
    }
  })
  let out = ''
  let stdout = ''
  launcher.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
    stdout += d.toString()
  })
  launcher.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const pids = (): number[] => [...out.matchAll(/"pid":(\d+)|\(pid (\d+)/g)].map((m) => Number(m[1] ?? m[2]))
  t.after(() => {
    for (const pid of pids()) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  const deadline = Date.now() + 60000
  while (
    (await fetch(`http://127.0.0.1:${adminPort}/readyz`).then(
      (r) => r.status,
      () => 0
    )) !== 200
  ) {
    assert.ok(Date.now() < deadline, `not ready: ${out.slice(-1500)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  // Its stdout is the platform's log: JSON lines only (what the launcher itself says goes to stderr).
  const notJson = stdout
    .split('\n')
    .filter((l) => l !== '')
    .filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object'
      } catch {
        return true
      }
    })
  assert.deepEqual(notJson, [])
  const running = [...new Set(pids())].filter((p) => p !== launcher.pid)
  assert.ok(running.length >= 2, `the platform and an instance: ${running.join(', ')}`)

  process.kill(-launcher.pid!, 'SIGKILL')
  const gone = Date.now() + 20000
  for (;;) {
    const left = running.filter(alive)
    const listening = []
    for (const p of [port, edgePort, adminPort]) if (!(await refuses(p))) listening.push(p)
    if (left.length === 0 && listening.length === 0) break
    assert.ok(Date.now() < gone, `still running: ${left.join(', ')}; still listening: ${listening.join(', ')}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.match(out, /the launcher exited: draining/)
})
