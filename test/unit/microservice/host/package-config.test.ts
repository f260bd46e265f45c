// microservice.json's runtime keys: a node package names its entry module, a java one its jar and its
// Spring context; each mistake is refused with the key and the problem, as every other key's is.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import {
  codeFile,
  codeFileNamed,
  readMicroserviceConfig,
  type MicroserviceConfig
} from '../../../../src/microservice/host/package-config'

const dir = mkdtempSync(join(tmpdir(), 'package-config-'))

function read(config: Record<string, unknown>): MicroserviceConfig {
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify({ name: 'calc', version: '1.0.0', ...config }))
  return readMicroserviceConfig(dir)
}

const JAVA = { runtime: 'java', jar: 'calculator.jar', applicationContext: 'META-INF/calculator.xml' }

test('a package without a runtime is a node one, with its entry module', () => {
  const c = read({ entry: 'index.js' })
  assert.equal(c.runtime, 'node')
  assert.equal(c.runtime === 'node' && c.entry, 'index.js')
  assert.equal(codeFile(c), 'index.js')
  assert.equal(codeFileNamed(c), 'index.js, the entry module named in microservice.json')
  assert.equal(read({ runtime: 'node', entry: 'lib/index.js' }).runtime, 'node')
})

test('a java package: its jar, and its context as an XML resource or a class name', () => {
  const c = read({ ...JAVA, memory: { maxOldSpaceMb: 256 } })
  assert.deepEqual(c.runtime === 'java' && [c.jar, c.applicationContext, c.memory.maxOldSpaceMb], [
    'calculator.jar',
    'META-INF/calculator.xml',
    256
  ])
  assert.equal(codeFile(c), 'calculator.jar')
  assert.equal(codeFileNamed(c), 'calculator.jar, the jar named in microservice.json')
  for (const context of [
    'calculator.xml',
    'META-INF/spring/app-context.xml',
    'com.acme.CalculatorConfig',
    'Config$Inner'
  ])
    assert.equal(read({ ...JAVA, applicationContext: context }).runtime, 'java', context)
  for (const jar of ['calc-1.0.0.jar', 'calc_2+build.jar']) assert.equal(read({ ...JAVA, jar }).runtime, 'java', jar)
  // Everything else is read as for a node package.
  const full = read({ ...JAVA, type: 'servletApp', instances: 2, aliases: { 'com.acme.In': 'in' } })
  assert.deepEqual([full.type, full.instances, full.aliases], ['servletApp', 2, { 'com.acme.In': 'in' }])
})

test('each mistake in the runtime keys is refused with the key and the problem', () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ runtime: 'jvm', entry: 'index.js' }, /: runtime: must be one of "node", "java"$/],
    [{ runtime: 1, entry: 'index.js' }, /: runtime: must be one of "node", "java"$/],
    [{ runtime: 'node' }, /: entry: must be a relative path inside the directory$/],
    [{}, /: entry: must be a relative path inside the directory$/],
    [
      { entry: 'index.js', jar: 'calc.jar' },
      /: jar: only a "runtime": "java" package has one; a node package names its entry$/
    ],
    [
      { entry: 'index.js', applicationContext: 'META-INF/calc.xml' },
      /: applicationContext: only a "runtime": "java" package has one/
    ],
    [
      { ...JAVA, entry: 'index.js' },
      /: entry: a "runtime": "java" package has no entry module: the Java host loads its jar and builds its applicationContext$/
    ],
    [{ ...JAVA, jar: undefined }, /: jar: must be the file name of the package's jar, in the directory itself/],
    [{ ...JAVA, jar: 'lib/calc.jar' }, /: jar: must be the file name/],
    [{ ...JAVA, jar: '../calc.jar' }, /: jar: must be the file name/],
    [{ ...JAVA, jar: '.calc.jar' }, /: jar: must be the file name/],
    [{ ...JAVA, jar: 'calc.zip' }, /: jar: must be the file name/],
    [{ ...JAVA, jar: 'calc.jar/' }, /: jar: must be the file name/],
    [
      { ...JAVA, applicationContext: undefined },
      /: applicationContext: must be a Spring XML resource inside the jar \(META-INF\/calculator\.xml\) or the name of a @Component class with @Bean methods/
    ],
    [{ ...JAVA, applicationContext: '/META-INF/calc.xml' }, /: applicationContext: must be a Spring XML resource/],
    [{ ...JAVA, applicationContext: 'classpath:calc.xml' }, /: applicationContext: must be a Spring XML resource/],
    [{ ...JAVA, applicationContext: 'META-INF/../calc.xml' }, /: applicationContext: must be a Spring XML resource/],
    [{ ...JAVA, applicationContext: 'com.acme.' }, /: applicationContext: must be a Spring XML resource/],
    [{ ...JAVA, applicationContext: 'com acme' }, /: applicationContext: must be a Spring XML resource/],
    [
      { ...JAVA, applicationContext: 'META-INF/calc.properties' },
      /: applicationContext: must be a Spring XML resource/
    ],
    ...['workerMinArgumentBytes', 'maxDepth', 'maxNodes', 'maxStringLength'].map(
      (key): [Record<string, unknown>, RegExp] => [
        { ...JAVA, settings: { [key]: 1 } },
        new RegExp(`: settings\\.${key}: a setting of the Node host's serializers and method pool`)
      ]
    )
  ]
  for (const [config, why] of cases)
    assert.throws(() => read(config), { code: 'IGW_MICROSERVICE_CONFIG', message: why })
})

test('the runtime keys are known keys; an unknown one still lists them', () => {
  assert.throws(
    () => read({ ...JAVA, classpath: 'lib' }),
    /: classpath: unknown key \(known: .*runtime, entry, jar, applicationContext/
  )
})
