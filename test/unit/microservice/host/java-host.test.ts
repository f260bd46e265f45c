// The platform's side of the Java host: its class path file, the command lines and environment that
// run it, the listening line it prints, and its short runs (`--check`) answered by a stand-in JVM.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import {
  JAVA_HOST_MISSING,
  JAVA_MAIN_CLASS,
  cgroupMemoryLimit,
  checkJavaPackage,
  heapWithin,
  isListenTarget,
  javaClassPath,
  javaExecutable,
  javaHostEnv,
  javaInstanceArgs,
  javaToolArgs,
  parseListeningLine,
  requireJavaClassPath,
  runJavaTool
} from '../../../../src/microservice/host/java-host'
import { JUL_ONE_LINE, stderrLineLevel } from '../../../../src/microservice/host/jul-levels'
import { fakeJavaHome, fakeJavaPackage, fakeJavaRuns } from '../../../helpers/java/fake-java'

const work = mkdtempSync(join(tmpdir(), 'java-host-'))
process.env.JAVA_HOME = fakeJavaHome()

test('the class path file: one line, trimmed; none, or an empty one, is a platform without a Java host', () => {
  const file = join(work, 'classpath')
  assert.equal(javaClassPath(file), null)
  assert.throws(() => requireJavaClassPath(file), { code: 'IGW_JAVA_HOST', message: JAVA_HOST_MISSING })
  assert.match(JAVA_HOST_MISSING, /build it with `bash scripts\/ensure-java-host\.sh`/)
  writeFileSync(file, '\n')
  assert.equal(javaClassPath(file), null)
  writeFileSync(file, '/opt/host/classes:/usr/share/java/spring3-context.jar\n')
  assert.equal(requireJavaClassPath(file), '/opt/host/classes:/usr/share/java/spring3-context.jar')
})

test("an instance's JVM: the heap, exit on a heap that ran out, the heap dump when wanted, then the host", () => {
  assert.deepEqual(javaInstanceArgs({ classPath: 'cp', dir: '/d/calc', heapMb: 256, heapDumpDir: '/snap/calc' }), [
    '-Xmx256m',
    '-XX:+ExitOnOutOfMemoryError',
    JUL_ONE_LINE,
    '-XX:+HeapDumpOnOutOfMemoryError',
    '-XX:HeapDumpPath=/snap/calc',
    '-cp',
    'cp',
    'platform.host.Host',
    '/d/calc'
  ])
  assert.deepEqual(javaInstanceArgs({ classPath: 'cp', dir: '/d/calc', heapMb: 295, heapDumpDir: null }), [
    '-Xmx295m',
    '-XX:+ExitOnOutOfMemoryError',
    JUL_ONE_LINE,
    '-cp',
    'cp',
    JAVA_MAIN_CLASS,
    '/d/calc'
  ])
  assert.deepEqual(javaToolArgs('cp', 64, ['--check', '/d/calc']), [
    '-Xmx64m',
    '-XX:TieredStopAtLevel=1',
    '-cp',
    'cp',
    JAVA_MAIN_CLASS,
    '--check',
    '/d/calc'
  ])
})

test('the launcher is JAVA_HOME/bin/java when JAVA_HOME is set, else java from PATH', () => {
  assert.equal(
    javaExecutable({ JAVA_HOME: '/usr/lib/jvm/java-17-openjdk-amd64' }),
    '/usr/lib/jvm/java-17-openjdk-amd64/bin/java'
  )
  assert.equal(javaExecutable({ JAVA_HOME: '' }), 'java')
  assert.equal(javaExecutable({}), 'java')
})

test("the host's environment: what it is told, and nothing inherited that it was not", () => {
  const base = {
    PATH: '/bin',
    MICROSERVICE_MANAGED: '1',
    MICROSERVICE_DRAIN_MS: '5',
    MICROSERVICE_SECRET: 'old',
    MICROSERVICE_LIFELINE: 'stdin'
  }
  assert.deepEqual(javaHostEnv({ listen: 'unix:/s/1.sock', secret: '', managed: true }, base), {
    PATH: '/bin',
    MICROSERVICE_LISTEN: 'unix:/s/1.sock',
    MICROSERVICE_SECRET: '',
    MICROSERVICE_MANAGED: '1'
  })
  assert.deepEqual(
    javaHostEnv({ listen: 'tcp:0.0.0.0:7000', secret: 's3cret', drainMs: '20000', managed: false }, base),
    {
      PATH: '/bin',
      MICROSERVICE_LISTEN: 'tcp:0.0.0.0:7000',
      MICROSERVICE_SECRET: 's3cret',
      MICROSERVICE_DRAIN_MS: '20000'
    }
  )
  assert.deepEqual(javaHostEnv({ listen: 'tcp:0.0.0.0:7000', secret: '', managed: false, lifeline: true }, base), {
    PATH: '/bin',
    MICROSERVICE_LISTEN: 'tcp:0.0.0.0:7000',
    MICROSERVICE_SECRET: '',
    MICROSERVICE_LIFELINE: 'stdin'
  })
})

