import { randomUUID } from 'node:crypto'
import type { HttpResponse } from 'uWebSockets.js'
import type { RequestHead } from '../http/head'
import { parseRoute } from '../http/head'
import { negotiateCached, guessFormat } from '../http/negotiate'
import { writeAnswer, problemAnswer, CONTENT_TYPES, ALLOW, ALLOWED_HEADERS } from '../http/respond'
import { isErrorCode, type Failure } from '../errors/codes'
import { isSequenceName, SEQUENCES, type SequenceName } from '../serializers/serializer'
import type { ApiMode, BodyFormat } from '../args/split'
import type { InvokeTask, InvokeTaskResult } from '../pool/task'
import type { PendingCall } from '../dispatch/pending'
import type { MicroserviceGroup } from '../dispatch/client'
import type { MethodInfo } from '../dispatch/catalog'
import type { gateway } from '../protocol/generated/gateway'
import type { Gateway } from '../http/server'

const EMPTY = new Uint8Array(0)
const CANCEL_GRACE_MS = 1000

/**
 * One HTTP request through the gateway, top to bottom:
 * head checks → plan (catalog lookup) → body → split + encode (inline or pool) → dispatch → answer.
 * Every field is set in the constructor, so all invocations share one hidden class.
 */
export class Invocation implements PendingCall {
  callId = 0
  connection: PendingCall['connection'] = null
  timer: NodeJS.Timeout | null = null
  private aborted = false
  private answered = false
  private counted = false
  private format: BodyFormat = 'json'
  private mode: ApiMode = 'ROA'
  private sequence: SequenceName = 'betaParamArrayJsonInOutSequence'
  private client: MicroserviceGroup | null = null
  private method: MethodInfo | null = null
  private requestId: string
  private remoteIp = ''
  private body: Buffer | null = null
  private chunks: Buffer[] | null = null
  private received = 0

  constructor (private readonly gw: Gateway, private readonly res: HttpResponse, private readonly head: RequestHead) {
    this.requestId = head.requestId !== '' ? head.requestId : randomUUID()
  }

  /** Runs the checks that need no body, then starts reading it. Called inside the uWS route callback. */
  begin (): void {
    const head = this.head
    const config = this.gw.config
    if (head.method === 'options') return this.preflight()
    if (head.method !== 'post') return this.fail({ code: 'METHOD_NOT_ALLOWED', detail: `${head.method.toUpperCase()} is not allowed; use POST (or OPTIONS for CORS preflight)` })
    const route = parseRoute(head.url)
    if (route === null) return this.fail({ code: 'ROUTE_NOT_FOUND', detail: `'${head.url}' is not /{microservice}/{service}/{method}` })

    const negotiation = negotiateCached(head.contentType, head.accept)
    if ('code' in negotiation) {
      this.format = guessFormat(head.contentType, head.accept)
      return this.fail(negotiation)
    }
    this.format = negotiation.format

    const apiId = head.apiId === '' ? config.defaultApiId : head.apiId
    if (apiId !== 'ROA' && apiId !== 'RMC') return this.fail({ code: 'UNKNOWN_API_ID', detail: `X-PLATFORM-API-ID '${apiId}' is neither ROA nor RMC (case sensitive)` })
    this.mode = apiId
    const sequence = head.sequenceName === '' ? config.defaultSequenceName : head.sequenceName
    if (!isSequenceName(sequence)) return this.fail({ code: 'UNKNOWN_SEQUENCE', detail: `X-PLATFORM-Sequence-Name '${sequence}' is not one of ${Object.keys(SEQUENCES).join(', ')}` })
    this.sequence = sequence
    const seqFormat = SEQUENCES[sequence].format
    if (seqFormat !== this.format) return this.fail({ code: 'SEQUENCE_FORMAT_MISMATCH', detail: `the body is ${this.format.toUpperCase()} but ${sequence} reads ${seqFormat.toUpperCase()}` })

    const [msName, svcName, methodName] = route
    const client = this.gw.directory.get(msName)
    if (client === undefined) return this.fail({ code: 'UNKNOWN_MICROSERVICE', detail: `no microservice named '${msName}' is deployed` })
    const unavailable = client.unavailableReason()
    const catalog = client.catalog
    if (unavailable !== null || catalog === null) return this.fail({ code: 'MICROSERVICE_UNAVAILABLE', detail: unavailable ?? `microservice '${msName}' has not completed its handshake` })
    const methods = catalog.service(svcName)
    if (methods === undefined) return this.fail({ code: 'UNKNOWN_SERVICE', detail: `microservice '${msName}' has no remotely enabled service '${svcName}'` })
    const method = methods.get(methodName)
    if (method === undefined) return this.fail({ code: 'UNKNOWN_METHOD', detail: `service '${svcName}' has no method '${methodName}'` })
    if (this.mode === 'ROA' && method.parameterCount !== 1) {
      return this.fail({ code: 'ROA_NEEDS_ONE_PARAMETER', detail: `${svcName}.${methodName} has ${method.parameterCount} parameters; ROA calls only methods with exactly one, use RMC (X-PLATFORM-API-ID: RMC)` })
    }
    this.client = client
    this.method = method

    if (this.gw.inFlight >= config.maxInFlight) return this.fail({ code: 'OVERLOADED', detail: `${this.gw.inFlight} requests are in progress` })
    // uWS refuses a malformed Content-Length before we run; NaN would still read as "unknown length".
    const n = head.contentLength === '' ? -1 : Number(head.contentLength)
    const declared = Number.isNaN(n) ? -1 : n
    if (declared > config.maxBodyBytes) return this.fail({ code: 'BODY_TOO_LARGE', detail: `the body has ${declared} bytes; the limit is ${config.maxBodyBytes}` })
    if (head.ip === '') this.remoteIp = remoteAddress(this.res)
    this.gw.inFlight++
    this.counted = true
    // A body for the pool gets its own ArrayBuffer (movable to a worker); a small one comes from
    // Node's shared slab, which is much cheaper to allocate.
    if (declared > 0) this.body = declared > this.gw.pool.options.inlineMaxBytes ? Buffer.allocUnsafeSlow(declared) : Buffer.allocUnsafe(declared)
    else if (declared < 0) this.chunks = []
    this.res.onData((chunk, isLast) => this.onData(chunk, isLast))
  }

