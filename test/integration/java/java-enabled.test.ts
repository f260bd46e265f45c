// The Java host's own remotely-enabled check, straight over the protocol as any gateway that holds the
// secret speaks it (`microservice host --listen tcp:` exposes it; the gateway's catalog check would
// hide a host that skipped its own): the authenticated handshake, then Invokes of beans whose names
// contain one another, only the one the list names whole being callable.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { hostClassPath } from '../../helpers/java/java-package'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../../helpers/processes/remote-host'
import { openSession, rmc, type HostSession } from '../../helpers/processes/host-session'
import { nestedBeans } from '../../helpers/java/java-beans'

const SECRET_ENV = 'IGW_TEST_JAVA_ENABLED_SECRET'
const SECRET = 'the secret of the enabled-list test'

describe("the Java host's remotely-enabled list, over the protocol", () => {
  let host: RemoteHost
  let session: HostSession

  before(async () => {
    hostClassPath()
    host = await startRemoteHost(nestedBeans(), SECRET_ENV, SECRET)
  })
  after(async () => {
    session?.close()
    await stopRemoteHost(host)
  })

  test('the handshake proves the secret both ways; the catalog enables the named bean alone', async () => {
    session = await openSession(host.port, SECRET)
    const enabled = new Map((session.catalog.services ?? []).map((s) => [s.name, s.remotelyEnabled === true]))
    assert.equal(enabled.get('calc'), true)
    assert.notEqual(enabled.get('calculator'), true)
    assert.notEqual(enabled.get('precalc'), true)
  })

  test('an Invoke of a bean the list does not name whole is refused UNKNOWN_SERVICE by the host itself', async () => {
    const beta = 'betaParamArrayJsonInOutSequence'
    const results = await session.call([
      rmc(1, 'calc', 'twice', beta, ['21']),
      rmc(2, 'calculator', 'twice', beta, ['21']),
      rmc(3, 'precalc', 'twice', beta, ['21']),
      rmc(4, 'nope', 'twice', beta, ['21'])
    ])
    assert.equal(Buffer.from(results.get(1)!.body!).toString(), '42')
    for (const [id, service] of [
      [2, 'calculator'],
      [3, 'precalc'],
      [4, 'nope']
    ] as const) {
      assert.equal(results.get(id)!.error?.code, 'UNKNOWN_SERVICE', service)
      assert.match(results.get(id)!.error!.detail!, new RegExp(`service '${service}' is not remotely enabled`))
    }
  })
})
