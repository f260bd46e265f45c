import { newRequestId } from './request-id'
import { CoarseDeadlineList, DeadlineList, type Deadline } from '../../common/contract/deadlines'
import { SharedBufferPool } from '../../common/bytes/shared-buffers'
import { isErrorCode, type Failure } from '../../common/errors/codes'
import { errorMessage } from '../../common/errors/internal'
import type { GatewayConfig } from '../../common/config/config'
import type { PendingCall } from '../dispatch/pending'
import { isSlicedFrame, type PrepareTask, type Prepared } from '../prepare/prepare'
import { framePieces } from '../../common/protocol/invoke-frame'
import type { OutFrame } from '../../common/protocol/frame'
import type { gateway } from '../../common/protocol/generated/gateway'
import { splitNames, type CallHead } from './call-head'
import { planCall, isRefusal, declaredLengthOf, bodyTooLarge, type CallPlan } from './plan'
import { BodyReader } from './body'
import { CallBounds } from './bounds'
import { RateLimited, type LimitKeys, type RateLimiter, type Verdict } from '../admission/rate-limits'
import type { AdaptiveLimit, Admission } from '../admission/concurrency'
import { CONTENT_TYPES, corsPolicy, preflightAnswer, problemAnswer, type Answer, type CorsPolicy } from './answer'
import type {
  AuthOutcome,
  Backends,
  BodySink,
  CallObserver,
  CallOutcome,
  Credentials,
  HttpPort,
  ObservedCall,
  Preparer,
  Principal
} from './interfaces'
import type { MethodInfo } from '../dispatch/catalog'
import { isValidTraceparent, isValidTracestate, newTraceparent } from '../../common/observability/trace-context'

const EMPTY = new Uint8Array(0)
/** The microservice's own deadline is a backstop behind ours: our timer fires first and sends Cancel. */
const CANCEL_GRACE_MS = 1000
/** The smallest buffer of the large-body pool, and the most bytes it keeps unused. */
const LARGE_BODY_MIN = 64 * 1024
const LARGE_BODIES_KEPT = 64 * 1024 * 1024
/**
 * uWS's throughput floor for a body (HTTP_RECEIVE_THROUGHPUT_BYTES × HTTP_IDLE_TIMEOUT_S): it resets its
 * idle timeout only when this much has arrived since the last reset. The body timeout is reset by the
 * same rule, so it always fires before uWS would close the connection without an answer
 * (docs/security.md, "Slow bodies").
 */
const BODY_PROGRESS_BYTES = 16 * 1024 * 10
/** The body timeout's clock is read this often, not at every call: it may fire this much later, twice over. */
const BODY_TIMEOUT_RESOLUTION_MS = 100

/** The close option in a Connection header (a comma-separated token list, any case). */
const CLOSE = /(?:^|,)\s*close\s*(?:,|$)/i

/** The calls of one gateway and what they share: settings, the pool, the backends, the HTTP port, counters. */
export class Calls<R> {
  cors: CorsPolicy
  readonly retryAfter: string
  /** Requests holding a body or a call right now, on this thread (the drain waits for these). */
  inFlight = 0
  /** Requests answered since start (any status), on this thread. */
  answered = 0
  /**
   * The in-flight bounds, shared by every listener thread: requests, and body bytes reserved by
   * requests in progress (declared lengths, or what arrived of undeclared ones).
   */
  readonly bounds: CallBounds
  /**
   * Set when the platform drains: requests are still served (a balancer may not have noticed yet),
   * and every answer carries Connection: close, so each connection ends after its next answer.
   */
  closing = false
  /** While closing, told after each answer or abort (the drain waits for quiet on it). */
  onQuiet: (() => void) | null = null
  /** Metrics, the access log, tracing: null costs nothing per request. */
  observer: CallObserver | null = null
  /** RATE_LIMITS: null when there are no rules, and then nothing is counted. */
  limiter: RateLimiter | null = null
  /** ADMISSION.adaptive: each microservice's adaptive limit on this thread; null when off. */
  admission: Admission | null = null
  /** The calls that are out, by their executing timeout. */
  readonly deadlines: DeadlineList
  /** The requests whose body is arriving, by their body timeout. */
  readonly bodyDeadlines: CoarseDeadlineList
  /** Buffers for the bodies a worker splits, used again once their frame is written. */
  readonly largeBodies: SharedBufferPool
  private callIds = 0

