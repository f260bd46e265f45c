// Java packages through the platform, with the real Java host (dist/java, scripts/ensure-java-host.sh):
// a package compiled here is packed, uploaded and called; uploads the host cannot load are refused
// with its reason (no jar, a class the context names that is not there, a bean whose constructor
// throws) while what runs keeps running; an instance whose heap runs out comes back with a larger one;
// `microservice dev` redeploys a rebuilt jar, and `microservice host` runs one on its own until SIGTERM.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, CLI, type DeployPlatform } from '../../helpers/processes/deploy'
import { freePort } from '../../helpers/nginx'
import { post, problem, until } from '../../helpers/platform'
import { compileJar, javaPackage, javaPackageVariant, springContext } from '../../helpers/java/java-package'
import { zipDirectory, zipEntryNames } from '../../../src/platform/package/zip'
import type { InstanceStatus } from '../../../src/platform/manager'

const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
const work = mkdtempSync(join(tmpdir(), 'java-packages-'))

const SOURCES = {
  'calc/Calculator.java': `package calc;
public class Calculator {
  public Integer multiply(Integer a, Integer b) { return a * b; }
}
`,
  'calc/Memory.java': `package calc;
import java.util.ArrayList;
import java.util.List;
public class Memory {
  private final List<byte[]> held = new ArrayList<>();
  public Long heapLimitMb() { return Runtime.getRuntime().maxMemory() / (1024 * 1024); }
  public Integer leak() { while (true) held.add(new byte[1 << 20]); }
}
`,
  'calc/Orders.java': `package calc;
public class Orders {
  public Integer total(Integer a) { return a; }
  public Integer total(Integer a, Integer b) { return a + b; }
}
`,
  'calc/Exploding.java': `package calc;
public class Exploding {
  public Exploding() { throw new IllegalStateException("no database at jdbc:calc://nowhere"); }
  public Integer ping() { return 1; }
}
`
}

const RESOURCES = {
  'META-INF/calc.xml': springContext({ calculator: 'calc.Calculator', memory: 'calc.Memory' }),
  'META-INF/missing-class.xml': springContext({ calculator: 'calc.Missing' }),
  'META-INF/exploding.xml': springContext({ exploding: 'calc.Exploding' }),
  'META-INF/overloaded.xml': springContext({ orders: 'calc.Orders' })
}

/** The package zipped for upload, as `microservice pack` would (without its description). */
async function zipped(dir: string, name: string): Promise<string> {
  const zip = join(mkdtempSync(join(work, 'zip-')), `${name}.zip`)
  await zipDirectory(dir, 'calc', zip)
  return zip
}

