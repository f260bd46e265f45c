// Frames a test sends by hand to a microservice: an RMC Invoke of the beta JSON sequence.
import { encodeFrame } from '../../src/protocol/frame'
import { gateway } from '../../src/protocol/generated/gateway'

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
