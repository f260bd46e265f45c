// An upload of a java package: refused before anything is deployed when its jar is missing, when the
// platform has no Java host (saying how to get one), or when the Java host's --check cannot load it
// (with the host's reason); deployed when the check passes. A stand-in JVM answers (helpers/java/fake-java.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Deployer } from '../../../../src/platform/package/deployer'
import { zipDirectory } from '../../../../src/platform/package/zip'
import type { MicroserviceManager } from '../../../../src/platform/manager'
import type { MicroserviceConfig } from '../../../../src/microservice/host/package-config'
import { JAVA_HOST_MISSING } from '../../../../src/microservice/host/java-host'
import {
  fakeClassPathFile,
  fakeJavaHome,
  fakeJavaPackage,
  fakeJavaRuns,
  type FakeJavaScript
} from '../../../helpers/java/fake-java'

process.env.JAVA_HOME = fakeJavaHome()

/** A deployer whose manager only records what it was asked to deploy. */
function deployerWith(javaClassPathFile = fakeClassPathFile()): {
  deployer: Deployer
  deployed: Array<{ dir: string; config: MicroserviceConfig }>
} {
  const root = mkdtempSync(join(tmpdir(), 'deployer-'))
  const deployed: Array<{ dir: string; config: MicroserviceConfig }> = []
  const manager = {
    options: { javaClassPathFile },
    deploy: (dir: string, config: MicroserviceConfig) => {
      deployed.push({ dir, config })
      return Promise.resolve()
    }
  } as unknown as MicroserviceManager
  const deployer = new Deployer(
    manager,
    {
      uploadDirectory: join(root, 'upload'),
      deploymentDirectory: join(root, 'deployments'),
      unpack: { maxEntries: 100, maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 22 },
      javaCheckTimeoutMs: 10000
    },
    () => {}
  )
  return { deployer, deployed }
}

async function zipOf(
  script: FakeJavaScript,
  config: Record<string, unknown> = {}
): Promise<{ zip: string; dir: string }> {
  const dir = fakeJavaPackage('calc', script, config)
  const zip = join(dir, '..', 'calc.zip')
  await zipDirectory(dir, 'calc', zip)
  return { zip, dir }
}

test('a java package the Java host loads is deployed', async () => {
  const { deployer, deployed } = deployerWith()
  const { zip } = await zipOf({})
  const r = await deployer.deployZip(zip)
  assert.deepEqual([r.ok, r.message], [true, 'deployed calc 1.0.0'])
  assert.equal(deployed.length, 1)
  assert.equal(deployed[0]!.config.runtime, 'java')
  // Checked where it was unpacked, before it was moved into place.
  const [check] = fakeJavaRuns(deployed[0]!.dir)
  assert.deepEqual(check!.args.slice(-2)[0], '--check')
})

test("a package the Java host cannot load is refused with the host's reason, nothing deployed", async () => {
  const { deployer, deployed } = deployerWith()
  const { zip } = await zipOf({ check: 'bean calculator from {dir}/calc.jar: constructor threw: boom' })
  const r = await deployer.deployZip(zip)
  assert.equal(r.ok, false)
  assert.equal(
    r.message,
    'refused calc.zip: calc 1.0.0 cannot be loaded: bean calculator from calc/calc.jar: constructor threw: boom'
  )
  assert.deepEqual(deployed, [])
  assert.equal(existsSync(join(deployer.options.deploymentDirectory, 'calc')), false)
})

test('a package without the jar it names is refused before the Java host runs', async () => {
  const { deployer, deployed } = deployerWith()
  const { zip } = await zipOf({}, { jar: 'other.jar' })
  const r = await deployer.deployZip(zip)
  // The jar check's own sentence: the Java host's --check, had it run, would have said something else.
  assert.equal(r.message, 'refused calc.zip: other.jar, the jar named in microservice.json, is not in the package')
  assert.deepEqual(deployed, [])
})

test('a platform without a Java host refuses a java package and says how to get one', async () => {
  const missing = join(mkdtempSync(join(tmpdir(), 'no-host-')), 'classpath')
  const { deployer, deployed } = deployerWith(missing)
  const { zip } = await zipOf({})
  const r = await deployer.deployZip(zip)
  assert.equal(r.message, `refused calc.zip: ${JAVA_HOST_MISSING}`)
  assert.match(r.message, /bash scripts\/ensure-java-host\.sh/)
  assert.deepEqual(deployed, [])
  rmSync(zip)
})

test('a check that does not end is refused after the bound', async () => {
  const { deployer } = deployerWith()
  deployer.options.javaCheckTimeoutMs = 300
  const { zip } = await zipOf({ checkHangs: true })
  const r = await deployer.deployZip(zip)
  assert.equal(
    r.message,
    "refused calc.zip: calc 1.0.0 cannot be loaded: the Java host's --check did not finish within 300 ms"
  )
})
