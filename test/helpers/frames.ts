// What protocol tests send by hand to a microservice (an RMC Invoke of the beta JSON sequence), and a
// microservice to send it to: service q, whose hold waits until released and whose echo answers at once;
// and a call as the dispatch layer sees it.
import assert from 'node:assert/strict'
import { encodeFrame, readVarint } from '../../src/common/protocol/frame'
import { decodeFrame } from '../../src/common/protocol/frame-decoder'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { MicroserviceServer } from '../../src/microservice/host/microservice-server'
import { DEFAULT_RUNTIME_SETTINGS, type RuntimeSettings } from '../../src/microservice/host/settings'
import { method, service, defineMicroservice } from '../../src/microservice/sdk/define'
import { t } from '../../src/microservice/descriptors/descriptors'
import type { CallOutcome, PendingCall } from '../../src/gateway/dispatch/pending'

export function rmcInvoke(id: number, service: string, method: string, args: Uint8Array[] = []): Uint8Array {
  return encodeFrame({
    invoke: {
      id,
      service,
      method,
      sequence: 'betaParamArrayJsonInOutSequence',
      mode: gateway.Mode.RMC,
      arguments: args
    }
  })
}

/** A server of service q: `hold` answers 7 once `release` is called (every held call at once), `echo` its argument. */
export function holdingServer(
  name: string,
  settings: Partial<RuntimeSettings> = {}
): { server: MicroserviceServer; release: () => void } {
  const held: Array<() => void> = []
  const definition = defineMicroservice({
    services: [
      service('q', [
        method('hold', {
          params: [],
          returns: t.Integer,
          handler: () => new Promise<number>((resolve) => held.push(() => resolve(7)))
        }),
        method('echo', { params: [t.Integer], returns: t.Integer, handler: (_ctx, n) => n })
      ])
    ],
    platformRegularExpressionToRemotelyEnabled: ['q']
  })
  const server = new MicroserviceServer(definition, {
    name,
    version: '1',
    settings: { ...DEFAULT_RUNTIME_SETTINGS, ...settings },
    privilegedNames: []
  })
  return { server, release: () => held.splice(0).forEach((r) => r()) }
}

/** A call as the dispatch layer sees it, settled into a promise; `sentOn` is for tests that record its connection. */
export class TestCall implements PendingCall {
  private static nextId = 1
  readonly callId = TestCall.nextId++
  connection: PendingCall['connection'] = null
  sentOn: unknown = null
  readonly done: Promise<CallOutcome>
  private resolve!: (o: CallOutcome) => void
  constructor() {
    this.done = new Promise((r) => (this.resolve = r))
  }
  settle(outcome: CallOutcome): void {
    this.resolve(outcome)
  }
}

/** The frame's message: what follows its length prefix, which must cover it exactly. */
export function message(frame: Uint8Array): Buffer {
  const [length, prefix] = readVarint(frame, 0)!
  assert.equal(frame.length, prefix + length, 'one whole frame')
  return Buffer.from(frame.subarray(prefix))
}

/** decodeFrame gives what protobufjs gives (the same body, a Frame), or throws where it throws. */
export function sameAsProtobufjs(bytes: Buffer | number[], what = ''): void {
  const b = Buffer.from(bytes)
  let expected: gateway.Frame | Error
  try {
    expected = gateway.Frame.decode(Buffer.from(b))
  } catch (err) {
    expected = err as Error
  }
  if (expected instanceof Error) {
    assert.throws(() => decodeFrame(b), `${what}: protobufjs throws`)
    return
  }
  const actual = decodeFrame(b)
  assert.deepEqual(actual, expected, what)
  assert.equal(actual.body, expected.body, what)
  assert.ok(actual instanceof gateway.Frame, what)
}
