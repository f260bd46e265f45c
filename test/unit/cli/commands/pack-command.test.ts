// `microservice pack` of a java package: its jar must be there, a platform without a Java host says how
// to get one, and the description comes from the Java host's --describe (a stand-in JVM answers).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { pack } from '../../../../src/cli/commands/pack-command'
import { unpackZip } from '../../../../src/platform/package/zip'
import { JAVA_HOST_MISSING } from '../../../../src/microservice/host/java-host'
import { readFileSync } from 'node:fs'
import { fakeClassPathFile, fakeJavaHome, fakeJavaPackage, fakeJavaRuns } from '../../../helpers/java/fake-java'

process.env.JAVA_HOME = fakeJavaHome()
const work = mkdtempSync(join(tmpdir(), 'pack-'))

test('a java package is packed with the description its host gives', async () => {
  const dir = fakeJavaPackage('calc')
  const zip = join(work, 'calc.zip')
  const said = await pack(dir, zip, fakeClassPathFile())
  assert.equal(said, `packed calc 1.0.0 (${/\((\d+) files/.exec(said)![1]} files, 1 documented ROA method) into ${zip}`)
  assert.equal(fakeJavaRuns(dir)[0]!.args.at(-4), '--describe')
  const top = await unpackZip(zip, join(work, 'unpacked'))
  const doc = JSON.parse(readFileSync(join(work, 'unpacked', top, 'openapi.json'), 'utf8')) as {
    info: { title: string }
  }
  assert.equal(doc.info.title, 'calc')
})

test('a java package without its jar, or without a Java host, is not packed', async () => {
  const dir = fakeJavaPackage('calc', {}, { jar: 'missing.jar' })
  await assert.rejects(pack(dir, join(work, 'x.zip'), fakeClassPathFile()), {
    code: 'IGW_PACKAGE',
    message: `missing.jar, the jar named in microservice.json, is not in ${dir}`
  })
  await assert.rejects(pack(fakeJavaPackage('calc'), join(work, 'y.zip'), join(work, 'no-classpath')), {
    code: 'IGW_JAVA_HOST',
    message: JAVA_HOST_MISSING
  })
})
