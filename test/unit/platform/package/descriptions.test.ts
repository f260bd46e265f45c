// A java package's API description comes from the Java host's --describe, with the gateway's defaults,
// and is made again only when the one in the package is older than its jar (a stand-in JVM answers).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { DESCRIPTION_FILE, ensureDescription, generateDescription } from '../../../../src/platform/package/descriptions'
import { readMicroserviceConfig } from '../../../../src/microservice/host/package-config'
import { fakeClassPathFile, fakeJavaHome, fakeJavaPackage, fakeJavaRuns } from '../../../helpers/java/fake-java'

process.env.JAVA_HOME = fakeJavaHome()
const javaClassPathFile = fakeClassPathFile()

test("--describe with the gateway's defaults, after the host's class path and the package's heap", async () => {
  const dir = fakeJavaPackage('calc', {}, { memory: { maxOldSpaceMb: 200 } })
  const text = await generateDescription(dir, {
    defaults: { sequence: 'alphaParamArrayXmlInOutSequence', apiId: 'RMC' },
    javaClassPathFile
  })
  const doc = JSON.parse(text) as { info: { title: string; 'x-platform-defaults': unknown } }
  assert.equal(doc.info.title, 'calc')
  assert.deepEqual(doc.info['x-platform-defaults'], { sequence: 'alphaParamArrayXmlInOutSequence', apiId: 'RMC' })
  const args = fakeJavaRuns(dir)[0]!.args
  assert.deepEqual(args.slice(0, 4), [
    '-Xmx200m',
    '-XX:TieredStopAtLevel=1',
    '-cp',
    '/nowhere/host.jar:/nowhere/spring3-context.jar'
  ])
  assert.deepEqual(args.slice(-5), ['platform.host.Host', '--describe', dir, 'alphaParamArrayXmlInOutSequence', 'RMC'])
})

test('ensureDescription: made once, made again when the jar is newer than it', async () => {
  const dir = fakeJavaPackage('calc')
  const config = readMicroserviceConfig(dir)
  await ensureDescription(dir, config, undefined, javaClassPathFile)
  await ensureDescription(dir, config, undefined, javaClassPathFile)
  assert.equal(fakeJavaRuns(dir).length, 1, 'current: not made again')
  assert.equal(
    (JSON.parse(readFileSync(join(dir, DESCRIPTION_FILE), 'utf8')) as { info: { version: string } }).info.version,
    '1.0.0'
  )
  const later = new Date(Date.now() + 60_000)
  utimesSync(join(dir, 'calc.jar'), later, later)
  await ensureDescription(dir, config, undefined, javaClassPathFile)
  assert.equal(fakeJavaRuns(dir).length, 2, 'a rebuilt jar: made again')
  // A platform rebuilt or upgraded since (its generator newer than the description) makes it again too.
  const earlier = new Date(Date.now() - 60_000)
  utimesSync(join(dir, 'calc.jar'), earlier, earlier)
  await ensureDescription(dir, config, undefined, javaClassPathFile)
  assert.equal(fakeJavaRuns(dir).length, 2, 'the jar older again: current')
  const generator = join(__dirname, '..', '..', '..', '..', 'src', 'microservice', 'host', 'openapi.js')
  const kept = statSync(generator)
  const newer = new Date(Date.now() + 120_000)
  try {
    utimesSync(generator, newer, newer)
    await ensureDescription(dir, config, undefined, javaClassPathFile)
    assert.equal(fakeJavaRuns(dir).length, 3, 'a newer generator: made again')
  } finally {
    utimesSync(generator, kept.atime, kept.mtime)
  }
})
