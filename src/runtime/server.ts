import { context, trace } from '@opentelemetry/api'
import { endSpan, startSpan, tracingActive } from '../core/tracing'
import { createServer, type Server, type Socket } from 'node:net'
import { chmodSync, rmSync } from 'node:fs'
import type { Endpoint } from '../core/endpoint'
import { nonce, gatewayProof, microserviceProof, sameProof } from '../protocol/handshake'
import type { AddressInfo } from 'node:net'
import { FramedSocket } from '../protocol/framed-socket'
import { encodeFrame, PROTOCOL_VERSION, type Frame } from '../protocol/frame'
import { gateway } from '../protocol/generated/gateway'
import { codes, type ErrorCode } from '../errors/codes'
import { typeName } from '../descriptors/types'
import { defaultSerializers, ValueError, type Serializer } from '../serializers'
import { isSequenceName, SEQUENCES, type SerializerBeanName } from '../core/vocabulary'
import { SyntaxErrorAt } from '../errors/syntax'
import { roaRule, argumentCountRule } from '../core/rules'
import {
  ServiceError,
  type CallContext,
  type MethodDefinition,
  type MicroserviceDefinition,
  type PermissionResolver
} from './define'
import { buildServiceIndex, toCatalog, type ServiceEntry } from './catalog'
import type { RuntimeSettings } from './settings'

export interface RuntimeOptions {
  name: string
  version: string
  settings: RuntimeSettings
  /** Names the default permission resolver grants. */
  privilegedNames: readonly string[]
  /** A shared secret: every connection must prove it knows it before anything else (handshake.ts). */
  secret?: string | null
  /** Where refusals are reported (a stranger that connects without the secret). */
  log?: (line: string) => void
}

/** One call being executed; kept per connection by id so a Cancel can find it. */
class Execution {
  timer: NodeJS.Timeout | null = null
  done = false
  /** Made on first use of ctx.signal: most methods never look, and one per call showed in GC time. */
  private controller: AbortController | null = null
  private abortReason: Error | null = null
  constructor(
    readonly conn: RuntimeConnection,
    readonly invoke: gateway.Invoke
  ) {}

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController()
      if (this.abortReason !== null) this.controller.abort(this.abortReason)
    }
    return this.controller.signal
  }

  abort(reason: Error): void {
    if (this.abortReason !== null) return
    this.abortReason = reason
    this.controller?.abort(reason)
  }
}

/** The CallContext a method sees; `signal` reads through to the execution's lazy signal. */
class ExecutionContext implements CallContext {
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
    readonly privileged: boolean,
    private readonly execution: Execution
  ) {}

  get signal(): AbortSignal {
    return this.execution.signal
  }
}

class RuntimeConnection {
  readonly framed: FramedSocket
  readonly executions = new Map<number, Execution>()
  /** Set while the connection has not proved it knows the secret: the challenge's nonce. */
  challenge: Uint8Array | null = null
  private authTimer: NodeJS.Timeout | null = null
  constructor(
    readonly socket: Socket,
    readonly server: MicroserviceServer
  ) {
    this.framed = new FramedSocket(
      socket,
      {
        onFrame: (f) => server.onFrame(this, f),
        onClose: () => server.onConnectionClosed(this)
      },
      server.options.settings.maxFrameBytes
    )
    // readTimeout: an idle connection is closed; the gateway's pings keep a live one busy.
    if (server.options.settings.readTimeout > 0) {
      socket.setTimeout(server.options.settings.readTimeout, () => this.framed.destroy())
    }
    if (server.options.secret != null) {
      this.challenge = nonce()
      this.framed.send({ challenge: { nonce: this.challenge } })
      this.authTimer = setTimeout(() => server.refuse(this, 'no authenticated Hello within 5 s'), 5000)
      this.authTimer.unref()
    }
  }

  authenticated(): void {
    this.challenge = null
    if (this.authTimer !== null) clearTimeout(this.authTimer)
    this.authTimer = null
  }
}