  private onData (chunk: ArrayBuffer, isLast: boolean): void {
    if (this.answered) return
    const n = chunk.byteLength
    if (this.body !== null) {
      // uWS enforces Content-Length framing, so the chunk fits; it is detached on return: copy now.
      this.body.set(new Uint8Array(chunk), this.received)
    } else if (this.chunks !== null && n > 0) {
      if (this.received + n > this.gw.config.maxBodyBytes) {
        return this.fail({ code: 'BODY_TOO_LARGE', detail: `the body exceeds the limit of ${this.gw.config.maxBodyBytes} bytes` })
      }
      this.chunks.push(Buffer.from(new Uint8Array(chunk)))
    }
    this.received += n
    if (isLast) this.onBody()
  }

  private onBody (): void {
    let body: Uint8Array
    if (this.body !== null) body = this.body
    else if (this.chunks !== null && this.received > 0) {
      const all = this.received > this.gw.pool.options.inlineMaxBytes ? Buffer.allocUnsafeSlow(this.received) : Buffer.allocUnsafe(this.received)
      let at = 0
      for (const c of this.chunks) { all.set(c, at); at += c.length }
      body = all
    } else body = EMPTY
    this.chunks = null
    this.body = null
    const h = this.head
    const method = this.method!
    this.callId = this.gw.nextCallId()
    const task: InvokeTask = {
      id: this.callId,
      body,
      mode: this.mode,
      format: this.format,
      service: method.service,
      method: method.name,
      sequence: this.sequence,
      parameterCount: method.parameterCount,
      context: {
        locale: h.locale === '' ? null : h.locale,
        privilegeNames: splitNames(h.privilegeNames),
        requestId: this.requestId,
        sessionId: h.sessionId === '' ? null : h.sessionId,
        user: h.user === '' ? null : h.user,
        clientApplicationName: h.clientApplicationName === '' ? null : h.clientApplicationName,
        ip: h.ip === '' ? this.remoteIp : h.ip
      },
      // The microservice's own deadline is a backstop behind ours: our timer fires first and sends Cancel.
      timeoutMs: this.gw.config.executingTimeoutMs + CANCEL_GRACE_MS,
      maxDepth: this.gw.config.maxDepth
    }
    const pool = this.gw.pool
    if (pool.isInline(task)) this.onPrepared(pool.runInline(task))
    else pool.run(task, null).then((r) => this.onPrepared(r), () => this.onPrepared({ code: 'INTERNAL', detail: 'the worker pool failed' }))
  }

