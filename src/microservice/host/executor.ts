import { context, trace } from '@opentelemetry/api'
import { endSpan, startSpan, tracingActive } from '../../common/observability/tracing'
import { gateway } from '../../common/protocol/generated/gateway'
import { codes, type ErrorCode } from '../../common/errors/codes'
import { typeName } from '../descriptors/descriptors'
import { defaultSerializers, ValueError, type Serializer } from '../serializers'
import { isSequenceName, SEQUENCES, type SerializerBeanName } from '../../common/contract/vocabulary'
import { SyntaxErrorAt } from '../../common/errors/syntax'
import { roaRule, argumentCountRule } from '../../common/contract/rules'
import {
  ServiceError,
  type CallContext,
  type MethodDefinition,
  type MicroserviceDefinition,
  type PermissionResolver
} from '../sdk/define'
import { buildServiceIndex, type ServiceEntry } from './service-index'
import type { RuntimeSettings } from './settings'

/** What a call needs of an Invoke frame; a worker gets these fields, not the frame. */
export interface InvokeLike {
  readonly service: string
  readonly method: string
  readonly sequence: string
  readonly mode: gateway.Mode
  readonly arguments: readonly Uint8Array[]
  readonly context?: gateway.ICallContext | null
}

/** Where ctx.signal comes from: the execution on the main thread, a never-aborted signal in a worker. */
export interface SignalSource {
  readonly signal: AbortSignal
}

export interface ExecutorOptions {
  name: string
  settings: RuntimeSettings
  /** Names the default permission resolver grants. */
  privilegedNames: readonly string[]
  /** Counted into: methods that ran to a value (the method did not throw). */
  stats?: { executed: number }
}

/**
 * A microservice's methods, ready to run a call: look up, check the rules and the privilege,
 * deserialize, call, serialize. The same on the main thread and in a worker of the method pool.
 */
export class Executor {
  readonly services: Map<string, ServiceEntry>
  private readonly serializers: Record<SerializerBeanName, Serializer>
  private readonly resolver: PermissionResolver
  readonly stats: { executed: number }

  constructor(
    definition: MicroserviceDefinition,
    private readonly options: ExecutorOptions
  ) {
    this.stats = options.stats ?? { executed: 0 }
    this.services = buildServiceIndex(definition)
    const aliases = new Map(Object.entries(definition.aliases ?? {}))
    const s = options.settings
    this.serializers = {
      ...defaultSerializers(
        aliases,
        { maxDepth: s.maxDepth, maxNodes: s.maxNodes, maxStringLength: s.maxStringLength },
        s.timeZone
      ),
      ...definition.serializers
    }
    const granted = new Set(options.privilegedNames)
    this.resolver = definition.permissionResolver ?? ((names) => names.some((n) => granted.has(n)))
  }

  /** The method a call names, if its service is remotely enabled. */
  method(service: string, method: string): MethodDefinition | undefined {
    const svc = this.services.get(service)
    return svc === undefined || !svc.remotelyEnabled ? undefined : svc.methods.get(method)
  }

  /**
   * Runs one call to its result; never throws or rejects (a method's failure is a METHOD_FAILED
   * result). The result is there at once when the method returned a plain value: the promise hops an
   * async function makes showed in the microservice's profile of small calls, for nothing.
   */
  execute(inv: InvokeLike, ex: SignalSource): gateway.IResult | Promise<gateway.IResult> {
    try {
      const r = this.run(inv, ex)
      return r instanceof Promise ? r.catch((err: unknown) => methodFailure(err, inv)) : r
    } catch (err) {
      return methodFailure(err, inv)
    }
  }

  private run(inv: InvokeLike, ex: SignalSource): gateway.IResult | Promise<gateway.IResult> {
    const svc = this.services.get(inv.service)
    if (svc === undefined || !svc.remotelyEnabled)
      return fail(
        'UNKNOWN_SERVICE',
        `service '${inv.service}' is not remotely enabled in microservice '${this.options.name}'`
      )
    const m = svc.methods.get(inv.method)
    if (m === undefined) return fail('UNKNOWN_METHOD', `service '${inv.service}' has no method '${inv.method}'`)
    const broken =
      (inv.mode === gateway.Mode.ROA ? roaRule(inv.service, inv.method, m.params.length) : null) ??
      argumentCountRule(inv.service, inv.method, m.params.length, inv.arguments.length)
    if (broken !== null) return fail(broken.code, broken.detail)
    if (!isSequenceName(inv.sequence)) return fail('UNKNOWN_SEQUENCE', `unknown sequence '${inv.sequence}'`)
    const serializer = this.serializers[SEQUENCES[inv.sequence].bean]

    const c = (inv.context ?? gateway.CallContext.create()) as gateway.CallContext
    const base = {
      locale: c.locale ?? null,
      privilegeNames: c.privilegeNames,
      requestId: c.requestId ?? null,
      sessionId: c.sessionId ?? null,
      user: c.user ?? null,
      clientApplicationName: c.clientApplicationName ?? null,
      ip: c.ip ?? null,
      traceparent: c.traceparent ?? null,
      tracestate: c.tracestate ?? null,
      certificateSubject: c.certificateSubject ?? null
    }
    // Asked for every call, with or without names: a resolver may decide by user or address as well.
    const privileged = this.resolver(c.privilegeNames, base)
    if (m.privileged && !privileged)
      return fail('PRIVILEGE_DENIED', `${inv.service}.${inv.method} needs a privileged call`)
    const ctx: CallContext = new ExecutionContext(
      base.locale,
      base.privilegeNames,
      base.requestId,
      base.sessionId,
      base.user,
      base.clientApplicationName,
      base.ip,
      base.traceparent,
      base.tracestate,
      base.certificateSubject,
      privileged,
      ex
    )

    const args = new Array<unknown>(m.params.length)
    for (let k = 0; k < args.length; k++) {
      const err = this.deserialize(serializer, inv.arguments[k]!, m, k, args)
      if (err !== null) return err
    }
    const handler = m.handler as (ctx: CallContext, ...a: unknown[]) => unknown
    if (tracingActive()) {
      return traced(`${inv.service}.${inv.method}`, base.traceparent ?? '', () => handler(ctx, ...args)).then((v) =>
        this.returned(serializer, m, v)
      )
    }
    const value = handler(ctx, ...args)
    // A thenable is awaited as `await` would; anything else is the value.
    return isThenable(value)
      ? Promise.resolve(value).then((v) => this.returned(serializer, m, v))
      : this.returned(serializer, m, value)
  }

