import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync, mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir, availableParallelism } from 'node:os'
import { loadConfig, DEFAULT_CONFIG_FILE } from '../../../../src/common/config/config'

type Raw = Record<string, Record<string, Record<string, unknown>>>

function withFile(mutate: (raw: Raw) => void): string {
  const raw = JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as Raw
  mutate(raw)
  const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'platform.json')
  writeFileSync(file, JSON.stringify(raw))
  return file
}

test('the shipped config: port 8082, ROA, betaParamArrayJsonInOutSequence, a thread per core (at most 128), 240 s', () => {
  const c = loadConfig(DEFAULT_CONFIG_FILE, {})
  assert.equal(c.gateway.port, 8082)
  assert.equal(c.gateway.defaultApiId, 'ROA')
  assert.equal(c.gateway.defaultSequenceName, 'betaParamArrayJsonInOutSequence')
  assert.equal(c.gateway.maxBodyBytes, 16 * 1024 * 1024)
  assert.equal(c.pool.maxThreads, Math.min(128, availableParallelism()))
  assert.equal(c.pool.taskTimeoutMs, 240000)
  assert.equal(c.gateway.executingTimeoutMs, 240000)
  assert.ok(Object.isFrozen(c.gateway))
})

test('a block null in the defaults comes from the environment whole as JSON, or key by key', () => {
  const H = 'PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__tls'
  const whole = loadConfig(DEFAULT_CONFIG_FILE, { [H]: '{"certFile":"/k/cert.pem","keyFile":"/k/key.pem"}' })
  const byKey = loadConfig(DEFAULT_CONFIG_FILE, {
    [`${H}__certFile`]: '/k/cert.pem',
    [`${H}__keyFile`]: '/k/key.pem',
    [`${H}__clientCertificates__mode`]: 'request',
    [`${H}__clientCertificates__caFile`]: '/k/ca.pem'
  })
  for (const c of [whole, byKey]) {
    assert.equal(c.gateway.tls?.certFile, '/k/cert.pem')
    assert.equal(c.gateway.tls?.keyFile, '/k/key.pem')
  }
  assert.equal(byKey.gateway.tls?.clientCertificates?.caFile, '/k/ca.pem')
  // The opened block's keys are checked as a file's are: a typo is named, a missing key too.
  assert.throws(
    () => loadConfig(DEFAULT_CONFIG_FILE, { [`${H}__certFle`]: '/k/c.pem', [`${H}__keyFile`]: '/k/k.pem' }),
    /ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.tls\.certFle: unknown key/
  )
  // A key under a value (a number here) says how to set the value, and does not suggest itself.
  assert.throws(
    () => loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port__x: '1' }),
    (err: Error) =>
      /port is a value, not a block: PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port=… sets it/.test(
        err.message
      ) && !/did you mean/.test(err.message)
  )
})

test('instance sockets go beside the control socket unless moved, and a directory too deep is refused', () => {
  const c = loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__PLATFORM__controlSocket: '/srv/igw/control.sock' })
  assert.equal(c.platform.socketDirectory, '/srv/igw')
  const moved = loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__PLATFORM__socketDirectory: '/run/igw' })
  assert.equal(moved.platform.socketDirectory, '/run/igw')
  const deep = `/${'d'.repeat(90)}`
  assert.throws(
    () => loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__PLATFORM__socketDirectory: deep }),
    /PLATFORM\.socketDirectory: the instances' sockets under \/d+ would have paths of up to 115 bytes, over the 107/
  )
  // Over TCP there are no socket files, and no limit.
  const tcp = loadConfig(DEFAULT_CONFIG_FILE, {
    PLATFORM__PLATFORM__socketDirectory: deep,
    PLATFORM__PLATFORM__localTransport: 'tcp'
  })
  assert.equal(tcp.platform.socketDirectory, deep)
})

test('environment overrides by path', () => {
  const c = loadConfig(DEFAULT_CONFIG_FILE, {
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: '9191',
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__defaultApiId: 'RMC',
    PLATFORM__WORKER_POOL__maxThreads: '8'
  })
  assert.equal(c.gateway.port, 9191)
  assert.equal(c.gateway.defaultApiId, 'RMC')
  assert.equal(c.pool.maxThreads, 8)
})