  constructor(
    public config: GatewayConfig,
    readonly preparer: Preparer,
    readonly backends: Backends,
    readonly http: HttpPort<R>,
    /** The shared memory of the bounds, when these are one listener thread's calls of several. */
    shared?: SharedArrayBuffer
  ) {
    this.bounds = new CallBounds(config.maxInFlight, config.maxBodyBytesInFlight, shared)
    this.cors = corsPolicy(config.cors.allowedOrigins, config.cors.maxAgeSeconds, config.cors.allowIdentityHeaders)
    this.retryAfter = String(config.retryAfterSeconds)
    this.deadlines = new DeadlineList(config.executingTimeoutMs)
    this.bodyDeadlines = new CoarseDeadlineList(config.bodyTimeoutMs, BODY_TIMEOUT_RESOLUTION_MS)
    this.largeBodies = new SharedBufferPool(LARGE_BODY_MIN, Math.min(config.maxBodyBytesInFlight, LARGE_BODIES_KEPT))
  }

  /** A reload's trust and CORS (Gateway.reconfigure); the bounds and the timeout stay as they started. */
  reconfigure(config: GatewayConfig): void {
    this.config = config
    this.cors = corsPolicy(config.cors.allowedOrigins, config.cors.maxAgeSeconds, config.cors.allowIdentityHeaders)
  }

  /** Body bytes held by requests in progress on every thread. */
  get bodyBytes(): number {
    return this.bounds.bodyBytes
  }

  /**
   * Answers every call that is out with `failure` (a listener thread that is failing: its calls are
   * answered, not left to hang). Calls still reading their body end with their connection.
   */
  abandonAll(failure: Failure): number {
    const out = this.deadlines.takeAll()
    for (const d of out) (d as Invocation<R>).abandon(failure)
    return out.length
  }

  /** Call ids are unique per gateway, so they stay unique over every connection. */
  nextCallId(): number {
    this.callIds = this.callIds >= 0xffffffff ? 1 : this.callIds + 1
    return this.callIds
  }
}

/**
 * One request through the gateway. The stages, in the order a request meets them and in the order
 * of this class: authenticate (a listener that takes credentials) → plan (no body needed:
 * 404/400/415 without a round trip) → read the body → split and encode (inline, or on a worker for a
 * large body) → dispatch → settle → answer. Every field is set in the constructor, so all
 * invocations share one hidden class.
 */
export class Invocation<R> implements PendingCall, BodySink, ObservedCall, Deadline, LimitKeys {
  callId = 0
  connection: PendingCall['connection'] = null
  /**
   * In one deadline list of Calls: the body timeout's while the body arrives (`receiving`), the
   * executing timeout's while the call is out.
   */
  deadlineAt = 0
  deadlinePrev: Deadline | null = null
  deadlineNext: Deadline | null = null
  private aborted = false
  private answered = false
  private counted = false
  private plan: CallPlan | null = null
  /** A refused call's microservice and method, when planning got that far (for the observer). */
  private refusedMicroservice = ''
  private refusedMethod: MethodInfo | null = null
  private reader: BodyReader | null = null
  /** Whether the body's length was not declared: its bytes count against the bound as they arrive. */
  private undeclared = false
  /** In the body timeout's list: the body is arriving. */
  private receiving = false
  /** Body bytes since the body timeout was last reset. */
  private progress = 0
  /** A call waiting on something while its body is read (readWhile): what to do with the body. */
  private held: ((body: Uint8Array) => void) | null = null
  readonly requestId: string
  /** Body bytes this request holds against the bound of Calls. */
  private reserved = 0
  readonly startedAt: number
  /** The traceparent sent on: the client's (if valid), the observer's span, or a new one ('' for none). */
  readonly traceparent: string
  private readonly tracestate: string
  private readonly span: unknown = null
  status = 0
  code = ''
  bytesIn = 0
  bytesOut = 0
  private address: string | null = null
  /** The RateLimit fields (and a 429's Retry-After) every answer to this call carries; null: none. */
  private limitFields: string[] | null = null
  /** The microservice's adaptive limit this call is counted against (ADMISSION), until answered. */
  private admitted: AdaptiveLimit | null = null
  /** When the call was sent to the microservice (performance.now()), for the adaptive limit's samples. */
  private sentAt = 0
  /** It went out on a connection still warming up (ADMISSION.warmupMs): its round trip may not cut the limit. */
  private warming = false

