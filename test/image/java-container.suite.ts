// The image for Java microservices (npm run image -- --java: Debian's JRE, the Java host and its jars),
// run with podman as an operator would: not part of `npm test`; `npm run test:image` builds it and runs
// this file against it (IGW_JAVA_IMAGE names the image). The Java example is built on this machine as a
// team's build would (scripts/build-java-package.sh), zipped and copied into the mounted upload
// directory, and called over real sockets in all four sequences.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chownSync, mkdtempSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { zipDirectory } from '../../src/platform/package/zip'
import { PODMAN, podman, startPlatformContainer } from '../helpers/processes/container'
import { until } from '../helpers/until'
import { builtPackage } from '../helpers/java/java-package'
import { ROOT } from '../helpers/root'

const run = promisify(execFile)
const IMAGE = process.env.IGW_JAVA_IMAGE ?? 'localhost/invocation-gateway:java'

async function post(base: string, path: string, body: string, headers: Record<string, string>) {
  const r = await fetch(base + path, { method: 'POST', headers, body })
  return { status: r.status, text: await r.text() }
}

describe(`the image ${IMAGE} with a Java microservice`, () => {
  const name = `igw-java-image-test-${process.pid}`
  let base = ''
  let upload = ''

  before(async () => {
    ;({ base, upload } = await startPlatformContainer(name, IMAGE))
  })

  after(async () => {
    await podman('rm', '-f', '-v', name).catch(() => '')
  })

  test("the image's JRE is Debian's OpenJDK 21, and the Java host's class path names the image's files", async () => {
    const { stderr } = await run(PODMAN, ['exec', name, 'java', '-version'])
    assert.match(stderr, /^openjdk version "21\./m)
    const classPath = (await podman('exec', name, 'cat', '/app/dist/java/classpath')).trim()
    assert.match(classPath, /^\/app\/dist\/java\/lib\/spring3-context\.jar:/)
    for (const entry of classPath.split(':')) await podman('exec', name, 'test', '-e', entry)
  })

  test('the Java example, uploaded into the mounted directory, answers in all four sequences', async () => {
    const dir = builtPackage(
      join(ROOT, 'examples', 'java-example'),
      join(mkdtempSync(join(tmpdir(), 'jx-')), 'java-example')
    )
    const zip = join(upload, '.java-example.zip.part')
    await zipDirectory(dir, 'java-example', zip)
    chownSync(zip, 1000, 1000)
    renameSync(zip, join(upload, 'java-example.zip'))
    const multiply = (): Promise<{ status: number; text: string }> =>
      post(base, '/java-example/calculator/multiply', '{"a":6,"b":7}', { 'Content-Type': 'application/json' })
    await until(async () => (await multiply()).status === 200, 60_000, 'java-example answers')
    assert.equal((await multiply()).text, '{"result":42}')
    const cases: Array<[string, string, string, string]> = [
      [
        'alphaParamArrayXmlInOutSequence',
        'application/xml',
        '<in><a>6</a><b>7</b></in>',
        '<out>\n  <result>42</result>\n</out>'
      ],
      ['alphaParamArrayJsonInOutSequence', 'application/json', '{"in":{"a":6,"b":7}}', '{"out":{"result":42}}'],
      [
        'betaParamArrayXmlInOutSequence',
        'application/xml',
        '<In><a>6</a><b>7</b></In>',
        '<Out><result>42</result></Out>'
      ]
    ]
    for (const [sequence, ct, body, expected] of cases) {
      const r = await post(base, '/java-example/calculator/multiply', body, {
        'Content-Type': ct,
        'X-PLATFORM-Sequence-Name': sequence
      })
      assert.deepEqual([r.status, r.text], [200, expected], sequence)
    }
    assert.match(await podman('exec', name, 'microservice', 'list'), /java-example 1\.0\.0: available/)
  })
})
