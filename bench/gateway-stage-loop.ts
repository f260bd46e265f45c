// The gateway's per-call path alone, in a loop, for counting its instructions
// (bench/stage-instructions.ts), in the ways the CPU gate calls it: straight, through the edge,
// with the access log and metrics on; and, counted on request, with one rate-limit rule that
// matches every call. The listener's own entry points (startCall, startEdgeCall) run on request and
// response objects shaped as uWS's: the head copied, the call planned, the body read, the arguments
// split and the Invoke frame encoded inline, the Result frame decoded, the answer written. Not in
// the count: uWS's native code, the sockets and the dispatch directory's pick of a
// connection (what they cost moves with the machine; the CPU part of the gate measures them).
//   node --single-threaded gateway-stage-loop.js <microservice dir> call|edge|observed|limited <warm-up calls>
// prints "warm"; then for each line "N" on stdin makes N calls of that profile and prints "done".
import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { loadMicroservice } from '../src/microservice/host/load-microservice'
import { Executor } from '../src/microservice/host/executor'
import { toCatalog } from '../src/microservice/host/service-index'
import { DEFAULT_RUNTIME_SETTINGS } from '../src/microservice/host/settings'
import { defaultConfig } from '../src/common/config/config'
import { Calls } from '../src/gateway/invoke/invoke'
import type { Backend, Backends, Preparer } from '../src/gateway/invoke/interfaces'
import { CatalogIndex } from '../src/gateway/dispatch/catalog'
import { prepare } from '../src/gateway/prepare/prepare'
import { startCall, readBody } from '../src/gateway/http/gateway'
import { startEdgeCall } from '../src/gateway/edge/edge'
import { Authenticator } from '../src/gateway/edge/authenticate'
import { writeAnswer } from '../src/gateway/http/respond'
import { remoteAddress } from '../src/gateway/http/copy-head'
import { peerMatcher } from '../src/common/config/peers'
import { CallTelemetry } from '../src/gateway/invoke/call-telemetry'
import { AccessSampling } from '../src/gateway/invoke/access-sampling'
import { RateLimiter } from '../src/gateway/admission/rate-limits'
import type { ByteLineSink } from '../src/common/observability/line-writer'
import { EDGE_API_PREFIX } from '../src/common/contract/http-names'
import { encodeResultFrame } from '../src/common/protocol/result-frame'
import { decodeFrame } from '../src/common/protocol/frame-decoder'
import { readVarint } from '../src/common/protocol/frame'
import { gateway } from '../src/common/protocol/generated/gateway'
import { BODY, ANSWER, PATH } from './profiles'

const [dir, profile, warmup] = [
  resolve(process.argv[2]!),
  process.argv[3] as Profile,
  Number(process.argv[4] ?? '20000')
]
const { gateway: config, pool: poolOptions } = defaultConfig()

const { config: ms, def } = loadMicroservice(dir)
const executor = new Executor(def, { name: ms.name, settings: DEFAULT_RUNTIME_SETTINGS, privilegedNames: [] })
const catalog = new CatalogIndex(gateway.Catalog.create(toCatalog(ms.name, ms.version, executor.services, true)))

/** The answer as the microservice frames it; decoded per call, as the connection decodes each frame. */
const framed = encodeResultFrame({ id: 1, body: Buffer.from(ANSWER) })
const resultFrame = Buffer.from(framed.subarray(readVarint(framed, 0)![1]))
let sink = 0

const backend: Backend = {
  catalog,
  unavailableReason: () => null,
  send(call, frame) {
    sink += frame.length
    call.settle(decodeFrame(resultFrame).result as gateway.Result)
  }
}
const backends: Backends = { get: (name) => (name === ms.name ? backend : undefined) }

/** What PreparePool does for a small body (no worker threads here: every call is inline). */
const preparer: Preparer = {
  inlineMaxBytes: poolOptions.inlineMaxBytes,
  isInline: (task) => task.body.byteLength <= poolOptions.inlineMaxBytes,
  runInline: (task) => prepare(task),
  run: () => Promise.reject(new Error('the stage loop prepares every call inline'))
}

/** A pipeline with the HTTP side the gateway's listener gives it (Gateway's three methods). */
function pipeline(): Calls<HttpResponse> {
  const p: Calls<HttpResponse> = new Calls(config, preparer, backends, {
    readBody,
    write: (res, answer) => writeAnswer(res, p.cors, answer),
    remoteAddress: (res) => remoteAddress(res)
  })
  return p
}

/** A request as uWS hands it over: lower-case method and header names, valid during the callback. */
class Request {
  constructor(
    private readonly url: string,
    private readonly headers: ReadonlyArray<readonly [string, string]>
  ) {}
  getMethod(): string {
    return 'post'
  }
  getUrl(): string {
    return this.url
  }
  getHeader(name: string): string {
    for (const [n, v] of this.headers) if (n === name) return v
    return ''
  }
  forEach(cb: (name: string, value: string) => void): void {
    for (const [n, v] of this.headers) cb(n, v)
  }
}

const BODY_BYTES = new Uint8Array(Buffer.from(BODY)).buffer