/** The TCP server of a microservice: handshake, remotely-enabled check, execution, cancel, ping. */
export class MicroserviceServer {
  private readonly services: Map<string, ServiceEntry>
  private readonly serializers: Record<SerializerBeanName, Serializer>
  private readonly resolver: PermissionResolver
  private readonly connections = new Set<RuntimeConnection>()
  private readonly waiting: Execution[] = []
  private running = 0
  private server: Server | null = null
  /** The user availability flag reported in every Pong. */
  available = true
  /** Counters for diagnostics and tests. */
  readonly stats = { executed: 0, cancelled: 0, timedOut: 0, refused: 0 }

  constructor(
    readonly definition: MicroserviceDefinition,
    readonly options: RuntimeOptions
  ) {
    this.services = buildServiceIndex(definition)
    const aliases = new Map(Object.entries(definition.aliases ?? {}))
    const s = options.settings
    this.serializers = {
      ...defaultSerializers(aliases, {
        maxDepth: s.maxDepth,
        maxNodes: s.maxNodes,
        maxStringLength: s.maxStringLength
      }),
      ...definition.serializers
    }
    const granted = new Set(options.privilegedNames)
    this.resolver = definition.permissionResolver ?? ((names) => names.some((n) => granted.has(n)))
  }

  /**
   * Listens on a Unix socket (made readable and writable by its owner only) or a TCP address;
   * resolves with where it listens (the TCP port filled in).
   */
  listen(endpoint: Endpoint = { host: '127.0.0.1', port: 0 }): Promise<Endpoint> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => {
        const conn = new RuntimeConnection(socket, this)
        this.connections.add(conn)
      })
      this.server = server
      server.once('error', reject)
      const backlog = this.options.settings.backlog > 0 ? this.options.settings.backlog : undefined
      if ('path' in endpoint) {
        rmSync(endpoint.path, { force: true })
        server.listen({ path: endpoint.path, backlog }, () => {
          chmodSync(endpoint.path, 0o600)
          resolve(endpoint)
        })
      } else {
        server.listen({ port: endpoint.port, host: endpoint.host, backlog }, () =>
          resolve({ host: endpoint.host, port: (server.address() as AddressInfo).port })
        )
      }
    })
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.framed.end()
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())))
    for (const c of this.connections) c.framed.destroy()
  }

  /** @internal */
  onConnectionClosed(conn: RuntimeConnection): void {
    this.connections.delete(conn)
    // Nobody is left to answer: abort what this connection asked for.
    for (const ex of conn.executions.values()) this.abandon(ex)
  }

  /** @internal a connection that did not authenticate is closed and reported. */
  refuse(conn: RuntimeConnection, why: string): void {
    const peer = conn.socket.remoteAddress ?? 'a local socket'
    ;(this.options.log ?? console.error)(`refused a connection from ${peer}: ${why}`)
    this.stats.refused++
    conn.framed.destroy()
  }

  /** @internal */
  onFrame(conn: RuntimeConnection, frame: Frame): void {
    if (conn.challenge !== null) {
      // Before it proves the secret, a connection may say Hello and nothing else.
      const hello = frame.hello as gateway.Hello | null | undefined
      if (frame.body !== 'hello' || hello == null)
        return this.refuse(conn, `'${String(frame.body)}' before authenticating`)
      const expected = gatewayProof(this.options.secret!, conn.challenge, hello.nonce)
      if (!sameProof(expected, hello.proof)) return this.refuse(conn, 'the Hello does not prove the shared secret')
      const serverNonce = conn.challenge
      conn.authenticated()
      conn.framed.send({
        catalog: {
          ...toCatalog(this.options.name, this.options.version, this.services, this.available),
          protocolVersion: PROTOCOL_VERSION,
          proof: microserviceProof(this.options.secret!, serverNonce, hello.nonce)
        }
      })
      return
    }
    switch (frame.body) {
      case 'invoke':
        this.onInvoke(conn, frame.invoke as gateway.Invoke)
        break
      case 'cancel': {
        const ex = conn.executions.get((frame.cancel as gateway.Cancel).id)
        if (ex !== undefined) {
          this.stats.cancelled++
          this.abandon(ex)
        }
        break
      }
      case 'ping':
        conn.framed.send({ pong: { id: frame.ping!.id, available: this.available } })
        break
      case 'hello':
        conn.framed.send({
          catalog: {
            ...toCatalog(this.options.name, this.options.version, this.services, this.available),
            protocolVersion: PROTOCOL_VERSION
          }
        })
        break
      default:
        conn.framed.destroy(new Error(`unexpected frame '${String(frame.body)}' from the gateway`))
    }
  }

  private onInvoke(conn: RuntimeConnection, inv: gateway.Invoke): void {
    const ex = new Execution(conn, inv)
    conn.executions.set(inv.id, ex)
    if (this.running < this.options.settings.threadPoolSize) {
      this.start(ex)
    } else if (this.waiting.length < this.options.settings.queueLimit) {
      this.waiting.push(ex)
    } else {
      this.reply(
        ex,
        fail(
          'OVERLOADED',
          `all ${this.options.settings.threadPoolSize} execution slots are busy and ${this.waiting.length} calls wait`
        )
      )
    }
  }

  private start(ex: Execution): void {
    this.running++
    const settings = this.options.settings
    const limit =
      ex.invoke.timeoutMs > 0
        ? Math.min(ex.invoke.timeoutMs, settings.threadExecutingTimeOut)
        : settings.threadExecutingTimeOut
    ex.timer = setTimeout(onExecutionTimeout, limit, this, ex, limit)
    this.execute(ex).then(
      (result) => this.reply(ex, result),
      (err: unknown) => this.reply(ex, this.methodFailure(err))
    )
  }

  /** @internal */
  timeout(ex: Execution, limit: number): void {
    if (ex.done) return
    this.stats.timedOut++
    ex.abort(new Error('executing timeout'))
    this.reply(ex, fail('EXECUTION_TIMEOUT', `the method ran longer than the executing timeout of ${limit} ms`))
  }

  private abandon(ex: Execution): void {
    if (ex.done) return
    ex.abort(new Error('cancelled'))
    this.finish(ex)
  }

  private finish(ex: Execution): void {
    ex.done = true
    ex.conn.executions.delete(ex.invoke.id)
    if (ex.timer !== null) {
      clearTimeout(ex.timer)
      ex.timer = null
      this.running--
      const next = this.waiting.shift()
      if (next !== undefined && !next.done) this.start(next)
    } else {
      const k = this.waiting.indexOf(ex)
      if (k >= 0) this.waiting.splice(k, 1)
    }
  }

  private reply(ex: Execution, result: gateway.IResult): void {
    if (ex.done) return
    this.finish(ex)
    result.id = ex.invoke.id
    ex.conn.framed.sendBytes(encodeFrame({ result }))
  }

  private async execute(ex: Execution): Promise<gateway.IResult> {
    const inv = ex.invoke
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
      tracestate: c.tracestate ?? null
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
      privileged,
      ex
    )

    const args = new Array<unknown>(m.params.length)
    for (let k = 0; k < args.length; k++) {
      const err = this.deserialize(serializer, inv.arguments[k]!, m, k, args)
      if (err !== null) return err
    }
    const handler = m.handler as (ctx: CallContext, ...a: unknown[]) => unknown
    const value = tracingActive()
      ? await traced(`${inv.service}.${inv.method}`, base.traceparent ?? '', () => handler(ctx, ...args))
      : await handler(ctx, ...args)
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

  private methodFailure(err: unknown): gateway.IResult {
    if (err instanceof ServiceError) {
      return { error: { code: 'METHOD_FAILED', detail: err.message, status: err.status } }
    }
    if (err instanceof ValueError)
      return fail('INTERNAL', `the method's result does not match its return type: ${err.describe()}`)
    // No stack traces leave the process; the message of a plain Error is the method's own text.
    return fail('METHOD_FAILED', err instanceof Error ? `${err.name}: ${err.message}` : 'the method threw')
  }
}

function onExecutionTimeout(server: MicroserviceServer, ex: Execution, limit: number): void {
  server.timeout(ex, limit)
}

function fail(code: ErrorCode, detail: string): gateway.IResult {
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