  private onPrepared (r: InvokeTaskResult): void {
    if (this.aborted || this.answered) return this.release()
    if (!(r instanceof Uint8Array)) return this.fail(r)
    this.timer = setTimeout(onCallTimeout, this.gw.config.executingTimeoutMs, this)
    this.client!.send(this, r)
  }

  /** PendingCall: the microservice answered, or dispatch gave up on the call. */
  settle (result: gateway.Result | null, failure: Failure | null): void {
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null }
    if (this.aborted || this.answered) return
    if (failure !== null) return this.fail(failure)
    const r = result!
    if (r.error != null) {
      const e = r.error as gateway.Error
      const code = isErrorCode(e.code) ? e.code : 'INTERNAL'
      return this.fail(e.status > 0 ? { code, detail: e.detail, status: e.status } : { code, detail: e.detail })
    }
    this.answer(r.isVoid ? 204 : 200, r.isVoid ? EMPTY : r.body)
  }

  /** @internal the executing timeout passed. */
  timeout (): void {
    this.timer = null
    if (this.aborted || this.answered) return
    this.connection?.cancel(this)
    this.fail({ code: 'EXECUTION_TIMEOUT', detail: `no answer within the executing timeout of ${this.gw.config.executingTimeoutMs} ms; the call was cancelled` })
  }

  /** uWS: the client went away. The response must not be touched again. */
  onAborted (): void {
    this.aborted = true
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null }
    this.connection?.cancel(this)
    this.release()
  }

  private preflight (): void {
    const cors = this.gw.cors
    const headers = ['Allow', ALLOW]
    if (this.head.origin !== '' && (cors.anyOrigin || cors.origins.has(this.head.origin))) {
      headers.push('Access-Control-Allow-Methods', ALLOW, 'Access-Control-Allow-Headers', ALLOWED_HEADERS, 'Access-Control-Max-Age', cors.maxAge)
    }
    this.write(204, null, EMPTY, headers, false)
  }

  private answer (status: number, body: Uint8Array): void {
    this.write(status, status === 204 ? null : CONTENT_TYPES[this.format], body, null, false)
  }

  private fail (f: Failure): void {
    const a = problemAnswer(f, this.format, this.requestId, this.head.origin, this.gw.retryAfter)
    // uWS skips an unread Content-Length body and keeps the connection; only 413 closes it,
    // so the client stops sending what we will not read.
    this.write(a.status, a.contentType, a.body, a.headers, a.close)
  }

  private write (status: number, contentType: string | null, body: string | Uint8Array, headers: string[] | null, close: boolean): void {
    if (this.aborted || this.answered) return
    this.answered = true
    writeAnswer(this.res, this.gw.cors, { status, contentType, body, requestId: this.requestId, origin: this.head.origin, headers, close })
    this.release()
  }

  private release (): void {
    if (!this.counted) return
    this.counted = false
    this.gw.inFlight--
  }
}

function onCallTimeout (inv: Invocation): void {
  inv.timeout()
}

/** X-PLATFORM-Privilege-Names: names separated by ';', blanks dropped. */
export function splitNames (header: string): string[] {
  if (header === '') return []
  const out: string[] = []
  for (const part of header.split(';')) {
    const name = part.trim()
    if (name !== '') out.push(name)
  }
  return out
}

/**
 * The client's address. Formatted from uWS's binary form: an IPv4 (or IPv4-mapped) address is four
 * numbers, much cheaper than getRemoteAddressAsText plus a UTF-8 decode (4.5% of the gateway's CPU).
 */
export function remoteAddress (res: HttpResponse): string {
  const b = new Uint8Array(res.getRemoteAddress())
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`
  if (b.length === 16 && b[10] === 0xff && b[11] === 0xff && isZero(b, 10)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`
  return Buffer.from(res.getRemoteAddressAsText()).toString()
}

function isZero (b: Uint8Array, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[k] !== 0) return false
  return true
}
