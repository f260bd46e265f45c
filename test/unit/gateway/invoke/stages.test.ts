// The request path's stages without uWS, sockets or child processes: the plan is a pure function of
// the head, the settings and the backends; the body reader enforces the limit; an Invocation driven
// through a recording HTTP port and a recording backend answers as the error table says.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { planCall, isRefusal, type CallPlan, type Refusal } from '../../../../src/gateway/invoke/plan'
import { BodyReader } from '../../../../src/gateway/invoke/body'
import { parseRoute } from '../../../../src/gateway/invoke/route'
import { blankHead, splitNames, type CallHead } from '../../../../src/gateway/invoke/call-head'
import { Calls, Invocation } from '../../../../src/gateway/invoke/invoke'
import type { Answer } from '../../../../src/gateway/invoke/answer'
import type {
  Authentication,
  AuthOutcome,
  Backend,
  Backends,
  BodySink,
  Credentials,
  HttpPort,
  Preparer
} from '../../../../src/gateway/invoke/interfaces'
import type { PendingCall } from '../../../../src/gateway/dispatch/pending'
import { CatalogIndex } from '../../../../src/gateway/dispatch/catalog'
import { prepare, type PrepareTask } from '../../../../src/gateway/prepare/prepare'
import { gateway } from '../../../../src/common/protocol/generated/gateway'
import { readVarint } from '../../../../src/common/protocol/frame'
import { defaultConfig, type AdmissionSection } from '../../../../src/common/config/config'
import { installedUwsAbis, uwsSupportError } from '../../../../src/gateway/http/uws-support'
import { SharedBufferPool, isShared } from '../../../../src/common/bytes/shared-buffers'
import { Admission } from '../../../../src/gateway/admission/concurrency'

const LARGE = new SharedBufferPool(64, 1 << 20)

const config = defaultConfig().gateway

function head(over: Partial<CallHead> = {}): CallHead {
  return {
    ...blankHead('post', '/example/calculator/multiply'),
    contentType: 'application/json',
    contentLength: '13',
    ...over
  }
}

const CATALOG = new CatalogIndex(
  gateway.Catalog.create({
    microservice: 'example',
    version: '1',
    available: true,
    services: [
      {
        name: 'calculator',
        remotelyEnabled: true,
        methods: [
          { name: 'multiply', parameterCount: 1 },
          { name: 'multiplyInts', parameterCount: 2 }
        ]
      },
      { name: 'internal', remotelyEnabled: false, methods: [{ name: 'secret', parameterCount: 0 }] }
    ]
  })
)

class RecordingBackend implements Backend {
  sent: Array<{ call: PendingCall; frame: Uint8Array }> = []
  constructor(
    public catalog: CatalogIndex | null = CATALOG,
    public reason: string | null = null
  ) {}
  unavailableReason(): string | null {
    return this.reason
  }
  send(call: PendingCall, frame: Uint8Array): void {
    this.sent.push({ call, frame })
  }
}

function backends(b: Backend): Backends {
  return { get: (name) => (name === 'example' ? b : undefined) }
}

function plan(h: Partial<CallHead>, b: Backend = new RecordingBackend()): CallPlan | Refusal {
  return planCall(head(h), config, backends(b))
}

function refusalCode(p: CallPlan | Refusal): string {
  assert.ok(isRefusal(p), 'refused')
  return p.refusal.code
}

