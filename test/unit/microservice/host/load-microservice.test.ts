// A microservice author's mistakes at load, reported with the place as `node --check` would give it
// (file:line:column relative to the package) and config mistakes by key, not as a stray TypeError.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { loadMicroservice } from '../../../../src/microservice/host/load-microservice'

function pkg(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'load-')), 'm')
  mkdirSync(join(dir, 'lib'), { recursive: true })
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify({ name: 'm', version: '1.0.0', entry: 'index.js' }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

test('a syntax error names the file, line and column', () => {
  const dir = pkg({ 'index.js': 'module.exports = {\n  services: [(\n}\n' })
  assert.throws(() => loadMicroservice(dir), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: /^index\.js:3:1: SyntaxError: Unexpected token '}'$/
  })
})

test('an error thrown while loading names the first place in the package, a required file included', () => {
  const dir = pkg({
    'index.js': "const helper = require('./lib/helper')\nmodule.exports = helper\n",
    'lib/helper.js': 'const settings = undefined\n\nmodule.exports = settings.services\n'
  })
  assert.throws(() => loadMicroservice(dir), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: /^lib\/helper\.js:3:27: TypeError: Cannot read properties of undefined \(reading 'services'\)$/
  })
})

test('a definition without platformRegularExpressionToRemotelyEnabled is named, with an example', () => {
  const dir = pkg({ 'index.js': "module.exports = { services: [{ name: 'greetings', methods: [] }] }\n" })
  assert.throws(() => loadMicroservice(dir), {
    code: 'IGW_MICROSERVICE_DEFINITION',
    message:
      /^index\.js: defineMicroservice\(\{ … \}\) has no platformRegularExpressionToRemotelyEnabled, .*e\.g\. platformRegularExpressionToRemotelyEnabled: \['greetings'\] \(or set it in microservice\.json\)$/
  })
  const exported = pkg({ 'index.js': 'module.exports = 42\n' })
  assert.throws(() => loadMicroservice(exported), {
    code: 'IGW_MICROSERVICE_DEFINITION',
    message: /^index\.js exports no microservice definition/
  })
})

test('a java package is not loaded by the Node host: it says which host runs it', () => {
  const dir = pkg({
    'microservice.json': JSON.stringify({
      name: 'm',
      version: '1.0.0',
      runtime: 'java',
      jar: 'm.jar',
      applicationContext: 'META-INF/m.xml'
    })
  })
  assert.throws(() => loadMicroservice(dir), {
    code: 'IGW_MICROSERVICE_LOAD',
    message: 'm is a "runtime": "java" package: the Java host runs m.jar, not the Node host'
  })
})