  constructor(
    private readonly calls: Calls<R>,
    private readonly res: R,
    private head: CallHead,
    /** What the request presents to its listener's Authentication; null where there is none (the gateway). */
    private readonly credentials: Credentials | null = null
  ) {
    this.requestId = head.requestId !== '' ? head.requestId : newRequestId()
    const sent = head.traceparent !== '' && isValidTraceparent(head.traceparent)
    let traceparent = sent ? head.traceparent : calls.config.tracing.generateTraceparent ? newTraceparent() : ''
    this.tracestate = sent && head.tracestate !== '' && isValidTracestate(head.tracestate) ? head.tracestate : ''
    const o = calls.observer
    this.startedAt = o === null ? 0 : performance.now()
    if (o !== null) {
      const started = o.started(traceparent)
      if (started !== null) {
        traceparent = started.traceparent
        this.span = started.span
      }
    }
    this.traceparent = traceparent
  }

  get microservice(): string {
    return this.plan?.microservice ?? this.refusedMicroservice
  }

  get method(): MethodInfo | null {
    return this.plan?.method ?? this.refusedMethod
  }

  get url(): string {
    return this.head.url
  }

  get httpMethod(): string {
    return this.head.method
  }

  /** Read from the socket once: uWS makes a new ArrayBuffer per read, which shows in the gateway's profile. */
  clientAddress(): string {
    if (this.address === null) this.address = this.aborted ? '' : this.calls.http.remoteAddress(this.res)
    return this.address
  }

  /**
   * Stage 1, inside the HTTP callback: authenticate, then the checks that need no body, then start
   * reading it. `body` is passed by a caller that has read it already.
   */
  begin(body?: Uint8Array): void {
    const calls = this.calls
    if (this.head.method === 'options') return this.write(preflightAnswer(calls.cors, this.head.origin, this.requestId))
    const c = this.credentials
    if (c !== null) {
      const outcome = c.by.authenticate(c)
      if (outcome instanceof Promise) {
        return this.readWhile(
          outcome,
          (o, b) => (this.authenticated(o) ? this.route(b) : calls.largeBodies.release(b)),
          body
        )
      }
      if (!this.authenticated(outcome)) return
    }
    this.route(body)
  }

  /** Stage 1a: the principal's identity replaces whatever the head claimed; a refusal is a 401. */
  private authenticated(o: AuthOutcome): boolean {
    if (o !== null && 'refused' in o) {
      this.fail({ code: 'UNAUTHENTICATED', detail: o.refused })
      return false
    }
    if (o !== null) this.head = withPrincipal(this.head, o)
    return true
  }

  /** Stage 1b: the plan, or its refusal; a microservice a rollout announced is waited for. */
  private route(body?: Uint8Array): void {
    const calls = this.calls
    const plan = planCall(this.head, calls.config, calls.backends)
    if (!isRefusal(plan)) return this.proceed(plan, body)
    this.refusedMicroservice = plan.microservice ?? ''
    this.refusedMethod = plan.method ?? null
    const arrival = plan.arrival
    if (arrival === undefined) {
      if (body !== undefined) calls.largeBodies.release(body)
      return this.fail(plan.refusal, plan.format)
    }
    // Not served here yet: the call waits until it is and is planned again, or gets its 404 when the
    // announcement runs out.
    this.readWhile(
      arrival,
      (arrived, b) => {
        if (arrived) return this.route(b)
        calls.largeBodies.release(b)
        this.fail(plan.refusal, plan.format)
      },
      body
    )
  }