describe('plan', () => {
  test('a well-formed ROA call plans with the defaults', () => {
    const p = plan({})
    assert.ok(!isRefusal(p))
    assert.deepEqual(
      [p.format, p.mode, p.sequence, p.method.name, p.declaredLength],
      ['json', 'ROA', 'betaParamArrayJsonInOutSequence', 'multiply', 13]
    )
  })
  const refusals: Array<[string, Partial<CallHead>, string]> = [
    ['GET', { method: 'get' }, 'METHOD_NOT_ALLOWED'],
    ['two segments', { url: '/example/calculator' }, 'ROUTE_NOT_FOUND'],
    ['four segments', { url: '/a/b/c/d' }, 'ROUTE_NOT_FOUND'],
    ['bad percent-encoding', { url: '/example/%zz/multiply' }, 'ROUTE_NOT_FOUND'],
    ['no media type', { contentType: '', accept: '' }, 'UNSUPPORTED_MEDIA_TYPE'],
    ['JSON in, XML out', { contentType: 'application/json', accept: 'application/xml' }, 'FORMAT_MISMATCH'],
    ['lower-case rmc', { apiId: 'rmc' }, 'UNKNOWN_API_ID'],
    ['unknown sequence', { sequenceName: 'gammaSequence' }, 'UNKNOWN_SEQUENCE'],
    ['XML body, JSON sequence', { contentType: 'application/xml' }, 'SEQUENCE_FORMAT_MISMATCH'],
    ['unknown microservice', { url: '/nope/calculator/multiply' }, 'UNKNOWN_MICROSERVICE'],
    ['service not remotely enabled', { url: '/example/internal/secret' }, 'UNKNOWN_SERVICE'],
    ['unknown method', { url: '/example/calculator/divide' }, 'UNKNOWN_METHOD'],
    ['ROA of a two-parameter method', { url: '/example/calculator/multiplyInts' }, 'ROA_NEEDS_ONE_PARAMETER'],
    ['declared body over the limit', { contentLength: String(config.maxBodyBytes + 1) }, 'BODY_TOO_LARGE']
  ]
  for (const [name, h, code] of refusals) test(`${name} → ${code}`, () => assert.equal(refusalCode(plan(h)), code))

  test('RMC of a two-parameter method plans', () => {
    const p = plan({ url: '/example/calculator/multiplyInts', apiId: 'RMC' })
    assert.ok(!isRefusal(p))
    assert.equal(p.method.parameterCount, 2)
  })
  test('an unavailable backend → MICROSERVICE_UNAVAILABLE with its reason', () => {
    const p = plan({}, new RecordingBackend(CATALOG, 'frozen'))
    assert.equal(refusalCode(p), 'MICROSERVICE_UNAVAILABLE')
    assert.equal((p as Refusal).refusal.detail, 'frozen')
  })
  test('a backend before its handshake → MICROSERVICE_UNAVAILABLE', () =>
    assert.equal(refusalCode(plan({}, new RecordingBackend(null))), 'MICROSERVICE_UNAVAILABLE'))
  test('a refusal of an XML request is written in XML', () => {
    const p = plan({
      contentType: 'application/xml',
      sequenceName: 'alphaParamArrayXmlInOutSequence',
      url: '/example/calculator/nope'
    })
    assert.ok(isRefusal(p))
    assert.equal(p.format, 'xml')
  })
  test('an absent or unreadable Content-Length is an undeclared length', () => {
    for (const contentLength of ['', 'abc']) {
      const p = plan({ contentLength })
      assert.ok(!isRefusal(p))
      assert.equal(p.declaredLength, -1)
    }
  })
})

describe('route and headers', () => {
  test('routes', () => {
    assert.deepEqual(parseRoute('/a/b/c'), ['a', 'b', 'c'])
    assert.deepEqual(parseRoute('/a%20b/b/c%2Fd'), ['a b', 'b', 'c/d'])
    for (const bad of ['', 'a/b/c', '/a/b/', '//b/c', '/a/b/c/', '/a/b/c/d']) assert.equal(parseRoute(bad), null, bad)
  })
  test('privilege names: split on ;, trimmed, blanks dropped', () => {
    assert.deepEqual(splitNames(''), [])
    assert.deepEqual(splitNames(' admin ; ;reader;'), ['admin', 'reader'])
  })
})