test('errors name the key and the problem', () => {
  assert.throws(
    () => loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__prot: '1' }),
    /unknown key ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.prot \(did you mean port\? known in ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP: host, port, /
  )
  // Two listeners on one port would fail at start (or, with SO_REUSEPORT, share it): --check says so.
  assert.throws(
    () => loadConfig(DEFAULT_CONFIG_FILE, { PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: '9090' }),
    /ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.port and ADMIN\.port are both 9090: each listener needs a port of its own/
  )
  // Different addresses may share a port (0.0.0.0 overlaps every address, so the default gateway host may not).
  const apart = loadConfig(DEFAULT_CONFIG_FILE, {
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '127.0.0.2',
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: '9090'
  })
  assert.equal(apart.gateway.port, apart.admin.port)
  // Every mistyped override at once, each with the keys known where it points.
  assert.throws(
    () =>
      loadConfig(DEFAULT_CONFIG_FILE, {
        PLATFORM__WORKER_POOL__maxThread: '8',
        PLATFORM__LOGING__level: 'debug',
        PLATFORM__ENTRY_POINTS__port: '1'
      }),
    (err: Error) => {
      assert.match(err.message, /: 3 problems:\n/)
      assert.match(
        err.message,
        /\n {2}PLATFORM__WORKER_POOL__maxThread: unknown key WORKER_POOL\.maxThread \(did you mean maxThreads\? known in WORKER_POOL: /
      )
      assert.match(
        err.message,
        /\n {2}PLATFORM__LOGING__level: unknown key LOGING\.level \(did you mean LOGGING\? known at the top: /
      )
      assert.match(
        err.message,
        /\n {2}PLATFORM__ENTRY_POINTS__port: unknown key ENTRY_POINTS\.port \(known in ENTRY_POINTS: WEB_SERVICE_FACADE_HTTP/
      )
      return true
    }
  )
  assert.throws(
    () =>
      loadConfig(
        withFile((r) => {
          r.ENTRY_POINTS!.WEB_SERVICE_FACADE_HTTP!.defaultSequenceName = 'x'
        })
      ),
    /defaultSequenceName: unknown sequence 'x'/
  )
  assert.throws(
    () =>
      loadConfig(
        withFile((r) => {
          r.ENTRY_POINTS!.WEB_SERVICE_FACADE_HTTP!.defaultApiId = 'roa'
        })
      ),
    /defaultApiId: must be ROA or RMC/
  )
  assert.throws(
    () =>
      loadConfig(
        withFile((r) => {
          r.ENTRY_POINTS!.WEB_SERVICE_FACADE_HTTP!.port = 70000
        })
      ),
    /port: must be an integer from 0 to 65535/
  )
  assert.throws(
    () =>
      loadConfig(
        withFile((r) => {
          ;(r.WORKER_POOL as unknown as Record<string, unknown>).maxThreads = 200
        })
      ),
    /maxThreads: must be an integer from 1 to 128/
  )
  assert.throws(
    () =>
      loadConfig(
        withFile((r) => {
          ;(r.WORKER_POOL as unknown as Record<string, unknown>).minThreads = 100
        })
      ),
    /minThreads \(100\) exceeds maxThreads/
  )
  assert.throws(() => loadConfig('/nonexistent/platform.json', {}), /nonexistent/)
})

test('a misspelled key fails at start, naming its path; a file sets only what it changes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'))
  const typo = join(dir, 'typo.json')
  writeFileSync(typo, JSON.stringify({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyByte: 10 } } }))
  assert.throws(() => loadConfig(typo, {}), /ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.maxBodyByte: unknown key/)
  const top = join(dir, 'top.json')
  writeFileSync(top, JSON.stringify({ EDGE_TYPO: {} }))
  assert.throws(() => loadConfig(top, {}), /EDGE_TYPO: unknown key/)
  const partial = join(dir, 'partial.json')
  writeFileSync(
    partial,
    JSON.stringify({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { port: 9191 } },
      PLATFORM: { instances: { example: 2 } }
    })
  )
  const c = loadConfig(partial, {})
  assert.equal(c.gateway.port, 9191)
  assert.equal(c.gateway.defaultSequenceName, 'betaParamArrayJsonInOutSequence')
  assert.equal(c.platform.instances.example, 2)
  assert.equal(c.edge.port, 8000)
})

test('the schema (config/platform.schema.json, ajv) names the key and what it must be', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-schema-'))
  const write = (name: string, body: unknown): string => {
    const f = join(dir, name)
    writeFileSync(f, JSON.stringify(body))
    return f
  }
  assert.throws(
    () => loadConfig(write('level.json', { LOGGING: { level: 'loud' } }), {}),
    /LOGGING\.level: must be one of "fatal", .*got "loud"/
  )
  assert.throws(
    () => loadConfig(write('bool.json', { ADMIN: { metrics: 'yes' } }), {}),
    /ADMIN\.metrics: must be of type boolean, got "yes"/
  )
  assert.throws(
    () => loadConfig(write('nested.json', { LOGGING: { accessLogs: true } }), {}),
    /LOGGING\.accessLogs: unknown key \(did you mean accessLog\? known in LOGGING: level, accessLog, accessLogSample, accessLogSlowMs, instanceLogMaxBytes, instanceLogFiles\)/
  )
  // Every problem of a file at once, one line each, not only the first.
  assert.throws(
    () => loadConfig(write('several.json', { LOGGING: { level: 'loud' }, ADMIN: { metrics: 'yes', prot: 1 } }), {}),
    (err: Error) => {
      assert.match(err.message, /: 3 problems:\n/)
      assert.match(err.message, /\n {2}LOGGING\.level: must be one of/)
      assert.match(err.message, /\n {2}ADMIN\.metrics: must be of type boolean, got "yes"/)
      assert.match(err.message, /\n {2}ADMIN\.prot: unknown key \(did you mean port\? known in ADMIN: /)
      return true
    }
  )
  assert.throws(
    () => loadConfig(write('remote.json', { MICROSERVICES: { remote: [{ name: 'a', host: 'h', port: 0 }] } }), {}),
    /MICROSERVICES\.remote\.0\.port: must be an integer from 1 to 65535, got 0/
  )
  // The shipped file names its schema, so an editor completes and checks it.
  assert.equal(
    (JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as { $schema: string }).$schema,
    './platform.schema.json'
  )
})
