// The manager's side of a java package's instance, against a stand-in JVM (helpers/java/fake-java.ts) and
// a directory that only records: the JVM's command line and environment, registration from the
// listening line (and only a true one), stop on stdin, a start failure's reason, a heap that ran out
// (said on stdout) restarting with a larger heap, and a platform without a Java host refusing.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Instance, ManagedMicroservice, MicroserviceManager, type ManagerOptions } from '../../../src/platform/manager'
import type { MicroserviceDirectory } from '../../../src/gateway/dispatch/directory'
import type { Endpoint } from '../../../src/common/protocol/endpoint'
import { readMicroserviceConfig } from '../../../src/microservice/host/package-config'
import { JAVA_HOST_MISSING } from '../../../src/microservice/host/java-host'
import { JUL_ONE_LINE } from '../../../src/microservice/host/jul-levels'
import {
  fakeClassPathFile,
  fakeJavaHome,
  fakeJavaPackage,
  fakeJavaRuns,
  type FakeJavaScript
} from '../../helpers/java/fake-java'
import { until } from '../../helpers/platform'

process.env.JAVA_HOME = fakeJavaHome()
const snapshots = mkdtempSync(join(tmpdir(), 'manager-snapshots-'))

/** What the manager told the directory. */
interface Told {
  registered: Array<{ name: string; endpoint: Endpoint; id: string }>
  down: string[]
}

function managerWith(options: Partial<ManagerOptions> = {}): { manager: MicroserviceManager; told: Told } {
  const told: Told = { registered: [], down: [] }
  const directory = {
    register: (name: string, endpoint: Endpoint, id: string) => told.registered.push({ name, endpoint, id }),
    markDown: (_name: string, id: string) => told.down.push(id),
    get: () => undefined
  } as unknown as MicroserviceDirectory
  const manager = new MicroserviceManager(
    directory,
    {
      restartMinMs: 50,
      restartMaxMs: 100,
      stdio: 'quiet',
      snapshotDirectory: snapshots,
      javaClassPathFile: fakeClassPathFile(),
      ...options
    },
    () => {}
  )
  return { manager, told }
}

const started: Instance[] = []
after(async () => {
  for (const i of started) await i.stop()
})

function instanceOf(
  manager: MicroserviceManager,
  script: FakeJavaScript,
  config: Record<string, unknown> = {}
): Instance {
  const dir = fakeJavaPackage('calc', script, config)
  const cfg = readMicroserviceConfig(dir)
  const i = new Instance('calc@1.0.0#1.0', new ManagedMicroservice(manager, dir, cfg), dir, cfg)
  started.push(i)
  return i
}

test('a java instance: the JVM as the contract says, registered once its listening line is seen', async () => {
  const { manager, told } = managerWith()
  const i = instanceOf(manager, {}, { memory: { maxOldSpaceMb: 96 } })
  i.start()
  await i.ready()
  const [run] = fakeJavaRuns(i.dir)
  assert.deepEqual(run!.args, [
    '-Xmx96m',
    '-XX:+ExitOnOutOfMemoryError',
    JUL_ONE_LINE,
    '-XX:+HeapDumpOnOutOfMemoryError',
    `-XX:HeapDumpPath=${join(snapshots, 'calc')}`,
    '-cp',
    '/nowhere/host.jar:/nowhere/spring3-context.jar',
    'platform.host.Host',
    i.dir
  ])
  assert.match(run!.env.MICROSERVICE_LISTEN!, /^unix:\/.*\/\d+\.sock$/)
  assert.deepEqual([run!.env.MICROSERVICE_SECRET, run!.env.MICROSERVICE_MANAGED], ['', '1'])
  const socket = { path: run!.env.MICROSERVICE_LISTEN!.slice('unix:'.length) }
  assert.deepEqual(told.registered, [{ name: 'calc', endpoint: socket, id: i.id }])
  const st = i.status()
  assert.deepEqual([st.state, st.endpoint, st.heapMb, st.pid !== null], ['running', `unix:${socket.path}`, 96, true])
  // Stopped with the word on stdin, as the contract says (not a signal it would only log).
  await i.stop()
  assert.equal(fakeJavaRuns(i.dir)[0]!.end, 'stop')
  await manager.stopAll()
})

test('over TCP: the port the listening line names', async () => {
  const { manager, told } = managerWith({ transport: 'tcp' })
  const i = instanceOf(manager, {})
  i.start()
  await i.ready()
  assert.deepEqual(told.registered[0]!.endpoint, { host: '127.0.0.1', port: 7999 })
  assert.deepEqual([i.status().port, i.status().endpoint], [7999, '127.0.0.1:7999'])
})

