// The Java host's own remotely-enabled check, straight over the protocol as any gateway that holds the
// secret speaks it (`microservice host --listen tcp:` exposes it; the gateway's catalog check would
// hide a host that skipped its own): the authenticated handshake, then Invokes of beans whose names
// contain one another, only the one the list names whole being callable.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { FrameReader, encodeFrame, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { gatewayProof, microserviceProof, nonce, sameProof } from '../../src/common/protocol/handshake'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { hostClassPath, javaPackage, springContext } from '../helpers/java-package'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../helpers/remote-host'

const SECRET_ENV = 'IGW_TEST_JAVA_ENABLED_SECRET'
const SECRET = 'the secret of the enabled-list test'

/** One bean class a name: `twice(Integer)` answers 2a. */
const bean = (cls: string): string =>
  `package n;\npublic class ${cls} {\n  public Integer twice(Integer a) {\n    return a * 2;\n  }\n}\n`

describe("the Java host's remotely-enabled list, over the protocol", () => {
  let host: RemoteHost
  let socket: Socket
  const frames: Frame[] = []

  const next = async (n: number): Promise<Frame> => {
    for (let k = 0; k < 1000 && frames.length < n; k++) await new Promise((r) => setTimeout(r, 10))
    assert.ok(frames.length >= n, `frame ${n} did not come: ${JSON.stringify(frames)}`)
    return frames[n - 1]!
  }

  before(async () => {
    hostClassPath()
    // `calc` is enabled by name; `calculator` and `precalc` contain that name and are not.
    const dir = javaPackage('nested', {
      sources: {
        'n/Calc.java': bean('Calc'),
        'n/Calculator.java': bean('Calculator'),
        'n/Precalc.java': bean('Precalc')
      },
      resources: {
        'META-INF/nested.xml': springContext({ calc: 'n.Calc', calculator: 'n.Calculator', precalc: 'n.Precalc' }, [
          'calc'
        ])
      },
      config: { applicationContext: 'META-INF/nested.xml' }
    })
    host = await startRemoteHost(dir, SECRET_ENV, SECRET)
    socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(host.port, '127.0.0.1', () => resolve(s))
      s.once('error', reject)
    })
    const reader = new FrameReader((f) => frames.push(f))
    socket.on('data', (c: Buffer) => reader.push(c))
  })
  after(async () => {
    socket?.destroy()
    await stopRemoteHost(host)
  })

  test('the handshake proves the secret both ways; the catalog enables the named bean alone', async () => {
    const challenge = (await next(1)).challenge
    assert.ok(challenge?.nonce, 'the host opens with a Challenge')
    const ours = nonce()
    const proof = gatewayProof(SECRET, challenge.nonce, ours)
    socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't', nonce: ours, proof } }))
    const catalog = (await next(2)).catalog!
    assert.ok(sameProof(microserviceProof(SECRET, challenge.nonce, ours), catalog.proof), 'the host proves it too')
    const enabled = new Map((catalog.services ?? []).map((s) => [s.name, s.remotelyEnabled === true]))
    assert.equal(enabled.get('calc'), true)
    assert.notEqual(enabled.get('calculator'), true)
    assert.notEqual(enabled.get('precalc'), true)
  })

  test('an Invoke of a bean the list does not name whole is refused UNKNOWN_SERVICE by the host itself', async () => {
    const invoke = (id: number, service: string): Uint8Array =>
      encodeFrame({
        invoke: {
          id,
          service,
          method: 'twice',
          sequence: 'betaParamArrayJsonInOutSequence',
          mode: gateway.Mode.RMC,
          arguments: [Buffer.from('21')]
        }
      })
    socket.write(Buffer.concat([invoke(1, 'calc'), invoke(2, 'calculator'), invoke(3, 'precalc'), invoke(4, 'nope')]))
    await next(6)
    const results = new Map(frames.slice(2).map((f) => [f.result!.id, f.result!]))
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