/** A response as uWS's: the body delivered in one chunk, the answer taken whole; a new address buffer per ask. */
class Response {
  written = 0
  /** Nothing aborts here. */
  onAborted(): this {
    return this
  }
  onData(cb: (chunk: ArrayBuffer, last: boolean) => void): void {
    cb(BODY_BYTES, true)
  }
  cork(cb: () => void): this {
    cb()
    return this
  }
  writeStatus(s: string): this {
    this.written += s.length
    return this
  }
  writeHeader(k: string, v: string): this {
    this.written += k.length + v.length
    return this
  }
  end(body: Uint8Array | string): this {
    this.written += body.length
    return this
  }
  endWithoutBody(): this {
    return this
  }
  getRemoteAddress(): ArrayBuffer {
    return new Uint8Array([127, 0, 0, 1]).buffer
  }
  getRemoteAddressAsText(): ArrayBuffer {
    return new Uint8Array(Buffer.from('127.0.0.1')).buffer
  }
}

/**
 * The access log's lines written into one buffer, used again when full. The platform's writer hands a
 * full buffer to a libuv thread; when that write's instructions land depends on the machine's timing,
 * so the count takes the lines' formatting only.
 */
class DiscardedLines implements ByteLineSink {
  private readonly buffer = Buffer.allocUnsafe(64 * 1024)
  offset = 0
  room(n: number): Buffer {
    if (this.offset + n > this.buffer.length) this.offset = 0
    return this.buffer
  }
  commit(end: number): void {
    this.offset = end
  }
  write(line: string): void {
    this.commit(this.offset + this.room(line.length * 3).write(line, this.offset))
  }
}

const headers = [
  ['host', '127.0.0.1'],
  ['content-type', 'application/json'],
  ['content-length', String(BODY.length)]
] as const
const straight = new Request(PATH, headers)
const viaEdge = new Request(EDGE_API_PREFIX + PATH, headers)
const trusted = peerMatcher(config.trust.trustedPeers)
/** As the Gateway decides it. */
const trusts = (res: HttpResponse): boolean => trusted(remoteAddress(res))
const auth = new Authenticator()

const plain = pipeline()
/**
 * The access log's wall clock, stepped by calls rather than read: under callgrind a call takes a
 * thousand times longer than natively, and how many calls share a millisecond would follow the speed
 * of the machine running valgrind instead of the code (docs/performance.md, "A count that holds").
 * CALLS_PER_MS is a busy listener thread's rate, so the millisecond digits change every few calls.
 */
const CALLS_PER_MS = 20
const CLOCK_START = Date.UTC(2026, 0, 1)
let made = 0
const steppedClock = (): number => CLOCK_START + Math.floor(made / CALLS_PER_MS)
const observed = pipeline()
observed.observer = new CallTelemetry(true, new DiscardedLines(), steppedClock)
/** Metrics alone: what the access log adds is observed's count less this one (docs/operating.md). */
const metered = pipeline()
metered.observer = new CallTelemetry(true, null, steppedClock)
/** Metrics and the access log of errors and slow calls only (LOGGING.accessLogSample 0): no line for these calls. */
const sampled = pipeline()
sampled.observer = new CallTelemetry(true, new DiscardedLines(), steppedClock, new AccessSampling(0, 1000))
/** One rule every call matches, by identity (the address here), that never refuses: its fields are written. */
const limited = pipeline()
limited.limiter = new RateLimiter({
  rules: [
    {
      name: 'per-caller',
      match: { microservice: null, service: null, method: null, apiId: null },
      key: 'identity',
      scope: 'node',
      limit: { kind: 'bucket', rate: 1e9, burst: 1e9 }
    }
  ],
  maxKeys: 65536,
  headers: true,
  redis: null
})

type Profile = 'call' | 'edge' | 'observed' | 'limited' | 'metered' | 'sampled'
const CALLS: Record<Profile, (res: Response) => void> = {
  call: (res) => startCall(plain, trusts, res as unknown as HttpResponse, straight as unknown as HttpRequest),
  edge: (res) => startEdgeCall(plain, auth, res as unknown as HttpResponse, viaEdge as unknown as HttpRequest),
  observed: (res) => startCall(observed, trusts, res as unknown as HttpResponse, straight as unknown as HttpRequest),
  limited: (res) => startCall(limited, trusts, res as unknown as HttpResponse, straight as unknown as HttpRequest),
  metered: (res) => startCall(metered, trusts, res as unknown as HttpResponse, straight as unknown as HttpRequest),
  sampled: (res) => startCall(sampled, trusts, res as unknown as HttpResponse, straight as unknown as HttpRequest)
}

const call = CALLS[profile]
if (call === undefined) throw new Error(`no profile ${profile}: call, edge, observed, limited, metered or sampled`)

function calls(n: number): void {
  for (let k = 0; k < n; k++) {
    const res = new Response()
    call!(res)
    sink += res.written
    made++
  }
}

// The profile answers as the platform does before anything is counted.
const first = new Response()
let text = ''
first.end = (body) => {
  text = Buffer.from(body).toString()
  return first
}
call(first)
if (text !== ANSWER) throw new Error(`the ${profile} call answered ${JSON.stringify(text)}, expected ${ANSWER}`)
calls(warmup)
console.log('warm')
createInterface({ input: process.stdin }).on('line', (line) => {
  calls(Number(line))
  console.log(sink > 0 ? 'done' : 'nothing written')
})