describe('java packages', () => {
  let d: DeployPlatform
  let calc: string
  before(async () => {
    calc = javaPackage('calc', {
      sources: SOURCES,
      resources: RESOURCES,
      // A small heap, so that the leak runs out soon; one restart for it, so the test ends soon.
      config: { applicationContext: 'META-INF/calc.xml', memory: { maxOldSpaceMb: 48, restarts: 1 } }
    })
    d = await startDeployPlatform()
  })
  after(() => d.stop())

  test('packed with its description, uploaded and called', async () => {
    const zip = join(work, 'calc-1.0.0.zip')
    const packed = await cli(d.configFile, 'pack', calc, zip)
    assert.equal(packed.code, 0, packed.stderr)
    assert.match(packed.stdout, /^packed calc 1\.0\.0 \(\d+ files, \d+ documented ROA methods?\) into /)
    // What the build left to decide whether to build again is not part of the package.
    assert.deepEqual(
      (await zipEntryNames(zip)).filter((n) => n.includes('sha256')),
      []
    )
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.code, 0, up.stderr)
    assert.equal(up.stdout.trim(), 'deployed calc 1.0.0')
    const r = await post(d.url, '/calc/calculator/multiply', '[6,7]', RMC)
    assert.deepEqual([r.status, r.text], [200, '42'])
    const status = (await cli(d.configFile, 'status', 'calc')).stdout
    assert.match(status, /calc@1\.0\.0#\d+\.0: running, pid \d+, heap 48 MB, 0 restarts/)
    // Spring's java.util.logging records, one line each with their level first (the platform logs
    // them at that level), not JUL's default two lines whose first has no level.
    const logs = (await cli(d.configFile, 'logs', 'calc', '50')).stdout
    assert.match(logs, /\] INFO: /)
    assert.doesNotMatch(logs, /\] [A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d\d:\d\d [AP]M /)
  })

  test('refused with the reason: no jar, no context, a class the context names that is not there, a bean that throws, an overloaded method', async () => {
    const noJar = javaPackageVariant(calc, () => {})
    rmSync(join(noJar, 'calc.jar'))
    /** The package with another version and Spring context (each a context file of the fixture's jar, or none). */
    const withContext = (version: string, context: string): string =>
      javaPackageVariant(calc, (c) => {
        c.version = version
        c.applicationContext = `META-INF/${context}`
      })
    const missingClass = withContext('1.0.1', 'missing-class.xml')
    const exploding = withContext('1.0.2', 'exploding.xml')
    const noContext = withContext('1.0.3', 'nowhere.xml')
    const overloaded = withContext('1.0.4', 'overloaded.xml')
    const cases: Array<[string, string, RegExp]> = [
      [noJar, 'no-jar', /^refused no-jar\.zip: calc\.jar, the jar named in microservice\.json, is not in the package$/],
      [
        noContext,
        'no-context',
        /^refused no-context\.zip: calc 1\.0\.3 cannot be loaded: applicationContext 'META-INF\/nowhere\.xml' is not in calc\.jar$/
      ],
      [
        overloaded,
        'overloaded',
        /^refused overloaded\.zip: calc 1\.0\.4 cannot be loaded: service 'orders' \(calc\.Orders\) has two methods named 'total': method names must not be overloaded/
      ],
      [missingClass, 'missing-class', /^refused missing-class\.zip: calc 1\.0\.1 cannot be loaded: .*calc\.Missing/],
      [
        exploding,
        'exploding',
        /^refused exploding\.zip: calc 1\.0\.2 cannot be loaded: .*no database at jdbc:calc:\/\/nowhere/
      ]
    ]
    for (const [dir, name, why] of cases) {
      const r = await d.platform.deployer.deployZip(await zipped(dir, name))
      assert.equal(r.ok, false, name)
      assert.match(r.message, why)
    }
    // What ran before keeps running, untouched.
    const r = await post(d.url, '/calc/calculator/multiply', '[2,3]', RMC)
    assert.deepEqual([r.status, r.text], [200, '6'])
    assert.equal(d.platform.manager.get('calc')!.config.version, '1.0.0')
  })

  test('a heap that runs out: the instance comes back with a larger heap, status says so', async () => {
    const status = (): InstanceStatus => d.platform.manager.get('calc')!.instances[0]!.status()
    const instance = (): string => status().state
    const before = Number((await post(d.url, '/calc/memory/heapLimitMb', '[]', RMC)).text)
    assert.equal(problem(await post(d.url, '/calc/memory/leak', '[]', RMC)).code, 'BACKEND_CONNECTION_LOST')
    // The call is lost before the JVM's exit is read: until then the dying instance still says running
    // (CI, stop 69). The memory restart counted is what says the new one is the one running.
    await until(
      () =>
        status().memoryRestarts === 1 &&
        instance() === 'running' &&
        d.platform.directory.get('calc')!.unavailableReason() === null,
      30000,
      'the restart'
    )
    const printed = (await cli(d.configFile, 'status', 'calc')).stdout
    // 48 MB grown by growthPercent: 56 MB.
    assert.match(printed, /calc@1\.0\.0#\d+\.0: running, pid \d+, heap 56 MB, 1 restarts \(1 for memory\)/)
    const afterMb = Number((await post(d.url, '/calc/memory/heapLimitMb', '[]', RMC)).text)
    assert.ok(afterMb > before, `the JVM's heap limit grew: ${before} MB, then ${afterMb} MB`)
    const dumps = join(d.dir, 'deployments', 'snapshots', 'calc')
    assert.ok(existsSync(dumps) && readdirSync(dumps).some((f) => f.endsWith('.hprof')), 'a heap dump was written')
    // The second time is past `restarts`: it stays down and says why.
    await post(d.url, '/calc/memory/leak', '[]', RMC)
    await until(() => instance() === 'failed', 30000, 'the final stop')
    assert.match(
      (await cli(d.configFile, 'status', 'calc')).stdout,
      /failed, heap 56 MB, 1 restarts \(1 for memory\) - stopped after 1 memory-error restarts; the heap limit was 56 MB/
    )
  })

  test('microservice dev: deployed, and again when the jar is rebuilt', async () => {
    const greeter = (greeting: string): Record<string, string> => ({
      'dev/Greetings.java': `package dev;
public class Greetings {
  public String greet(String name) { return "${greeting}, " + name; }
}
`
    })
    const resources = { 'META-INF/greeter.xml': springContext({ greetings: 'dev.Greetings' }) }
    const config = { applicationContext: 'META-INF/greeter.xml', memory: { maxOldSpaceMb: 64 } }
    const dir = javaPackage('greeter', { sources: greeter('Hello'), resources, config })
    const child = spawn(process.execPath, [CLI, 'dev', dir], {
      env: { ...process.env, PLATFORM_CONFIG: d.configFile },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr.on('data', (b: Buffer) => (out += b.toString()))
    const greet = async (): Promise<string> => (await post(d.url, '/greeter/greetings/greet', '["Ada"]', RMC)).text
    const deployed = (): number => out.match(/ deployed greeter 1\.0\.0\n/g)?.length ?? 0
    try {
      await until(() => deployed() === 1, 60000, `the first deploy: ${out}`)
      assert.equal(await greet(), '"Hello, Ada"')
      // Rebuilt as a build tool would: written aside, then moved into place.
      const jar = join(mkdtempSync(join(work, 'jar-')), 'greeter.jar')
      compileJar({ sources: greeter('Hi'), resources, config }, jar)
      renameSync(jar, join(dir, 'greeter.jar'))
      await until(() => deployed() === 2, 60000, `the deploy after the rebuild: ${out}`)
      assert.equal(await greet(), '"Hi, Ada"')
      child.kill('SIGINT')
      assert.equal(await new Promise((r) => child.once('exit', r)), 0)
    } finally {
      child.kill('SIGKILL')
    }
  })

  test('microservice host: the Java host on its own, drained and stopped by SIGTERM', async () => {
    const port = await freePort()
    const child = spawn(
      process.execPath,
      [CLI, 'host', calc, '--listen', `tcp:127.0.0.1:${port}`, '--drain-ms', '200'],
      {
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr.on('data', (b: Buffer) => (out += b.toString()))
    try {
      await until(() => out.includes('listening on'), 30000, `the listening line: ${out}`)
      assert.match(
        out,
        new RegExp(
          `^microservice calc 1\\.0\\.0 listening on 127\\.0\\.0\\.1:${port} \\(pid \\d+, heap limit \\d+ MB\\)$`,
          'm'
        )
      )
      child.kill('SIGTERM')
      assert.equal(await new Promise((r) => child.once('exit', r)), 0, out)
      assert.match(out, /microservice calc stopping: .* draining for up to 200 ms/)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
