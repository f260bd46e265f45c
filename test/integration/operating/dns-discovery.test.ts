// Instances found in DNS, as a Kubernetes headless Service publishes ready pods: a real DNS server
// (dnsmasq, Debian's package) answers for example.ms.test, microservice hosts run in network
// namespaces playing pods (an address of their own on a bridge, every one on port 7000, as a
// Deployment's pods are), and the records change under steady load (16 keep-alive clients): scale
// 1 → 3 → 1, a rolling update to a new version as a Deployment does it, a pod stopped while DNS still
// lists it, a pod killed with SIGKILL. Every call is checked; the counts are what discovery promises:
// nothing lost on a graceful change, only the calls a killed pod held fail, each answered. The pods
// run test/fixtures/loadkit, which records every call it executes: new pods are shown to take calls
// by their own counts, no call runs twice, and a killed pod dies holding calls put there on purpose.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { Platform } from '../../../src/platform/platform'
import { LOADKIT_DIR, TEST_PLATFORM_OPTIONS, exampleAt, testConfig, until } from '../../helpers/platform'
import {
  Records,
  assertExecutedOnce,
  type Held,
  assertOnlyHeldFailed,
  failures,
  holdOn,
  underLoad
} from '../../helpers/load'
import { PodNetwork } from '../../helpers/processes/pods'
import { startDns, type RunningDns } from '../../helpers/processes/dns'
import { ROOT } from '../../helpers/root'

const CLI = join(ROOT, 'bin', 'microservice')
const SECRET_ENV = 'IGW_TEST_DISCOVERY_SECRET'
const NAME = 'loadkit.ms.test'
const MS = 'loadkit'
/** Every pod listens on the same port, as a Deployment's containers do. */
const PORT = 7000
/** The discovery interval here; a pod's preStop pause is a few of them (the manifests: 15 s for 5 s). */
const INTERVAL_MS = 300
const PRE_STOP_MS = 1000

