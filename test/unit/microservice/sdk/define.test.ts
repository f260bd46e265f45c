import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { method, service, defineMicroservice } from '../../../../src/microservice/sdk/define'
import { t } from '../../../../src/microservice/descriptors/descriptors'
import { buildServiceIndex, compileRemotelyEnabled, toCatalog } from '../../../../src/microservice/host/service-index'
import { readMicroserviceConfig } from '../../../../src/microservice/host/package-config'

const m = (name: string) => method(name, { params: [t.String], returns: t.String, handler: (_c, s) => s })

test('two methods of one name in a service is a start-up error', () => {
  const def = defineMicroservice({
    services: [service('s', [m('a'), m('a')])],
    platformRegularExpressionToRemotelyEnabled: ['.*']
  })
  assert.throws(() => buildServiceIndex(def), /service 's' has two methods named 'a'/)
})

test('remotely enabled: regular expressions matched against the whole name', () => {
  const enabled = compileRemotelyEnabled(['calc.*', 'diagnostics'])
  assert.equal(enabled('calculator'), true)
  assert.equal(enabled('diagnostics'), true)
  assert.equal(enabled('diagnostics2'), false, 'whole-name match, not a prefix')
  assert.equal(enabled('mycalc'), false)
  assert.throws(() => compileRemotelyEnabled(['(']), /not a valid regular expression/)
})

test('the catalog lists only remotely enabled services', () => {
  const def = defineMicroservice({
    services: [service('open', [m('a')]), service('closed', [m('b')])],
    platformRegularExpressionToRemotelyEnabled: ['open']
  })
  const catalog = toCatalog('x', '1', buildServiceIndex(def), true)
  assert.deepEqual(
    catalog.services!.map((s) => s.name),
    ['open']
  )
  assert.deepEqual(catalog.services![0]!.methods![0], {
    name: 'a',
    parameterCount: 1,
    parameterTypes: ['String'],
    returnType: 'String',
    returnsVoid: false,
    needsPrivilege: false
  })
})

test('microservice config: defaults, and errors that name the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ms-'))
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify({ name: 'a', version: '1', entry: 'index.js' }))
  const c = readMicroserviceConfig(dir)
  assert.deepEqual(c.settings, {
    readTimeout: 480000,
    threadPoolSize: 128,
    threadExecutingTimeOut: 240000,
    backlog: 0,
    queueLimit: 10000,
    workerMinArgumentBytes: 0,
    maxFrameBytes: 17 * 1024 * 1024,
    maxDepth: 1000,
    maxNodes: 1_000_000,
    maxStringLength: 16 * 1024 * 1024,
    timeZone: 'UTC'
  })
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', settings: { threadPoolSize: 'x' } })
  )
  assert.throws(() => readMicroserviceConfig(dir), /settings\.threadPoolSize: must be a non-negative integer/)
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify({ name: '../a', version: '1', entry: 'index.js' }))
  assert.throws(() => readMicroserviceConfig(dir), /name: must be a name/)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', settings: { treadPoolSize: 1 } })
  )
  assert.throws(() => readMicroserviceConfig(dir), /settings\.treadPoolSize: unknown setting/)
  for (const [timeZone, why] of [
    ['Europe/Berln', /settings\.timeZone: 'Europe\/Berln' is not a time zone Java knows: use an ID of the tz database/],
    [1, /settings\.timeZone: must be a Java time-zone ID, such as Europe\/Berlin/]
  ] as const) {
    writeFileSync(
      join(dir, 'microservice.json'),
      JSON.stringify({ name: 'a', version: '1', entry: 'index.js', settings: { timeZone } })
    )
    assert.throws(() => readMicroserviceConfig(dir), why)
  }
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', settings: { timeZone: 'Europe/Berlin' } })
  )
  assert.equal(readMicroserviceConfig(dir).settings.timeZone, 'Europe/Berlin')
  assert.equal(c.type, 'nativeApp', 'SPEC: a microservice is native unless it says otherwise')
  // SPEC's memory policy is the shipped default, not something a fixture sets: restart on a memory
  // error 4 times, growing the heap limit by 15 percent each time, with a heap dump.
  assert.deepEqual(c.memory, {
    maxOldSpaceMb: 1024,
    restartOnError: true,
    restarts: 4,
    growthPercent: 15,
    heapDump: true
  })
  assert.equal(c.availability.responseTimeMs, 20000, 'SPEC: availability checks answered within 20000 ms')
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', type: 'servletApp' })
  )
  assert.equal(readMicroserviceConfig(dir).type, 'servletApp')
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', type: 'servlet' })
  )
  assert.throws(() => readMicroserviceConfig(dir), /type: must be one of "nativeApp", "servletApp"/)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'a', version: '1', entry: 'index.js', platformRegularExpressionToRemotelyEnabled: 'calc.*' })
  )
  assert.throws(() => readMicroserviceConfig(dir), /platformRegularExpressionToRemotelyEnabled: must be a list/)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({
      name: 'a',
      version: '1',
      entry: 'index.js',
      platformRegularExpressionToRemotelyEnabled: ['calc.*'],
      aliases: { 'com.x.In': 'in' }
    })
  )
  const c2 = readMicroserviceConfig(dir)
  assert.deepEqual(c2.platformRegularExpressionToRemotelyEnabled, ['calc.*'])
  assert.deepEqual(c2.aliases, { 'com.x.In': 'in' })
})
