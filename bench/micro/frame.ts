// Frame stage: the Invoke frame as the gateway encodes it and the Result frame as it decodes it,
// against JSON.stringify / JSON.parse of the same fields.
import { encodeFrame, FrameReader, type Frame } from '../../src/common/protocol/frame'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { pair, type Pair } from './common'

export async function run(): Promise<Pair[]> {
  const invoke = {
    id: 7,
    service: 'calculator',
    method: 'multiply',
    sequence: 'betaParamArrayJsonInOutSequence',
    mode: gateway.Mode.ROA,
    arguments: [Buffer.from('{"a":2,"b":3}')],
    context: { requestId: '0f8fad5b-d9cb-469f-a165-70867728950e', ip: '127.0.0.1', privilegeNames: [] },
    timeoutMs: 241000
  }
  const asJson = { ...invoke, arguments: ['{"a":2,"b":3}'] }
  const result = Buffer.from(encodeFrame({ result: { id: 7, body: Buffer.from('{"result":6}') } }))
  const resultJson = JSON.stringify({ result: { id: 7, body: '{"result":6}' } })
  let got: Frame | null = null
  const reader = new FrameReader((f) => {
    got = f
  })
  reader.push(result)
  if (got === null || (got as Frame).result!.id !== 7) throw new Error('frame stage decodes wrongly')
  return [
    await pair(
      'frame encode',
      'Invoke',
      ['encodeFrame', () => encodeFrame({ invoke })],
      ['JSON.stringify', () => JSON.stringify(asJson)]
    ),
    await pair(
      'frame decode',
      'Result',
      ['FrameReader.push', () => reader.push(result)],
      ['JSON.parse', () => JSON.parse(resultJson)]
    )
  ]
}