test("the listening line: the Java host's and the Node host's; anything else is not one", () => {
  assert.deepEqual(
    parseListeningLine('microservice calc 1.0.0 listening on unix:/tmp/igw-x/1.sock (pid 4242, heap limit 256 MB)'),
    { name: 'calc', version: '1.0.0', endpoint: { path: '/tmp/igw-x/1.sock' }, pid: 4242 }
  )
  assert.deepEqual(
    parseListeningLine('microservice calc 2.0.0-rc.1 listening on 127.0.0.1:40123 (pid 7, heap limit 1024 MB)'),
    { name: 'calc', version: '2.0.0-rc.1', endpoint: { host: '127.0.0.1', port: 40123 }, pid: 7 }
  )
  assert.deepEqual(
    parseListeningLine('microservice example 1.0.0 listening on [::1]:7000 (pid 9, old-space limit 1024 MB)')?.endpoint,
    { host: '::1', port: 7000 }
  )
  for (const line of [
    '',
    'microservice calc 1.0.0 listening on nowhere (pid 1, heap limit 1 MB)',
    'microservice calc 1.0.0 listening on 127.0.0.1:99999 (pid 1, heap limit 1 MB)',
    'INFO: microservice calc 1.0.0 listening on 127.0.0.1:1 (pid 1, heap limit 1 MB)',
    'microservice calc 1.0.0 stopping: its gateways are told to send no more calls'
  ])
    assert.equal(parseListeningLine(line), null, line)
})

test('a listening line counts only where the instance was told to listen', () => {
  assert.ok(isListenTarget({ path: '/s/1.sock' }, { path: '/s/1.sock' }))
  assert.ok(!isListenTarget({ path: '/s/1.sock' }, { path: '/s/2.sock' }))
  assert.ok(!isListenTarget({ path: '/s/1.sock' }, { host: '127.0.0.1', port: 1 }))
  assert.ok(isListenTarget({ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port: 40123 }))
  assert.ok(isListenTarget({ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7000 }))
  assert.ok(!isListenTarget({ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7001 }))
  assert.ok(!isListenTarget({ host: '127.0.0.1', port: 0 }, { host: '10.0.0.1', port: 7000 }))
  assert.ok(!isListenTarget({ host: '127.0.0.1', port: 0 }, { path: '/s/1.sock' }))
})

test('--check: the JSON line it prints, or the reason it gives, or how long it took', async () => {
  const ok = fakeJavaPackage('calc')
  assert.deepEqual(await checkJavaPackage('cp', ok, 128, 30000), { name: 'calc', version: '1.0.0', services: [] })
  const run = fakeJavaRuns(ok)[0]!
  assert.deepEqual(run.args, ['-Xmx128m', '-XX:TieredStopAtLevel=1', '-cp', 'cp', JAVA_MAIN_CLASS, '--check', ok])
  const refused = fakeJavaPackage('calc', { check: 'bean calculator: constructor threw IllegalStateException: no' })
  await assert.rejects(checkJavaPackage('cp', refused, 128, 30000), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: 'bean calculator: constructor threw IllegalStateException: no'
  })
  const hangs = fakeJavaPackage('calc', { checkHangs: true })
  await assert.rejects(checkJavaPackage('cp', hangs, 128, 500), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: "the Java host's --check did not finish within 500 ms"
  })
})

test('no java to run: said as such, with where to get one', async () => {
  const env = { ...process.env, JAVA_HOME: mkdtempSync(join(tmpdir(), 'no-java-')) }
  await assert.rejects(runJavaTool('cp', 64, ['--check', work], 30000, env), {
    code: 'IGW_MICROSERVICE_LOAD',
    message:
      /\/bin\/java is not installed: the Java host needs a JDK \(bash scripts\/ensure-java-host\.sh installs one\)$/
  })
})

test("a JVM's heap under a memory limit: the package's, or three quarters of the limit when that is less", () => {
  assert.equal(heapWithin(1024, null), 1024)
  assert.equal(heapWithin(512, 2 ** 30), 512)
  assert.equal(heapWithin(1024, 2 ** 30), 768)
  const v2 = mkdtempSync(join(tmpdir(), 'cgroup-'))
  writeFileSync(join(v2, 'memory.max'), 'max\n')
  assert.equal(cgroupMemoryLimit(v2), null)
  writeFileSync(join(v2, 'memory.max'), '1073741824\n')
  assert.equal(cgroupMemoryLimit(v2), 2 ** 30)
  const v1 = mkdtempSync(join(tmpdir(), 'cgroup-'))
  mkdirSync(join(v1, 'memory'))
  writeFileSync(join(v1, 'memory', 'memory.limit_in_bytes'), '9223372036854771712\n')
  assert.equal(cgroupMemoryLimit(v1), null)
  assert.equal(cgroupMemoryLimit(mkdtempSync(join(tmpdir(), 'cgroup-'))), null)
})

test("a Java instance's stderr line is logged at its java.util.logging record's level; any other at warn", () => {
  assert.equal(
    stderrLineLevel('INFO: Refreshing org.springframework.context.support.GenericXmlApplicationContext'),
    'info'
  )
  assert.equal(stderrLineLevel('WARNING: Exception encountered during context initialization'), 'warn')
  assert.equal(stderrLineLevel('SEVERE: a bean failed'), 'error')
  assert.equal(stderrLineLevel('FINE: detail'), 'debug')
  assert.equal(stderrLineLevel('Error: Cannot find module'), 'warn')
  assert.equal(stderrLineLevel('    at Object.<anonymous> (INFO: not at the start)'), 'warn')
})
