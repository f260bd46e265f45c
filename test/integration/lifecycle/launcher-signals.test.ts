// The platform started as users and supervisors start it, each in a process group of its own, and
// signalled as they signal it:
// - `npm start`'s launcher (scripts/start.mjs), SIGTERM to its whole group (what `timeout`, a CI
//   runner or `kill -- -PGID` do) and, a few ms later, to the launcher alone: npm passes a signal it
//   gets on to its script, which gets it from the group as well (npm itself is left out here: on an
//   idle machine the two deliveries can merge into one pending signal, and the test would pass by
//   luck). One signal delivered two ways is one signal, whether main.js re-executes itself with its
//   V8 flags or runs the platform in place: it drains once, the call in flight is answered, exit 0.
// - The launcher, Ctrl+C (SIGINT to the group), then after a pause a second Ctrl+C: a real second
//   signal still stops at once.
// - `node dist/src/main.js`, as the systemd unit and the container image run it, signalled as systemd
//   does with KillMode=mixed (SIGTERM to the main process only): it drains once and exits 0.
// Every way of starting runs the serving process with the same V8 flags (src/common/process/gc-flags.ts),
// read from /proc/<pid>/cmdline of the process that logs "gateway listening".
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../../helpers/nginx'
import { TESTKIT_DIR, until } from '../../helpers/platform'
import { platformEnv, slowCall, type SlowAnswer } from '../../helpers/processes/platform-process'
import { ROOT } from '../../helpers/root'
import { gcFlags } from '../../../src/common/process/gc-flags'

const START = join(ROOT, 'scripts', 'start.mjs')
const MAIN = join(ROOT, 'dist', 'src', 'main.js')

interface Started {
  /** The process started (the launcher, or node dist/src/main.js), leader of its own process group. */
  pid: number
  port: number
  adminPort: number
  output(): string
  exited: Promise<number | null>
}

async function start(t: TestContext, args: string[], env: Record<string, string> = {}): Promise<Started> {
  const home = mkdtempSync(join(tmpdir(), 'launcher-signals-'))
  const [port, adminPort] = [await freePort(), await freePort()]
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...platformEnv(home, { port, adminPort }),
      PLATFORM__PLATFORM__bootstrap: '[]',
      PLATFORM__PLATFORM__drainGraceMs: '300',
      PLATFORM__PLATFORM__drainIdleMs: '200',
      PLATFORM__PLATFORM__drainTimeoutMs: '15000',
      PLATFORM__MICROSERVICES__directories: JSON.stringify([TESTKIT_DIR]),
      ...env
    }
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const started: Started = { pid: child.pid!, port, adminPort, output: () => out, exited }
  // Whatever happens, nothing of it outlives the test: its group, and the serving process wherever it is.
  t.after(() => {
    for (const pid of [-started.pid, ...pids(out)])
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
  })
  const deadline = Date.now() + 60000
  while ((await slowCall(port, '1').catch(() => null))?.status !== 200) {
    if (Date.now() > deadline) throw new Error(`not serving within 60 s: ${out.slice(-2000)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return started
}

/** Every process id the platform's log lines name. */
function pids(out: string): number[] {
  return [...new Set([...out.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))]
}

/** The status and body of an answer: what a client in flight during a drain must get. */
const answered = (a: SlowAnswer): { status: number; text: string } => ({ status: a.status, text: a.text })

async function inFlight(p: Started): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.adminPort}/metrics`)).text()
  return Number(/^igw_requests_in_flight (\d+)$/m.exec(text)?.[1] ?? 0)
}

/** The V8 options the process that serves was started with (its command line up to the script). */
function servingFlags(p: Started): string[] {
  const line = /^.*"msg":"gateway listening on.*$/m.exec(p.output())
  assert.ok(line !== null, `the platform logged where it listens: ${p.output().slice(-2000)}`)
  const pid = Number(/"pid":(\d+)/.exec(line[0])![1])
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
  const script = argv.findIndex((a, k) => k > 0 && !a.startsWith('-'))
  return argv.slice(1, script).filter((a) => GC_FLAGS.has(a))
}
/** Every flag gcFlags() may give. */
const GC_FLAGS = new Set(gcFlags({ PLATFORM_GC: 'single' }))

function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, 'g'))].length
}

// Re-executed with the V8 flags it lacks, the signal counts once where it is passed on; run in place
// (PLATFORM_GC=parallel asks for no flags, as a machine of more than two cores does), in the platform.
for (const [how, env] of [
  ['re-executed with its V8 flags', {}],
  ['run in place', { PLATFORM_GC: 'parallel' }]
] as const)
  test(`npm start's launcher, ${how}, SIGTERM to its group and to it alone (npm's forward): one drain, the call in flight answered 200, exit 0`, async (t) => {
    const p = await start(t, [START], env)
    assert.deepEqual(servingFlags(p), gcFlags({ ...process.env, ...env }), 'the V8 flags this machine calls for')
    const slow = slowCall(p.port, '3000')
    await until(async () => (await inFlight(p)) >= 1, 10000, 'the call to be in flight')
    process.kill(-p.pid, 'SIGTERM')
    // npm's forward came 4 ms after the group's in the report of this bug.
    await new Promise((r) => setTimeout(r, 10))
    process.kill(p.pid, 'SIGTERM')
    assert.deepEqual(answered(await slow), { status: 200, text: '3000' }, p.output().slice(-3000))
    assert.equal(await p.exited, 0, p.output().slice(-3000))
    assert.equal(count(p.output(), /SIGTERM: draining/), 1, p.output().slice(-3000))
    assert.doesNotMatch(p.output(), /again/)
    assert.match(p.output(), /stopped \(SIGTERM\)/)
  })

test("npm start's launcher, Ctrl+C, and a second Ctrl+C after a pause: the second stops at once", async (t) => {
  const p = await start(t, [START])
  const slow = slowCall(p.port, '20000').catch(() => null)
  await until(async () => (await inFlight(p)) >= 1, 10000, 'the call to be in flight')
  process.kill(-p.pid, 'SIGINT')
  await until(() => /SIGINT: draining/.test(p.output()), 5000, 'the drain to start')
  await new Promise((r) => setTimeout(r, 500))
  const second = Date.now()
  process.kill(-p.pid, 'SIGINT')
  await until(() => /"msg":"SIGINT again: stopping now"/.test(p.output()), 5000, 'the platform to stop')
  assert.equal(await p.exited, 1, p.output().slice(-3000))
  assert.ok(Date.now() - second < 5000, 'at once, not after the call in flight')
  assert.equal(count(p.output(), /SIGINT: draining/), 1, p.output().slice(-3000))
  assert.notEqual((await slow)?.status, 200, 'the call in flight was not waited for')
})

test('node dist/src/main.js as systemd and the image run it: the same V8 flags; SIGTERM to it alone drains once, exit 0', async (t) => {
  const p = await start(t, [MAIN])
  assert.deepEqual(servingFlags(p), gcFlags(), 'the V8 flags this machine calls for, as through npm start')
  const slow = slowCall(p.port, '2000')
  await until(async () => (await inFlight(p)) >= 1, 10000, 'the call to be in flight')
  process.kill(p.pid, 'SIGTERM')
  assert.deepEqual(answered(await slow), { status: 200, text: '2000' }, p.output().slice(-3000))
  assert.equal(await p.exited, 0, p.output().slice(-3000))
  assert.equal(count(p.output(), /SIGTERM: draining/), 1, p.output().slice(-3000))
  assert.doesNotMatch(p.output(), /again/)
})