describe('body reader', () => {
  const chunk = (s: string): Uint8Array => Buffer.from(s)
  test('a declared length is read into one buffer', () => {
    const r = new BodyReader(5, 100, 1000, LARGE)
    assert.equal(r.push(chunk('ab')), null)
    assert.equal(r.push(chunk('cde')), null)
    assert.equal(Buffer.from(r.finish()).toString(), 'abcde')
  })
  test('more than declared is refused', () => {
    const r = new BodyReader(2, 100, 1000, LARGE)
    assert.equal(r.push(chunk('abc'))?.code, 'MALFORMED_BODY')
  })
  test('an undeclared length is collected and joined, up to the limit', () => {
    const r = new BodyReader(-1, 6, 1000, LARGE)
    assert.equal(r.push(chunk('abc')), null)
    assert.equal(r.push(chunk('def')), null)
    assert.equal(r.push(chunk('g'))?.code, 'BODY_TOO_LARGE')
    const ok = new BodyReader(-1, 6, 1000, LARGE)
    ok.push(chunk('abc'))
    ok.push(chunk('d'))
    assert.equal(Buffer.from(ok.finish()).toString(), 'abcd')
  })
  test('a body above the inline size comes from the large-body pool (shared with the worker), used again once released', () => {
    const big = new BodyReader(64, 100, 10, LARGE)
    big.push(new Uint8Array(64).fill(7))
    const b = big.finish()
    assert.ok(isShared(b))
    assert.equal(b.length, 64)
    LARGE.release(b)
    LARGE.release(b) // twice: ignored, or two bodies would share memory
    const again = new BodyReader(-1, 100, 10, LARGE)
    again.push(new Uint8Array(40))
    const c = again.finish()
    assert.equal(c.buffer, b.buffer, 'the released buffer is used again')
    const d = new BodyReader(50, 100, 10, LARGE)
    d.push(new Uint8Array(50))
    assert.notEqual(d.finish().buffer, c.buffer, 'a buffer in use is not handed out twice')
    assert.ok(!isShared(new BodyReader(5, 100, 10, LARGE).finish()), 'small bodies from the slab')
  })
  test('an empty body', () => {
    assert.equal(new BodyReader(0, 10, 10, LARGE).finish().length, 0)
    assert.equal(new BodyReader(-1, 10, 10, LARGE).finish().length, 0)
  })
})

/** The HTTP side as a recorder: the body is handed over in the chunks given. */
class RecordingPort implements HttpPort<string[]> {
  answers: Answer[] = []
  readBody(res: string[], sink: BodySink): void {
    res.forEach((c, k) => {
      const b = Buffer.from(c) // a view into Node's slab: hand over a copy of just its bytes, as uWS would
      sink.onChunk(b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer, k === res.length - 1)
    })
    if (res.length === 0) sink.onChunk(new ArrayBuffer(0), true)
  }
  write(_res: string[], answer: Answer): void {
    this.answers.push(answer)
  }
  remoteAddress(): string {
    return '203.0.113.9'
  }
}

const inline: Preparer = {
  inlineMaxBytes: 1 << 20,
  isInline: () => true,
  runInline: (t: PrepareTask) => prepare(t, false),
  run: async (t: PrepareTask) => prepare(t)
}

function decodeInvoke(frame: Uint8Array): gateway.Invoke {
  const [len, at] = readVarint(frame, 0)!
  return gateway.Frame.decode(frame.subarray(at, at + len)).invoke as gateway.Invoke
}