describe('DNS discovery of pods under load: scale 1 → 3 → 1, a rolling update, a pod stopped while listed, a pod killed', () => {
  const v2 = exampleAt('1.1.0', LOADKIT_DIR)
  const records = new Records()
  let pods: PodNetwork
  let dns: RunningDns
  let platform: Platform
  let edge = ''
  const running = new Map<number, ChildProcess>()

  /** The pods DNS answers for the name (dnsmasq reads its hosts file again on SIGHUP). */
  function publish(ns: number[]): void {
    dns.publish(ns.map((n) => pods.address(n)))
  }

  /** Starts pod `n` running the documented command, `microservice host DIR --listen … --secret-env …`. */
  async function startPod(n: number, microservice = LOADKIT_DIR): Promise<void> {
    const address = pods.add(n)
    const argv = [
      process.execPath,
      CLI,
      'host',
      microservice,
      '--listen',
      `tcp:${address}:${PORT}`,
      '--secret-env',
      SECRET_ENV,
      '--drain-ms',
      '10000'
    ]
    const { command, args } = pods.exec(n, argv)
    const child = spawn(command, args, {
      env: { ...process.env, ...records.env(tag(n)) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true // the command and its host in a group of their own: a signal reaches both, as in a container
    })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    running.set(n, child)
    await until(() => out.includes('listening on'), 15000, `pod ${n}: ${out}`)
  }

  /**
   * Stops pod `n` as the kubelet does: its processes signalled, and once all have exited, its network
   * gone, unless `network` is 'kept' (the caller removes it with pods.remove).
   */
  async function stopPod(
    n: number,
    signal: NodeJS.Signals = 'SIGTERM',
    network: 'removed' | 'kept' = 'removed'
  ): Promise<void> {
    const child = running.get(n)
    running.delete(n)
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      process.kill(-child.pid!, signal)
      await exited
    }
    await until(() => pods.pids(n).length === 0, 10000, `pod ${n}'s processes gone`)
    if (network === 'removed') pods.remove(n)
  }

  const found = (): string[] => platform.discovery.instances(MS).sort()
  const registered = (): number => platform.directory.get(MS)?.instances.size ?? 0
  const serving = (n: number): boolean => platform.directory.get(MS)!.isServing(id(n))
  const id = (n: number): string => `${MS}@${pods.address(n)}:${PORT}`
  /** Pod `n` as its record names it. */
  const tag = (n: number): string => `pod${n}`
  const load = (during: () => Promise<void>, tailMs?: number) => underLoad(edge, during, tailMs, MS)

  before(async () => {
    pods = new PodNetwork()
    dns = await startDns(NAME, [pods.address(2)])
    process.env[SECRET_ENV] = 'the discovery test secret'
    await startPod(2)
    platform = new Platform(
      testConfig({
        MICROSERVICES: {
          discovery: [{ name: MS, dns: NAME, port: PORT, secretEnv: SECRET_ENV, intervalMs: INTERVAL_MS }],
          dnsServers: [dns.server]
        }
      }),
      TEST_PLATFORM_OPTIONS
    )
    await platform.start([])
    edge = `http://127.0.0.1:${platform.edgePort}`
    await until(() => platform.directory.get(MS)?.unavailableReason() === null, 15000, `${MS} served`).catch(
      (err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(platform.manager.statusOf(MS))}`)
      }
    )
  })

  after(async () => {
    await platform?.stop()
    await Promise.all([...running.keys()].map((n) => stopPod(n, 'SIGKILL')))
    dns?.stop()
    pods?.close()
  })

  test('scale 1 → 3 → 1: new pods take calls, removed ones finish theirs first; nothing fails or runs twice', async (t) => {
    await Promise.all([startPod(3), startPod(4)])
    const tally = await load(async () => {
      publish([2, 3, 4])
      await until(() => found().length === 3, 10000, 'three found')
      await until(() => serving(4) && serving(3), 10000, 'the new ones serving')
      await new Promise((r) => setTimeout(r, 500))
      publish([2])
      await until(() => registered() === 1, 10000, 'the two retired and removed')
      await Promise.all([stopPod(3), stopPod(4)])
    })
    t.diagnostic(`${tally.ok} calls, failed: ${JSON.stringify(failures(tally))}`)
    t.diagnostic(`the new pods executed ${records.count(tag(3))} and ${records.count(tag(4))} calls`)
    assert.deepEqual(failures(tally), {})
    assert.equal(tally.wrong, 0)
    assert.deepEqual(found(), [id(2)])
    assert.ok(records.count(tag(3)) > 0 && records.count(tag(4)) > 0, 'each new pod executed calls')
    t.diagnostic(assertExecutedOnce(tally, records))
  })

  test('a rolling update to 1.1.0 as a Deployment does it (surge one, then the old pod: preStop, SIGTERM); nothing fails or runs twice', async (t) => {
    const tally = await load(async () => {
      await startPod(5, v2) // ready: the endpoints controller lists it
      publish([2, 5])
      // The surge: both pods listed at once before the old one leaves the endpoints.
      await until(() => found().length === 2, 15000, `discovery to list both pods, the new one too: ${found()}`)
      publish([5]) // the old pod is terminating: out of the endpoints, its preStop pause, then SIGTERM
      await new Promise((r) => setTimeout(r, PRE_STOP_MS))
      await stopPod(2)
    })
    t.diagnostic(
      `${tally.ok} calls, failed: ${JSON.stringify(failures(tally))}; the new pod executed ${records.count(tag(5))}`
    )
    assert.deepEqual(failures(tally), {})
    assert.ok(tally.ok > 100, `${tally.ok} calls`)
    assert.ok(records.count(tag(5)) > 0, 'the new pod executed calls')
    t.diagnostic(assertExecutedOnce(tally, records))
    await until(() => registered() === 1, 10000, 'the old pod removed')
    assert.deepEqual(platform.directory.get(MS)!.versions, ['1.1.0'])
  })

  test('a pod stopped while DNS still lists it (no preStop): it says GoAway, its calls finish; nothing fails or runs twice', async (t) => {
    await startPod(6, v2)
    publish([5, 6])
    await until(() => serving(6), 10000, 'two serving')
    const tally = await load(async () => {
      await new Promise((r) => setTimeout(r, 300))
      await stopPod(6)
    })
    t.diagnostic(
      `${tally.ok} calls, failed: ${JSON.stringify(failures(tally))}; the stopped pod executed ${records.count(tag(6))}`
    )
    assert.deepEqual(failures(tally), {})
    assert.ok(tally.ok > 100, `${tally.ok} calls`)
    assert.ok(records.count(tag(6)) > 0, 'the stopped pod had executed calls')
    t.diagnostic(assertExecutedOnce(tally, records))
    publish([5])
    await until(() => registered() === 1, 10000, 'the stopped pod removed')
  })

  test('a pod killed with SIGKILL holding calls: only the calls it held fail, each answered 502, none ran twice; the survivor serves on', async (t) => {
    await startPod(7, v2)
    publish([5, 7])
    await until(() => serving(7), 10000, 'two serving')
    let held: Held | undefined
    const tally = await load(async () => {
      held = await holdOn(edge, MS, tag(7), records)
      // The FIN or RST of the host's sockets leaves when the last of its threads exits, which can
      // be after `ip netns pids` stopped listing it (its main thread's namespaces are gone first)
      // and, on a busy machine, after the network was deleted: the held calls then ended 504 by
      // ejection, not 502 (seen in CI). A kubelet tears a pod's network down long after
      // its containers died; here it goes once the gateway has let the instance go.
      await stopPod(7, 'SIGKILL', 'kept')
      publish([5])
      await until(() => registered() === 1, 10000, 'the killed one removed')
      pods.remove(7)
    }, 1000)
    t.diagnostic(assertExecutedOnce(tally, records))
    t.diagnostic(await assertOnlyHeldFailed(tally, '502 BACKEND_CONNECTION_LOST', held!))
  })

  test('a pod that vanishes (its network gone first, as with a failed node): the calls it held are answered 504, none hang or ran twice', async (t) => {
    await startPod(8, v2)
    publish([5, 8])
    await until(() => serving(8), 10000, 'two serving')
    let held: Held | undefined
    const tally = await load(async () => {
      held = await holdOn(edge, MS, tag(8), records)
      pods.cut(8) // no FIN or RST reaches the gateway: only outlier ejection ends the calls it holds
      await stopPod(8, 'SIGKILL')
      publish([5])
      await until(() => registered() === 1, 10000, 'the vanished one removed')
    }, 1000)
    t.diagnostic(assertExecutedOnce(tally, records))
    t.diagnostic(await assertOnlyHeldFailed(tally, '504 EXECUTION_TIMEOUT', held!))
  })
})
