// Start-up as an operator meets it: a port that is taken fails the start before any microservice runs,
// naming the errno, the address and the key (and environment variable) to change; a second platform
// given the same home refuses to cut the running one off its control socket; a stop ends with a line.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { join } from 'node:path'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { freePort } from '../../helpers/nginx'
import { startPlatformProcess, type PlatformProcessOptions } from '../../helpers/processes/platform-process'

async function options(): Promise<PlatformProcessOptions> {
  return { port: await freePort(), edgePort: await freePort(), adminPort: await freePort() }
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(port, '127.0.0.1', () => resolve(s))
  })
}

/** GET /microservices over the platform's control socket (what `microservice list` asks). */
function listOver(socketPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ socketPath, path: '/microservices' }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
      .on('error', reject)
      .end()
  })
}

test('busy ports fail the start before any microservice runs, each naming errno, address, key and variable', async () => {
  const o = await options()
  const taken = await Promise.all([occupy(o.port), occupy(o.adminPort)])
  try {
    const p = startPlatformProcess(o)
    assert.equal(await p.exited, 1)
    const out = p.output()
    assert.match(
      out,
      new RegExp(
        `platform failed to start: the gateway cannot listen on 127\\.0\\.0\\.1:${o.port}: EADDRINUSE, another process listens there \\(is a platform already running\\? \`ss -ltnp\` names the process\\); change ENTRY_POINTS\\.WEB_SERVICE_FACADE_HTTP\\.port in the config file or set PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port=<port>\\n`
      )
    )
    // Both at once: the operator fixes the config in one round.
    assert.match(
      out,
      new RegExp(
        `\\nthe admin listener cannot listen on 127\\.0\\.0\\.1:${o.adminPort}: EADDRINUSE, .*; change ADMIN\\.port in the config file or set PLATFORM__ADMIN__port=<port>`
      )
    )
    assert.doesNotMatch(out, new RegExp(`:${o.edgePort}`), 'the edge port is free')
    // Nothing was deployed or started: no deployment directory, no instance log.
    assert.equal(existsSync(join(p.home, 'deployments', 'example')), false, out)
    assert.equal(existsSync(join(p.home, 'logs')), false, out)
  } finally {
    for (const s of taken) s.close()
  }
})

test('a second platform in the same home refuses to start and leaves the first one its control socket', async () => {
  const first = startPlatformProcess({
    ...(await options()),
    env: { PLATFORM__PLATFORM__drainGraceMs: '0', PLATFORM__PLATFORM__drainIdleMs: '0' }
  })
  try {
    await first.ready()
    const second = startPlatformProcess({ ...(await options()), home: first.home })
    assert.equal(await second.exited, 1)
    assert.match(
      second.output(),
      new RegExp(
        `platform failed to start: another platform is running with the control socket ${join(first.home, 'control.sock')} \\(it answered\\): stop it first, or give this one its own PLATFORM\\.controlSocket \\(PLATFORM__PLATFORM__controlSocket=…\\) and ports`
      )
    )
    assert.equal(await listOver(join(first.home, 'control.sock')), 200)
    // A stop ends with a line that says so.
    first.signal('SIGTERM')
    assert.equal(await first.exited, 0)
    const last = first.output().trim().split('\n').at(-1)!
    assert.equal((JSON.parse(last) as { msg: string }).msg, 'stopped (SIGTERM)')
    // Its socket is gone with it, so the next start finds nothing in the way.
    assert.equal(existsSync(join(first.home, 'control.sock')), false)
  } finally {
    first.signal('SIGKILL', true)
  }
})

test('a start that fails after a microservice started stops it again and leaves no socket directory', async () => {
  const o = await options()
  // The example is deployed and started first; then a directory that is not a microservice fails the start.
  const p = startPlatformProcess({
    ...o,
    env: { PLATFORM__MICROSERVICES__directories: '["/nonexistent-microservice"]' }
  })
  assert.equal(await p.exited, 1)
  assert.match(p.output(), /platform failed to start: \/nonexistent-microservice\/microservice\.json is missing: /)
  assert.match(p.output(), /"msg":"microservice example 1\.0\.0 listening on unix:/, 'the example had started')
  assert.match(p.output(), /"msg":"microservice example stopping: /, 'and was stopped')
  const pid = p.child.pid!
  // The sockets were under the platform's home (beside its control socket), and nothing is left there.
  assert.match(p.output(), new RegExp(`listening on unix:${p.home}/igw-`), 'the sockets were under the home')
  const left = [tmpdir(), p.home].flatMap((dir) =>
    readdirSync(dir)
      .filter((n) => n.startsWith('igw-'))
      .filter((n) => {
        try {
          return readFileSync(join(dir, n, 'owner.pid'), 'utf8') === String(pid)
        } catch {
          return false
        }
      })
  )
  assert.deepEqual(left, [])
  assert.equal(existsSync(join(p.home, 'control.sock')), false)
})

test('a control socket left behind by a platform that was killed does not stop the next start', async () => {
  const o = await options()
  const home = mkdtempSync(join(tmpdir(), 'stale-socket-'))
  // What kill -9 leaves: the socket file, with nobody listening on it.
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(join(home, 'control.sock'))}, () => console.log('up'))`
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  await new Promise((r) => holder.stdout.once('data', r))
  holder.kill('SIGKILL')
  await new Promise((r) => holder.once('exit', r))
  assert.ok(existsSync(join(home, 'control.sock')), 'the socket file is there')
  const p = startPlatformProcess({
    ...o,
    home,
    env: { PLATFORM__PLATFORM__drainGraceMs: '0', PLATFORM__PLATFORM__drainIdleMs: '0' }
  })
  try {
    await p.ready()
    assert.equal(await listOver(join(home, 'control.sock')), 200)
  } finally {
    p.signal('SIGKILL', true)
  }
})