test("a listening line for another socket or another microservice is not the host's: it is ignored", async () => {
  const { manager, told } = managerWith()
  const i = instanceOf(manager, {
    before: [
      'microservice calc 1.0.0 listening on unix:/tmp/elsewhere.sock (pid 1, heap limit 1 MB)',
      'microservice other 1.0.0 listening on 127.0.0.1:80 (pid 1, heap limit 1 MB)'
    ]
  })
  i.start()
  await i.ready()
  assert.equal(told.registered.length, 1)
  assert.notEqual((told.registered[0]!.endpoint as { path: string }).path, '/tmp/elsewhere.sock')
})

test("a JVM that cannot start: failed, with the host's reason", async () => {
  const { manager } = managerWith()
  const i = instanceOf(manager, { start: 'class com.acme.Calculator not found in calc.jar' })
  i.start()
  await assert.rejects(i.ready(), {
    code: 'IGW_INSTANCE_START',
    message:
      'exited (code 78) before it listened: microservice failed to start: class com.acme.Calculator not found in calc.jar'
  })
  assert.equal(i.status().state, 'failed')
})

test('a heap that ran out (the JVM says so on stdout): restarted with a larger heap, a heap dump asked for', async () => {
  const { manager, told } = managerWith()
  const i = instanceOf(manager, { oom: { belowMb: 100, afterMs: 100 } }, { memory: { maxOldSpaceMb: 80 } })
  i.start()
  await i.ready()
  // 80 MB runs out; grown by growthPercent to 92, it runs out again; at 106 it stays up.
  await until(() => i.status().memoryRestarts === 2 && i.status().state === 'running', 10000, 'two memory restarts')
  const st = i.status()
  assert.equal(st.heapMb, 106)
  assert.equal(st.message, '')
  assert.deepEqual(
    fakeJavaRuns(i.dir).map((r) => r.args[0]),
    ['-Xmx80m', '-Xmx92m', '-Xmx106m']
  )
  assert.ok(fakeJavaRuns(i.dir).every((r) => r.args.includes('-XX:+HeapDumpOnOutOfMemoryError')))
  assert.equal(told.registered.length, 3)
  assert.equal(told.down.length, 2)
})

test('a heap that runs out with restartOnError off, or no heap dump: as the package says', async () => {
  const { manager } = managerWith()
  const i = instanceOf(
    manager,
    { oom: { belowMb: 1000, afterMs: 50 } },
    { memory: { maxOldSpaceMb: 64, restartOnError: false, heapDump: false } }
  )
  i.start()
  await i.ready()
  await until(() => i.status().state === 'failed', 10000, 'the stop')
  assert.equal(i.status().message, 'died of heap exhaustion at 64 MB; restartOnError is off')
  assert.ok(!fakeJavaRuns(i.dir)[0]!.args.some((a) => a.startsWith('-XX:+HeapDump')))
})

test('a JVM that does not stop when told is killed after the same 5 s as a node instance', async () => {
  const { manager } = managerWith()
  const i = instanceOf(manager, { deaf: true })
  i.start()
  await i.ready()
  const child = i.child!
  await i.stop()
  assert.equal(child.signalCode, 'SIGKILL')
})

test('no java to run: the instance fails and says so', async () => {
  const saved = process.env.JAVA_HOME
  process.env.JAVA_HOME = mkdtempSync(join(tmpdir(), 'no-java-'))
  try {
    const { manager } = managerWith()
    const i = instanceOf(manager, {})
    i.start()
    await assert.rejects(i.ready(), { message: /before it listened: cannot run .*\/bin\/java: spawn .* ENOENT/ })
  } finally {
    process.env.JAVA_HOME = saved
  }
})

test('a platform without a Java host refuses a java package before any instance starts', async () => {
  const { manager } = managerWith({ javaClassPathFile: join(snapshots, 'no-classpath') })
  const dir = fakeJavaPackage('calc')
  await assert.rejects(manager.deploy(dir), { code: 'IGW_JAVA_HOST', message: JAVA_HOST_MISSING })
  assert.deepEqual(fakeJavaRuns(dir), [])
  // And a jar the package does not hold is named as such.
  const { manager: withHost } = managerWith()
  const missing = fakeJavaPackage('calc', {}, { jar: 'other.jar' })
  await assert.rejects(withHost.deploy(missing), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: 'other.jar, the jar named in microservice.json, is not in the package'
  })
})