describe('invocation through recording ports', () => {
  function run(
    h: Partial<CallHead>,
    chunks: string[]
  ): { port: RecordingPort; backend: RecordingBackend; calls: Calls<string[]>; inv: Invocation<string[]> } {
    const port = new RecordingPort()
    const backend = new RecordingBackend()
    const calls = new Calls(config, inline, backends(backend), port)
    const length = String(chunks.reduce((n, c) => n + Buffer.byteLength(c), 0))
    const inv = new Invocation(calls, chunks, head({ contentLength: length, ...h }))
    inv.begin()
    return { port, backend, calls, inv }
  }

  test('RMC: the arguments reach the backend as exact slices with the call context; the Result is answered 200', () => {
    const body = '[2, 30000000000000000000]'
    const h = { url: '/example/calculator/multiplyInts', apiId: 'RMC', user: 'jdoe', privilegeNames: 'a;b' }
    const { port, backend, calls } = run(h, [body.slice(0, 4), body.slice(4)])
    assert.equal(backend.sent.length, 1)
    const inv = decodeInvoke(backend.sent[0]!.frame)
    assert.deepEqual(
      inv.arguments.map((a) => Buffer.from(a).toString()),
      ['2', '30000000000000000000']
    )
    assert.equal(inv.context?.user, 'jdoe')
    assert.deepEqual(inv.context?.privilegeNames, ['a', 'b'])
    assert.equal(inv.context?.ip, '203.0.113.9')
    assert.equal(calls.inFlight, 1)
    const call = backend.sent[0]!.call
    assert.equal(calls.deadlines.size, 1, 'the executing timeout runs while the call is out')
    call.settle(gateway.Result.create({ id: call.callId, body: Buffer.from('6') }))
    assert.equal(calls.deadlines.size, 0)
    assert.equal(port.answers.length, 1)
    assert.equal(port.answers[0]!.status, 200)
    assert.equal(Buffer.from(port.answers[0]!.body as Uint8Array).toString(), '6')
    assert.equal(calls.inFlight, 0)
  })

  test('a void result is 204; a failure from dispatch is its problem; a method error keeps its own status', () => {
    const cases: Array<[Parameters<PendingCall['settle']>[0], number, { code: string; detail: string } | null]> = [
      [gateway.Result.create({ isVoid: true }), 204, null],
      [{ code: 'BACKEND_CONNECTION_LOST', detail: 'gone' }, 502, { code: 'BACKEND_CONNECTION_LOST', detail: 'gone' }],
      [
        gateway.Result.create({ error: { code: 'METHOD_FAILED', detail: 'no', status: 409 } }),
        409,
        { code: 'METHOD_FAILED', detail: 'no' }
      ],
      // A code the gateway does not know is INTERNAL, with the microservice's detail.
      [
        gateway.Result.create({ error: { code: 'NOT_A_CODE', detail: 'x', status: 0 } }),
        500,
        { code: 'INTERNAL', detail: 'x' }
      ]
    ]
    for (const [outcome, status, problem] of cases) {
      const { port, backend } = run({}, ['{"a":2,"b":3}'])
      backend.sent[0]!.call.settle(outcome)
      const a = port.answers[0]!
      assert.equal(a.status, status)
      if (problem === null) {
        assert.deepEqual([a.contentType, a.body.length], [null, 0])
        continue
      }
      const body = JSON.parse(String(a.body)) as { code: string; detail: string; status: number }
      assert.deepEqual([body.code, body.detail, body.status], [problem.code, problem.detail, status])
    }
  })

  test('an RMC argument count that differs is ARGUMENT_COUNT before any send', () => {
    const { port, backend, calls } = run({ url: '/example/calculator/multiplyInts', apiId: 'RMC' }, ['[2]'])
    assert.equal(backend.sent.length, 0)
    assert.equal(port.answers[0]!.status, 400)
    assert.match(String(port.answers[0]!.body), /ARGUMENT_COUNT/)
    assert.equal(calls.inFlight, 0)
  })

  test('a client abort cancels the call on its connection and frees its slot', () => {
    const { backend, calls, inv } = run({}, ['{"a":2,"b":3}'])
    const cancelled: number[] = []
    const call = backend.sent[0]!.call
    call.connection = {
      cancel: (c) => {
        cancelled.push(c.callId)
      },
      readyAt: 0
    }
    inv.onAborted()
    assert.deepEqual(cancelled, [call.callId])
    assert.equal(calls.inFlight, 0)
  })

  /** An invocation with ADMISSION.adaptive on, sent on a connection whose handshake was done `ageMs` ago. */
  function admitted(ageMs: number, h: Partial<CallHead> = {}, admission = new Admission(adaptive())) {
    const port = new RecordingPort()
    const backend = new RecordingBackend()
    const send = backend.send.bind(backend)
    backend.send = (call, frame) => {
      call.connection = { cancel: () => {}, readyAt: performance.now() - ageMs }
      send(call, frame)
    }
    const calls = new Calls(config, inline, backends(backend), port)
    calls.admission = admission
    const inv = new Invocation(calls, ['{"a":2,"b":3}'], head(h))
    inv.begin()
    return { port, backend, calls, admission }
  }
  const adaptive = (over: Partial<AdmissionSection> = {}): AdmissionSection => ({
    ...defaultConfig().admission,
    adaptive: true,
    ...over
  })
  const limitOf = (a: Admission) => [...a.entries()][0]!.limit

  test('slow round trips on a connection still warming up (ADMISSION.warmupMs) cut nothing; on an old one they do', async () => {
    const limits: number[] = []
    for (const age of [50, 60_000]) {
      const admission = new Admission(adaptive())
      /** One call answered `ms` after it was sent. */
      const answered = (ms: number): void => {
        const call = admitted(age, {}, admission).backend.sent[0]!.call
        const end = performance.now() + ms
        while (performance.now() < end);
        call.settle(gateway.Result.create({ id: call.callId, body: Buffer.from('{"result":6}') }))
      }
      answered(0) // the unloaded latency: a fraction of a millisecond, counted either way
      for (let k = 0; k < 10; k++) answered(5) // past 1.5 × that + 2 ms
      await new Promise((r) => setTimeout(r, 60))
      answered(5) // a window has ended: it is judged
      limits.push(limitOf(admission).limit)
    }
    assert.equal(limits[0], 20, 'warming up: not cut')
    assert.ok(limits[1]! < 20, `an old connection's slow round trips cut it (${limits[1]})`)
  })

  test("priority callers may use the adaptive limit's last share where the call is admitted", () => {
    const admission = new Admission(adaptive({ initialLimit: 4, priority: { users: ['vip'], privilegeNames: [] } }))
    // The trusted peer's identity (203.0.113.9 is the head's address; the default trusts loopback only).
    const trusted = { identityTrusted: true }
    const statuses = (h: Partial<CallHead>): number[] => {
      const r = admitted(60_000, { ...trusted, ...h }, admission)
      return r.port.answers.map((a) => a.status)
    }
    // Three of four for the others (25 % kept), the fourth for a priority caller, none past the limit.
    for (let k = 0; k < 3; k++) assert.deepEqual(statuses({ user: 'someone' }), [])
    assert.deepEqual(statuses({ user: 'someone' }), [503])
    // A claim to be vip from a peer not trusted for identity counts as no one.
    assert.deepEqual(statuses({ user: 'vip', identityTrusted: false }), [503])
    assert.deepEqual(statuses({ user: 'vip' }), [])
    assert.deepEqual(statuses({ user: 'vip' }), [503])
    assert.equal(limitOf(admission).inFlight, 4)
  })

  test('OPTIONS answers 204 with Allow and, for an allowed origin, the preflight headers', () => {
    const { port } = run({ method: 'options', origin: 'https://app.example' }, [])
    const a = port.answers[0]!
    assert.equal(a.status, 204)
    assert.deepEqual(a.headers?.slice(0, 4), [
      'Allow',
      'POST, OPTIONS',
      'Access-Control-Allow-Methods',
      'POST, OPTIONS'
    ])
  })

  test('body bytes in flight are bounded: past the bound OVERLOADED, and the bytes come back when answered', () => {
    const port = new RecordingPort()
    const backend = new RecordingBackend()
    const calls = new Calls({ ...config, maxBodyBytesInFlight: 20 }, inline, backends(backend), port)
    const body = '{"a":2,"b":3}' // 13 bytes
    new Invocation(calls, [body], head({ contentLength: '13' })).begin()
    assert.equal(calls.bodyBytes, 13)
    new Invocation(calls, [body], head({ contentLength: '13' })).begin()
    assert.equal(port.answers.length, 1)
    assert.equal(port.answers[0]!.status, 503)
    assert.match(String(port.answers[0]!.body), /OVERLOADED/)
    // An undeclared (chunked) body counts as it arrives.
    new Invocation(calls, ['{"a":', '2,"b":3}'], head({ contentLength: '' })).begin()
    assert.equal(port.answers.length, 2)
    assert.equal(port.answers[1]!.status, 503)
    backend.sent[0]!.call.settle(gateway.Result.create({ isVoid: true }))
    assert.equal(calls.bodyBytes, 0)
    assert.equal(calls.inFlight, 0)
  })

  test('in-flight limit → OVERLOADED with Retry-After', () => {
    const port = new RecordingPort()
    const backend = new RecordingBackend()
    const calls = new Calls({ ...config, maxInFlight: 1 }, inline, backends(backend), port)
    new Invocation(calls, ['{"a":2,"b":3}'], head()).begin()
    new Invocation(calls, ['{"a":2,"b":3}'], head()).begin()
    assert.equal(port.answers.length, 1)
    assert.equal(port.answers[0]!.status, 503)
    assert.deepEqual(port.answers[0]!.headers, ['Retry-After', String(config.retryAfterSeconds)])
    backend.sent[0]!.call.settle(gateway.Result.create({ isVoid: true })) // takes it off the deadline list
    assert.equal(calls.inFlight, 0)
  })
})

