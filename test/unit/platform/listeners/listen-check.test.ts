// The host a local client uses for a listener (the bench command's URL, `main.js --ready`'s probe), and
// the plaintext check: no listener speaks plain HTTP to the network beside one that speaks TLS.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  checkPlaintext,
  isLoopback,
  listenSettings,
  reachableHost
} from '../../../../src/platform/listeners/listen-check'
import { DEFAULT_CONFIG_FILE, loadConfig, type PlatformConfig } from '../../../../src/common/config/config'

const TLS = '{"certFile":"/k/cert.pem","keyFile":"/k/key.pem"}'
const GATEWAY_TLS = 'PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__tls'

function config(env: Record<string, string>): PlatformConfig {
  return loadConfig(DEFAULT_CONFIG_FILE, env)
}

function check(c: PlatformConfig, host?: string): void {
  const s = listenSettings(c, host === undefined ? {} : { host })
  checkPlaintext([s.gateway, s.edge, s.admin])
}

test('wildcards are reached on loopback; IPv6 in brackets once; names and IPv4 as they are', () => {
  assert.equal(reachableHost('0.0.0.0'), '127.0.0.1')
  assert.equal(reachableHost(''), '127.0.0.1')
  assert.equal(reachableHost('::'), '[::1]')
  assert.equal(reachableHost('::1'), '[::1]')
  assert.equal(reachableHost('[::1]'), '[::1]')
  assert.equal(reachableHost('10.0.0.5'), '10.0.0.5')
  assert.equal(reachableHost('gateway.local'), 'gateway.local')
})

test("TLS on the gateway: the edge left at its defaults takes the gateway's TLS, and the defaults start", () => {
  const c = config({ [GATEWAY_TLS]: TLS })
  assert.equal(c.edge.tls?.certFile, '/k/cert.pem')
  // Errors about the block name where it is written.
  assert.equal(c.edge.tls?.at, 'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls')
  assert.equal(listenSettings(c).edge?.tls, true)
  check(c)
  // The edge's own block wins; without any TLS nothing is inherited.
  const own = config({ [GATEWAY_TLS]: TLS, PLATFORM__EDGE__tls: '{"certFile":"/e/cert.pem","keyFile":"/e/key.pem"}' })
  assert.equal(own.edge.tls?.certFile, '/e/cert.pem')
  assert.equal(config({}).edge.tls, null)
  check(config({}))
  // Client certificates: the same CAs and mode, but not the gateway's certificates trusted with identity
  // headers, which the edge takes from EDGE.auth.certificates only.
  const clients = config({
    [GATEWAY_TLS]:
      '{"certFile":"/k/cert.pem","keyFile":"/k/key.pem","clientCertificates":{"mode":"require","caFile":"/k/ca.pem","trusted":["CN=edge"]}}'
  })
  assert.deepEqual(clients.gateway.tls?.clientCertificates?.trusted, ['CN=edge'])
  assert.equal(clients.edge.tls?.clientCertificates?.mode, 'require')
  assert.equal(clients.edge.tls?.clientCertificates?.caFile, '/k/ca.pem')
  assert.deepEqual(clients.edge.tls?.clientCertificates?.trusted, [])
})

test('a plain listener on the network beside a TLS one refuses to start, naming it and the three ways out', () => {
  // The edge opted out of TLS but still on 0.0.0.0: its opt-out is allowPlaintext itself, so it starts.
  const optedOut = config({ [GATEWAY_TLS]: TLS, PLATFORM__EDGE__allowPlaintext: 'true' })
  assert.equal(optedOut.edge.tls, null)
  check(optedOut)
  // The admin listener moved to the network without TLS.
  const admin = config({ [GATEWAY_TLS]: TLS, PLATFORM__ADMIN__host: '0.0.0.0' })
  assert.throws(
    () => check(admin),
    (err: Error) =>
      /the admin listener would listen on 0\.0\.0\.0:9090 in plain HTTP while the gateway speaks TLS/.test(
        err.message
      ) &&
      /give ADMIN a tls block, or a loopback host \(ADMIN\.host 127\.0\.0\.1\), or set ADMIN\.allowPlaintext to true/.test(
        err.message
      ) &&
      /docs\/security\.md, "No plaintext door"/.test(err.message)
  )
  check(config({ [GATEWAY_TLS]: TLS, PLATFORM__ADMIN__host: '0.0.0.0', PLATFORM__ADMIN__allowPlaintext: 'true' }))
  // TLS on the edge alone: the gateway on 0.0.0.0 is the open door; on loopback it is not.
  const edgeOnly = config({ PLATFORM__EDGE__tls: TLS })
  assert.throws(
    () => check(edgeOnly),
    /the gateway would listen on 0\.0\.0\.0:8082 in plain HTTP while the edge speaks TLS/
  )
  check(edgeOnly, '127.0.0.1')
  // Both open doors are named at once.
  assert.throws(
    () => check(config({ PLATFORM__ADMIN__tls: TLS, PLATFORM__EDGE__allowPlaintext: 'false' })),
    (err: Error) => /the gateway would listen/.test(err.message) && /the edge would listen/.test(err.message)
  )
})

test('loopback is 127.0.0.0/8, ::1 and localhost; wildcards and other addresses are the network', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
    assert.equal(isLoopback(h), true, h)
  for (const h of [
    '0.0.0.0',
    '::',
    '',
    '10.0.0.5',
    '128.0.0.1',
    'gateway.local',
    '127.0.0.1.example',
    '::ffff:10.0.0.1'
  ])
    assert.equal(isLoopback(h), false, h)
})