  private proceed(plan: CallPlan, body?: Uint8Array): void {
    const calls = this.calls
    this.plan = plan
    if (calls.limiter !== null) {
      const m = plan.method
      const verdict = calls.limiter.check(plan.microservice, m.service, m.name, plan.mode, this)
      // A cluster rule asking Redis for more calls: the body is read (and counted) meanwhile.
      if (verdict instanceof Promise)
        return this.readWhile(
          verdict,
          (v, b) => (this.withinLimits(v) ? this.afterLimits(plan, b) : calls.largeBodies.release(b)),
          body
        )
      if (!this.withinLimits(verdict)) {
        if (body !== undefined) calls.largeBodies.release(body)
        return
      }
    }
    this.afterLimits(plan, body)
  }

  /** Past the rate limits: the adaptive limit, the in-flight bounds, then the body. */
  private afterLimits(plan: CallPlan, body?: Uint8Array): void {
    const calls = this.calls
    if (calls.admission !== null && !this.admittedBy(calls.admission, plan)) {
      if (body !== undefined) calls.largeBodies.release(body)
      return
    }
    if (!this.admit(plan.declaredLength)) return
    if (body !== undefined) {
      // Read already, so counted whatever the bound: it is in memory either way.
      if (plan.declaredLength < 0) this.reserveHeld(body.length)
      return this.prepare(body)
    }
    this.undeclared = plan.declaredLength < 0
    this.reader = new BodyReader(
      plan.declaredLength,
      calls.config.maxBodyBytes,
      calls.preparer.inlineMaxBytes,
      calls.largeBodies
    )
    this.readBody()
  }

  /** Stage 1c: the rate limits the call matches count it, or refuse it (429) before its body is read. */
  private withinLimits(verdict: Verdict): boolean {
    if (verdict === null) return true
    if (!(verdict instanceof RateLimited)) {
      this.limitFields = verdict
      return true
    }
    this.limitFields = verdict.headers
    this.fail(verdict.failure)
    return false
  }

  /** Stage 1d: the microservice's adaptive limit has room (ADMISSION), or the call is shed at once (503). */
  private admittedBy(admission: Admission, plan: CallPlan): boolean {
    const limit = admission.of(plan.microservice, plan.method)
    const h = this.head
    const p = admission.settings.priority
    const priority =
      h.identityTrusted &&
      (p.users.length > 0 || p.privilegeNames.length > 0) &&
      admission.isPriority(h.user, splitNames(h.privilegeNames))
    if (limit.tryAcquire(priority)) {
      this.admitted = limit
      return true
    }
    const unloaded = limit.unloadedMs
    this.fail({
      code: 'OVERLOADED',
      detail: `${plan.microservice}/${plan.method.service}/${plan.method.name} has ${limit.inFlight} calls in progress, its adaptive limit of ${Math.floor(limit.limit)}${Number.isFinite(unloaded) ? ` (round trips are slower than ${admission.settings.tolerance} × its ${unloaded.toFixed(1)} ms unloaded)` : ''}; try again after Retry-After`
    })
    return false
  }

  limitUser(): string {
    return this.head.identityTrusted ? this.head.user : ''
  }

  limitCertificate(): string {
    return this.head.certificateSubject
  }

  limitAddress(): string {
    const h = this.head
    return h.identityTrusted && h.ip !== '' ? h.ip : this.clientAddress()
  }

  /** Counts the request against maxInFlight and its declared body against maxBodyBytesInFlight, or refuses it. */
  private admit(declaredLength: number): boolean {
    const calls = this.calls
    const bounds = calls.bounds
    if (!bounds.enter()) {
      this.fail({ code: 'OVERLOADED', detail: `${bounds.inFlight} requests are in progress` })
      return false
    }
    const declared = Math.max(0, declaredLength)
    if (!bounds.reserve(declared)) {
      bounds.leave()
      this.fail({
        code: 'OVERLOADED',
        detail: `${bounds.bodyBytes} body bytes are in progress; the bound is ${calls.config.maxBodyBytesInFlight}`
      })
      return false
    }
    calls.inFlight++
    this.counted = true
    this.reserved = declared
    return true
  }