  /** The method returned `value`: counted, and serialized by its declared return type. */
  private returned(serializer: Serializer, m: MethodDefinition, value: unknown): gateway.IResult {
    this.stats.executed++
    if (m.returns.kind === 'void') return { isVoid: true }
    const out = serializer.serialize(value, m.returns)
    return { body: typeof out === 'string' ? Buffer.from(out) : out }
  }

  private deserialize(
    serializer: Serializer,
    bytes: Uint8Array,
    m: MethodDefinition,
    k: number,
    into: unknown[]
  ): gateway.IResult | null {
    const type = m.params[k]!
    try {
      into[k] = serializer.deserialize(bytes, type)
      return null
    } catch (err) {
      if (err instanceof ValueError || err instanceof SyntaxErrorAt) {
        const where = err instanceof ValueError ? err.describe() : err.message
        return fail('BAD_ARGUMENT', `argument ${k} of ${m.name} (${typeName(type)}): ${where}`)
      }
      if (err instanceof RangeError)
        return fail('BAD_ARGUMENT', `argument ${k} of ${m.name} (${typeName(type)}): ${err.message}`)
      throw err
    }
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  )
}

function methodFailure(err: unknown, inv: InvokeLike): gateway.IResult {
  // A ServiceError is the method's chosen answer; anything else is a fault its author needs to see.
  if (err instanceof ServiceError) {
    return { error: { code: 'METHOD_FAILED', detail: err.message, status: err.status } }
  }
  logFault(err, inv)
  if (err instanceof ValueError)
    return fail('INTERNAL', `the method's result does not match its return type: ${err.describe()}`)
  // No stack traces leave the process; the message of a plain Error is the method's own text.
  return fail('METHOD_FAILED', err instanceof Error ? `${err.name}: ${err.message}` : 'the method threw')
}

/** Faults logged per method and minute; the rest are counted (a client can make a method throw on every call). */
const FAULTS_A_MINUTE = 10
const faultWindows = new Map<string, { since: number; logged: number; skipped: number }>()

/** The fault and its stack on stderr, the instance log (`microservice logs NAME`), under the call's request id. */
function logFault(err: unknown, inv: InvokeLike): void {
  const key = `${inv.service}.${inv.method}`
  const now = Date.now()
  let w = faultWindows.get(key)
  if (w === undefined || now - w.since >= 60_000) {
    if (w !== undefined && w.skipped > 0)
      process.stderr.write(`${key}: ${w.skipped} more faults in the minute before were not logged\n`)
    w = { since: now, logged: 0, skipped: 0 }
    faultWindows.set(key, w)
  }
  if (w.logged === FAULTS_A_MINUTE) {
    w.skipped++
    return
  }
  w.logged++
  const requestId = inv.context?.requestId ?? ''
  const what =
    err instanceof ValueError ? `returned a value that does not match its return type: ${err.describe()}` : 'threw'
  const stack = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err)
  const more = w.logged === FAULTS_A_MINUTE ? ` (the last of ${FAULTS_A_MINUTE} logged this minute)` : ''
  process.stderr.write(`${key} ${what} (request ${requestId === '' ? 'without an id' : requestId})${more}: ${stack}\n`)
}

/** The CallContext a method sees; `signal` reads through to the execution's lazy signal. */
export class ExecutionContext implements CallContext {
  constructor(
    readonly locale: string | null,
    readonly privilegeNames: readonly string[],
    readonly requestId: string | null,
    readonly sessionId: string | null,
    readonly user: string | null,
    readonly clientApplicationName: string | null,
    readonly ip: string | null,
    readonly traceparent: string | null,
    readonly tracestate: string | null,
    readonly certificateSubject: string | null,
    readonly privileged: boolean,
    private readonly execution: SignalSource
  ) {}

  get signal(): AbortSignal {
    return this.execution.signal
  }
}

export function fail(code: ErrorCode, detail: string): gateway.IResult {
  return { error: { code, detail, status: codes[code].status } }
}

/** The method call as a span of the microservice, child of the call's traceparent (an SDK is registered). */
async function traced(name: string, parent: string, call: () => unknown): Promise<unknown> {
  const { span } = startSpan(name, 'server', parent, { 'rpc.system': 'invocation-gateway', 'rpc.method': name })
  try {
    const value = await context.with(trace.setSpan(context.active(), span), call)
    endSpan(span, 200, '')
    return value
  } catch (err) {
    endSpan(span, 500, 'METHOD_FAILED')
    throw err
  }
}