describe('authentication, the first stage for a listener that takes credentials', () => {
  /** API key 'k' is known, 'bad' is refused; a bearer token waits until the test settles it. */
  class SlowVerifier implements Authentication {
    readonly challenge = 'Bearer, ApiKey header="X-API-Key"'
    readonly pending: Array<(o: AuthOutcome) => void> = []
    authenticate(c: Credentials): AuthOutcome | Promise<AuthOutcome> {
      if (c.apiKey === 'k') return { user: 'keyed', privilegeNames: ['p'], clientApplicationName: 'app' }
      if (c.apiKey !== '') return { refused: 'the API key is not known' }
      if (c.authorization === '') return null
      return new Promise((resolve) => this.pending.push(resolve))
    }
  }
  const BODY = '{"a":2,"b":3}' // 13 bytes
  function setup(over: Partial<typeof config> = {}) {
    const port = new RecordingPort()
    const backend = new RecordingBackend()
    const calls = new Calls({ ...config, ...over }, inline, backends(backend), port)
    const auth = new SlowVerifier()
    const call = (chunks: string[], h: Partial<CallHead>, apiKey = '', authorization = ''): Invocation<string[]> => {
      const inv = new Invocation(calls, chunks, head(h), { by: auth, apiKey, authorization, certificate: null })
      inv.begin()
      return inv
    }
    return { port, backend, calls, auth, call }
  }
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  test('bodies held while a token is verified count against maxBodyBytesInFlight; the principal reaches the call', async () => {
    const { port, backend, calls, auth, call } = setup({ maxBodyBytesInFlight: 20 })
    call([BODY], { contentLength: '13', user: 'claimed' }, '', 'Bearer t')
    assert.equal(auth.pending.length, 1, 'the token is being verified')
    assert.deepEqual([calls.bodyBytes, calls.inFlight, backend.sent.length], [13, 1, 0])
    // An anonymous call whose declared body does not fit beside it is refused.
    call([BODY], { contentLength: '13' })
    assert.equal(port.answers.length, 1)
    assert.equal(port.answers[0]!.status, 503)
    assert.match(String(port.answers[0]!.body), /OVERLOADED.*13 body bytes are in progress/s)
    // An undeclared body under verification counts as it arrives: 7 bytes fit, 6 more do not.
    call(['{"a":2,', '"b":3}'], { contentLength: '' }, '', 'Bearer t')
    assert.equal(port.answers.length, 2)
    assert.equal(port.answers[1]!.status, 503)
    assert.deepEqual([calls.bodyBytes, calls.inFlight], [13, 1], 'the refused one gave its bytes back')

    auth.pending[1]!({ user: 'late', privilegeNames: [], clientApplicationName: '' }) // already answered
    auth.pending[0]!({ user: 'jdoe', privilegeNames: ['a', 'b'], clientApplicationName: 'app' })
    await turn()
    assert.equal(backend.sent.length, 1, 'only the verified call goes on')
    const inv = decodeInvoke(backend.sent[0]!.frame)
    assert.deepEqual(
      [inv.context?.user, inv.context?.privilegeNames, inv.context?.clientApplicationName],
      ['jdoe', ['a', 'b'], 'app']
    )
    assert.deepEqual([calls.bodyBytes, calls.inFlight], [13, 1])
    backend.sent[0]!.call.settle(gateway.Result.create({ isVoid: true }))
    assert.equal(port.answers[2]!.status, 204)
    assert.deepEqual([calls.bodyBytes, calls.inFlight], [0, 0])
  })

  test('while a token is verified the request counts against maxInFlight', () => {
    const { port, call } = setup({ maxInFlight: 1 })
    call([BODY], { contentLength: '13' }, '', 'Bearer t')
    call([BODY], { contentLength: '13' })
    assert.equal(port.answers.length, 1)
    assert.match(String(port.answers[0]!.body), /OVERLOADED.*1 requests are in progress/s)
  })

  test('a refused token is a 401 with the challenge; nothing is sent and nothing stays held', async () => {
    const { port, backend, calls, auth, call } = setup()
    call([BODY], { contentLength: '13' }, '', 'Bearer t')
    auth.pending[0]!({ refused: 'the bearer token is not accepted: "exp" claim timestamp check failed' })
    await turn()
    const a = port.answers[0]!
    assert.equal(a.status, 401)
    assert.match(String(a.body), /UNAUTHENTICATED.*exp/s)
    assert.deepEqual(a.headers, ['WWW-Authenticate', 'Bearer, ApiKey header="X-API-Key"'])
    assert.deepEqual([backend.sent.length, calls.bodyBytes, calls.inFlight], [0, 0, 0])
  })

  test('an API key is checked at once; a refused one is 401 before routing, so it learns nothing of what is deployed', () => {
    const { port, backend, call } = setup()
    call([BODY], { contentLength: '13', url: '/nope/calculator/multiply' }, 'bad')
    assert.equal(port.answers[0]!.status, 401)
    call([BODY], { contentLength: '13', user: 'claimed', privilegeNames: 'admin' }, 'k')
    const inv = decodeInvoke(backend.sent[0]!.frame)
    assert.deepEqual([inv.context?.user, inv.context?.privilegeNames], ['keyed', ['p']])
  })

  test('no credential: served as the listener set the head; a preflight needs none', () => {
    const { port, backend, call } = setup()
    call([BODY], { contentLength: '13', user: 'set-by-listener' })
    assert.equal(decodeInvoke(backend.sent[0]!.frame).context?.user, 'set-by-listener')
    call([], { method: 'options', origin: 'https://app.example' }, 'bad')
    assert.equal(port.answers[0]!.status, 204)
  })

  test('a client gone while its token is verified: nothing is sent, its slot and bytes come back', async () => {
    const { backend, calls, auth, call } = setup()
    const inv = call([BODY], { contentLength: '13' }, '', 'Bearer t')
    inv.onAborted()
    assert.deepEqual([calls.bodyBytes, calls.inFlight], [0, 0])
    auth.pending[0]!({ user: 'jdoe', privilegeNames: [], clientApplicationName: '' })
    await turn()
    assert.deepEqual([backend.sent.length, calls.bodyBytes, calls.inFlight], [0, 0, 0])
  })
})

test('the uWS support check accepts the Node ABIs the installed build has and says what to do otherwise', () => {
  assert.equal(uwsSupportError('20.20.2', '115', ['115']), null)
  assert.equal(uwsSupportError('24.21.0', '137', ['115', '127', '137', '141']), null)
  assert.equal(
    uwsSupportError('22.3.0', '127', ['115']),
    'the installed uWebSockets.js build has binaries for Node 20 only; this is Node 22.3.0 (ABI 127). ' +
      'On this host run Node 20 (npm ci installs its build), or run the container image, which has Node 24 and its build (npm run image)'
  )
  assert.match(uwsSupportError('24.1.0', '137', []) ?? '', /has no binary for this platform; this is Node 24\.1\.0/)
  // The host's own install: the lock file's build has this Node's binary.
  assert.deepEqual(installedUwsAbis().includes(process.versions.modules), true)
})