  /**
   * Reads the body, counted against the in-flight bounds like any other, while something the call
   * needs settles (a token verified, an announced microservice arriving), then goes on with both.
   * uWS hands a body over only inside the request's callback, so it cannot wait until then.
   */
  private readWhile<T>(pending: Promise<T>, next: (value: T, body: Uint8Array) => void, body?: Uint8Array): void {
    const calls = this.calls
    const declared = declaredLengthOf(this.head)
    const tooLarge = bodyTooLarge(declared, calls.config.maxBodyBytes)
    if (tooLarge !== null) return this.fail(tooLarge)
    if (!this.admit(declared)) return
    const wait = (b: Uint8Array): void => {
      if (declared < 0 && body !== undefined) this.reserveHeld(b.length)
      pending.then(
        (value) => {
          if (this.aborted || this.answered) return calls.largeBodies.release(b)
          this.release() // what goes on is counted again
          next(value, b)
        },
        (err: unknown) => {
          calls.largeBodies.release(b)
          this.fail({ code: 'INTERNAL', detail: `the call could not go on: ${errorMessage(err)}` })
        }
      )
    }
    if (body !== undefined) return wait(body)
    this.held = wait
    this.undeclared = declared < 0
    this.reader = new BodyReader(declared, calls.config.maxBodyBytes, calls.preparer.inlineMaxBytes, calls.largeBodies)
    this.readBody()
  }

  /** Stage 2 begins: the body's chunks come to onChunk, under the body timeout. */
  private readBody(): void {
    this.receiving = true
    this.progress = 0
    this.calls.bodyDeadlines.add(this)
    this.calls.http.readBody(this.res, this)
  }

  /** The body has arrived, or the request ended: out of the body timeout's list. */
  private received(): void {
    this.receiving = false
    this.calls.bodyDeadlines.remove(this)
  }

  /** Stage 2: the body, chunk by chunk (a chunk is valid only during this call: the reader copies it). */
  onChunk(chunk: ArrayBuffer, last: boolean): void {
    if (this.answered || this.reader === null) return
    const refused = this.reader.push(new Uint8Array(chunk))
    if (refused !== null) return this.fail(refused)
    if (this.undeclared && !this.reserve(chunk.byteLength)) {
      return this.fail({
        code: 'OVERLOADED',
        detail: `the body bytes in progress passed the bound of ${this.calls.config.maxBodyBytesInFlight}`
      })
    }
    if (!last) {
      this.progress += chunk.byteLength
      if (this.progress >= BODY_PROGRESS_BYTES) {
        this.progress = 0
        this.calls.bodyDeadlines.remove(this)
        this.calls.bodyDeadlines.add(this)
      }
      return
    }
    this.received()
    const body = this.reader.finish()
    this.reader = null
    this.undeclared = false
    const held = this.held
    if (held === null) return this.prepare(body)
    this.held = null
    held(body)
  }

  /** Stage 3: split the arguments and encode the Invoke frame. */
  private prepare(body: Uint8Array): void {
    this.reader = null
    this.bytesIn = body.length
    const h = this.head
    const plan = this.plan!
    const method = plan.method
    this.callId = this.calls.nextCallId()
    const task: PrepareTask = {
      id: this.callId,
      body,
      mode: plan.mode,
      format: plan.format,
      service: method.service,
      method: method.name,
      sequence: plan.sequence,
      parameterCount: method.parameterCount,
      context: h.identityTrusted
        ? {
            locale: h.locale === '' ? null : h.locale,
            privilegeNames: splitNames(h.privilegeNames),
            requestId: this.requestId,
            sessionId: h.sessionId === '' ? null : h.sessionId,
            user: h.user === '' ? null : h.user,
            clientApplicationName: h.clientApplicationName === '' ? null : h.clientApplicationName,
            ip: h.ip === '' ? this.clientAddress() : h.ip,
            traceparent: this.traceparent === '' ? null : this.traceparent,
            tracestate: this.tracestate === '' ? null : this.tracestate,
            certificateSubject: h.certificateSubject === '' ? null : h.certificateSubject
          }
        : // Claims from an untrusted peer are dropped: only what the socket says is kept.
          {
            locale: h.locale === '' ? null : h.locale,
            privilegeNames: [],
            requestId: this.requestId,
            sessionId: null,
            user: null,
            clientApplicationName: null,
            ip: this.clientAddress(),
            traceparent: this.traceparent === '' ? null : this.traceparent,
            tracestate: this.tracestate === '' ? null : this.tracestate,
            certificateSubject: h.certificateSubject === '' ? null : h.certificateSubject
          },
      timeoutMs: this.calls.config.executingTimeoutMs + CANCEL_GRACE_MS,
      maxDepth: this.calls.config.maxDepth
    }
    const preparer = this.calls.preparer
    if (preparer.isInline(task)) this.dispatch(preparer.runInline(task), body)
    else
      preparer.run(task, null).then(
        (r) => this.dispatch(r, body),
        () => this.dispatch({ code: 'INTERNAL', detail: 'the worker pool failed' }, body)
      )
  }

