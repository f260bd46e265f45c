// A gateway's side of the internal protocol, spoken straight to a host that listens on TCP: the
// authenticated handshake (each side proves the secret), the catalog, then Invokes and their Results.
// What the Java host checks itself is tested this way (java-enabled, java-mutants), since the gateway's
// own checks would hide a host that skipped them.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { FrameReader, encodeFrame, PROTOCOL_VERSION, type Frame } from '../../../src/common/protocol/frame'
import { gatewayProof, microserviceProof, nonce, sameProof } from '../../../src/common/protocol/handshake'
import { gateway } from '../../../src/common/protocol/generated/gateway'

export interface HostSession {
  /** The Catalog the host sent once the handshake passed. */
  catalog: gateway.ICatalog
  /** Sends the Invokes at once; resolves with each Result by its id once all have come. */
  call(invokes: gateway.IInvoke[]): Promise<Map<number, gateway.IResult>>
  close(): void
}

/** An Invoke of `service.method` in RMC mode with these arguments (each one serialized text). */
export function rmc(id: number, service: string, method: string, sequence: string, args: string[]): gateway.IInvoke {
  return { id, service, method, sequence, mode: gateway.Mode.RMC, arguments: args.map((a) => Buffer.from(a)) }
}

export async function openSession(port: number, secret: string): Promise<HostSession> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  socket.on('data', (c: Buffer) => reader.push(c))
  const next = async (n: number): Promise<Frame> => {
    for (let k = 0; k < 1000 && frames.length < n; k++) await new Promise((r) => setTimeout(r, 10))
    assert.ok(frames.length >= n, `frame ${n} did not come in 10 s: ${JSON.stringify(frames)}`)
    return frames[n - 1]!
  }
  const challenge = (await next(1)).challenge
  assert.ok(challenge?.nonce, 'the host opens with a Challenge')
  const ours = nonce()
  const proof = gatewayProof(secret, challenge.nonce, ours)
  socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't', nonce: ours, proof } }))
  const catalog = (await next(2)).catalog
  assert.ok(catalog, `the host answers the Hello with its Catalog: ${JSON.stringify(frames[1])}`)
  assert.ok(
    sameProof(microserviceProof(secret, challenge.nonce, ours), catalog.proof),
    'the host proves the secret too'
  )
  return {
    catalog,
    async call(invokes) {
      const before = frames.length
      socket.write(Buffer.concat(invokes.map((invoke) => encodeFrame({ invoke }))))
      await next(before + invokes.length)
      return new Map(frames.slice(before).map((f) => [Number(f.result!.id), f.result!]))
    },
    close: () => socket.destroy()
  }
}
