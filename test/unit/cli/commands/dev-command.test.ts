// `microservice dev` redeploys on a change of what is packed and run: for a java package the jar,
// lib/ and the config, not the sources and classes a build writes beside them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { watchedFiles } from '../../../../src/cli/commands/dev-command'
import type { MicroserviceConfig } from '../../../../src/microservice/host/package-config'

const common = {
  name: 'calc',
  version: '1.0.0',
  type: 'nativeApp',
  settings: {},
  permissions: { privilegedNames: [] },
  instances: 1,
  memory: {},
  availability: { responseTimeMs: 20000 },
  platformRegularExpressionToRemotelyEnabled: null,
  aliases: {}
}
const node = { ...common, runtime: 'node', entry: 'index.js' } as unknown as MicroserviceConfig
const java = {
  ...common,
  runtime: 'java',
  jar: 'calc.jar',
  applicationContext: 'META-INF/calc.xml'
} as unknown as MicroserviceConfig

test('a node package: every change but node_modules/ and .git/', () => {
  const watched = watchedFiles(node)
  for (const f of ['index.js', 'lib/helper.js', 'microservice.json', 'node_modulesx.js'])
    assert.equal(watched(f), true, f)
  for (const f of ['node_modules', 'node_modules/x/index.js', '.git/HEAD']) assert.equal(watched(f), false, f)
})

test('a java package: its jar, lib/ and microservice.json only', () => {
  const watched = watchedFiles(java)
  for (const f of ['calc.jar', 'lib', 'lib/commons-lang3.jar', 'microservice.json']) assert.equal(watched(f), true, f)
  for (const f of [
    'src/com/acme/Calc.java',
    'classes/com/acme/Calc.class',
    'other.jar',
    'library/x.jar',
    'openapi.json'
  ])
    assert.equal(watched(f), false, f)
})