  /**
   * Stage 4: send the frame to the microservice, under the executing timeout. A body from the
   * large-body pool goes back to it once the frame holding it is written (or will not be).
   */
  private dispatch(r: Prepared, body: Uint8Array): void {
    const bodies = this.calls.largeBodies
    if (this.aborted || this.answered) {
      bodies.release(body)
      return this.release()
    }
    let frame: OutFrame
    if (r instanceof Uint8Array) frame = r
    else if (isSlicedFrame(r)) frame = framePieces(r, () => bodies.release(body))
    else {
      bodies.release(body)
      return this.fail(r)
    }
    this.calls.deadlines.add(this)
    if (this.admitted !== null) this.sentAt = performance.now()
    this.plan!.backend.send(this, frame)
    // Admitted calls only (and not one the send already failed): their round trip is a sample.
    if (this.admitted === null) return
    const c = this.connection
    this.warming = c !== null && this.sentAt - c.readyAt < this.calls.admission!.settings.warmupMs
  }

  /** Stage 5 (PendingCall): the microservice answered, or dispatch gave up on the call. */
  settle(outcome: CallOutcome): void {
    this.calls.deadlines.remove(this)
    if (this.admitted !== null && !isFailure(outcome)) {
      // A round trip the microservice answered (its value or its error): the adaptive limit's sample.
      const now = performance.now()
      this.admitted.sample(now - this.sentAt, now, this.warming)
    }
    if (this.aborted || this.answered) return
    if (isFailure(outcome)) return this.fail(outcome)
    const e = outcome.error as gateway.Error | null | undefined
    if (e != null) {
      const code = isErrorCode(e.code) ? e.code : 'INTERNAL'
      return this.fail(e.status > 0 ? { code, detail: e.detail, status: e.status } : { code, detail: e.detail })
    }
    // Stage 6: the answer, the body exactly as the microservice serialized it.
    if (outcome.isVoid) return this.reply(204, EMPTY)
    this.reply(200, outcome.body)
  }

  /** The executing timeout passed, or the body timeout while the body arrives. */
  onDeadline(): void {
    if (this.receiving) return this.bodyStalled()
    if (this.aborted || this.answered) return
    if (this.admitted !== null) this.admitted.sample(performance.now() - this.sentAt, performance.now(), this.warming)
    this.connection?.cancel(this)
    this.fail({
      code: 'EXECUTION_TIMEOUT',
      detail: `no answer within the executing timeout of ${this.calls.config.executingTimeoutMs} ms; the call was cancelled`
    })
  }

  /**
   * The body stalled: answered 408 and the connection closed (uWS would close it without an answer),
   * logged with what arrived.
   */
  private bodyStalled(): void {
    this.receiving = false
    if (this.aborted || this.answered) return
    const declared = declaredLengthOf(this.head)
    this.bytesIn = this.reader?.receivedBytes ?? 0
    this.fail({
      code: 'BODY_TIMEOUT',
      detail: `${this.bytesIn} of the body's ${declared < 0 ? 'undeclared length' : `${declared} bytes`} arrived; less than ${BODY_PROGRESS_BYTES} bytes came within ${this.calls.config.bodyTimeoutMs} ms`
    })
  }

