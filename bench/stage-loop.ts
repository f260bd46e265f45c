// The microservice host's per-call path alone, in a loop, for counting its instructions
// (bench/stage-instructions.ts): an Invoke frame decoded, the call run by the Executor (the argument
// read by the sequence's serializer, the method, the result written), the Result frame encoded. No
// socket: what a call costs in system calls and wake-ups moves with the machine; this is the code
// that a change to the microservice host makes slower or faster.
//   node --single-threaded stage-loop.js <microservice dir> microservice <warm-up calls>
// prints "warm"; then for each line "N" on stdin makes N calls and prints "done".
import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import { loadMicroservice } from '../src/microservice/host/load-microservice'
import { Executor } from '../src/microservice/host/executor'
import { DEFAULT_RUNTIME_SETTINGS } from '../src/microservice/host/settings'
import { encodeInvokeFrame } from '../src/common/protocol/invoke-frame'
import { decodeFrame } from '../src/common/protocol/frame-decoder'
import { encodeResultFrame } from '../src/common/protocol/result-frame'
import { readVarint } from '../src/common/protocol/frame'
import { gateway } from '../src/common/protocol/generated/gateway'
import { BODY, ANSWER } from './profiles'

const [dir, warmup] = [resolve(process.argv[2]!), Number(process.argv[4] ?? '20000')]
const { config, def } = loadMicroservice(dir)
const executor = new Executor(def, { name: config.name, settings: DEFAULT_RUNTIME_SETTINGS, privilegedNames: [] })
const body = Buffer.from(BODY)
const framed = encodeInvokeFrame(
  {
    id: 1,
    service: 'calculator',
    method: 'multiply',
    sequence: 'betaParamArrayJsonInOutSequence',
    mode: gateway.Mode.ROA,
    context: {
      requestId: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b',
      ip: '127.0.0.1',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    },
    timeoutMs: 0
  },
  body,
  [0, body.length]
)
const [, prefix] = readVarint(framed, 0)!
const frame = Buffer.from(framed.subarray(prefix))
const ex = { signal: new AbortController().signal }
let sink = 0

function calls(n: number): void {
  for (let k = 0; k < n; k++) {
    const inv = decodeFrame(frame).invoke as gateway.Invoke
    const result = executor.execute(inv, ex)
    if (result instanceof Promise) throw new Error('the measured method answers at once; this one returned a promise')
    sink += encodeResultFrame(result).length
  }
}

const first = executor.execute(decodeFrame(frame).invoke as gateway.Invoke, ex)
const text = first instanceof Promise || first.body == null ? '' : Buffer.from(first.body).toString()
if (text !== ANSWER) throw new Error(`the call answered ${JSON.stringify(first)}, expected ${ANSWER}`)
calls(warmup)
console.log('warm')
createInterface({ input: process.stdin }).on('line', (line) => {
  calls(Number(line))
  console.log(sink > 0 ? 'done' : 'nothing written')
})