  /** A failing listener thread answers the call it held (see Calls.abandonAll). */
  abandon(failure: Failure): void {
    if (this.aborted || this.answered) return
    this.connection?.cancel(this)
    this.fail(failure)
  }

  /** The client went away. The response must not be touched again. */
  onAborted(): void {
    this.aborted = true
    if (this.receiving) {
      this.received()
      // What arrived before the client went away, for the access log.
      this.bytesIn = this.reader?.receivedBytes ?? 0
    } else this.calls.deadlines.remove(this)
    this.connection?.cancel(this)
    this.release()
    if (!this.answered && this.calls.observer !== null) {
      // nginx's 499: the client closed the connection before the answer.
      this.status = 499
      this.code = 'CLIENT_CLOSED'
      this.calls.observer.finished(this, this.span)
    }
    if (this.calls.closing) this.calls.onQuiet?.()
  }

  private reply(status: number, body: Uint8Array): void {
    const contentType = status === 204 ? null : CONTENT_TYPES[this.plan!.format]
    this.write({
      status,
      contentType,
      body,
      requestId: this.requestId,
      origin: this.head.origin,
      headers: this.limitFields,
      close: false
    })
  }

  private fail(f: Failure, format = this.plan?.format ?? 'json'): void {
    this.code = f.code
    const answer = problemAnswer(f, format, this.requestId, this.head.origin, this.calls.retryAfter)
    if (f.code === 'UNAUTHENTICATED' && this.credentials !== null)
      answer.headers = [...(answer.headers ?? []), 'WWW-Authenticate', this.credentials.by.challenge]
    if (this.limitFields !== null) answer.headers = [...(answer.headers ?? []), ...this.limitFields]
    this.write(answer)
  }

  private write(answer: Answer): void {
    if (this.aborted || this.answered) return
    if (this.receiving) this.received()
    // A client that asks to close is told so (RFC 9112 §9.6: the server SHOULD send "close"). uWS
    // closes after the answer when the header is "close" alone, but then writes no header (a client
    // that sees none takes the connection for open; wrk counts the close as a read error); a list
    // that holds "close" it does not see, and `close` makes it close and write the header itself.
    if (this.head.connection !== '' && CLOSE.test(this.head.connection))
      answer = /^close\s*$/i.test(this.head.connection)
        ? { ...answer, headers: [...(answer.headers ?? []), 'Connection', 'close'] }
        : { ...answer, close: true }
    this.answered = true
    this.calls.answered++
    const o = this.calls.observer
    if (o !== null) {
      this.status = answer.status
      this.bytesOut = answer.body.length
      o.finished(this, this.span)
    }
    const calls = this.calls
    if (!calls.closing) {
      calls.http.write(this.res, answer)
      return this.release()
    }
    calls.http.write(this.res, answer.close ? answer : { ...answer, close: true })
    this.release()
    calls.onQuiet?.()
  }

  /** Reserves `n` more body bytes against the shared bound; false when that would pass it. */
  private reserve(n: number): boolean {
    if (!this.calls.bounds.reserve(n)) return false
    this.reserved += n
    return true
  }

  /** Counts bytes already held (a body read before the call was admitted), past the bound if need be. */
  private reserveHeld(n: number): void {
    this.calls.bounds.hold(n)
    this.reserved += n
  }

  private release(): void {
    if (this.admitted !== null) {
      this.admitted.release()
      this.admitted = null
    }
    if (!this.counted) return
    this.counted = false
    const calls = this.calls
    calls.inFlight--
    calls.bounds.leave()
    calls.bounds.unreserve(this.reserved)
    this.reserved = 0
  }
}

/** A Failure is plain data with a code; a decoded Result is a protobuf message without one. */
export function isFailure(o: CallOutcome): o is Failure {
  return 'code' in o && typeof (o as Failure).code === 'string'
}

/** The head with the principal's identity in place of whatever the client claimed. */
function withPrincipal(head: CallHead, p: Principal): CallHead {
  return {
    ...head,
    user: p.user,
    privilegeNames: p.privilegeNames.join(';'),
    clientApplicationName: p.clientApplicationName
  }
}
