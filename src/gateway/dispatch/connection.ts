import { connect, isIP, Socket } from 'node:net'
import { checkServerIdentity, connect as tlsConnect, createSecureContext, type SecureContextOptions } from 'node:tls'
import { readFileSync } from 'node:fs'
import { filesStamp } from '../../common/tls/file-stamp'
import { errorMessage } from '../../common/errors/internal'
import { FramedSocket } from '../../common/protocol/framed-socket'
import { ReadSlab } from '../../common/protocol/read-slab'
import { PROTOCOL_VERSION, isLargeFrame, type Frame, type OutFrame } from '../../common/protocol/frame'
import { gateway } from '../../common/protocol/generated/gateway'
import type { PendingCall } from './pending'
import type { Endpoint, TlsClient } from '../../common/protocol/endpoint'
import { nonce, gatewayProof, microserviceProof, sameProof } from '../../common/protocol/handshake'
import type { Failure } from '../../common/errors/codes'
import { CallTable } from '../../common/protocol/call-table'
import { busyPoll } from './busy-poll'

export interface ConnectionOwner {
  readonly name: string
  readonly maxFrameBytes: number
  readonly connectTimeoutMs: number
  onReady(conn: BackendConnection, catalog: gateway.Catalog): void
  onPong(conn: BackendConnection, pong: gateway.Pong): void
  onClosed(conn: BackendConnection, error: Error | null): void
  /** The peer failed authentication (or asked for it without a secret configured here). */
  onRefused(conn: BackendConnection, why: string): void
  /** Any frame arrived: the instance is alive. */
  onAnyFrame(): void
  /** The microservice said GoAway: this connection takes no new calls and closes once it has none. */
  onGoAway(conn: BackendConnection, reason: string): void
  /** The connection has no call in flight any more (its last one answered, cancelled or lost). */
  onIdle(): void
}

type State = 'connecting' | 'handshaking' | 'ready' | 'closed'

/**
 * One persistent TCP connection to a microservice. Calls are multiplexed by id; when the
 * connection drops, every call in flight on it is failed at once (502), never left hanging.
 */
export class BackendConnection {
  state: State = 'connecting'
  /** The microservice is stopping (GoAway): no new calls; closed when the last one is answered. */
  goingAway = false
  /** When its handshake was done (performance.now()); Infinity before. */
  readyAt = Infinity
  readonly inflight = new CallTable<PendingCall>()
  private framed: FramedSocket | null = null
  private readonly socket: Socket

  /** Our nonce, while an authenticated handshake is under way. */
  private clientNonce: Uint8Array | null = null
  /** Refused already: reported once, with the more precise reason. */
  private refused = false
  private serverNonce: Uint8Array | null = null

  constructor(
    private readonly owner: ConnectionOwner,
    readonly endpoint: Endpoint,
    private readonly gatewayId: string,
    /** The shared secret of an instance reached over TCP: the handshake proves it both ways. */
    private readonly secret: string | null = null
  ) {
    const tls = !('path' in endpoint) && endpoint.tls !== undefined
    // TLS reads through its own layer, which takes no `onread`.
    const reads = tls ? null : new ReadSlab()
    this.socket = connectTo(endpoint, reads)
    // A certificate that does not verify (or ours refused by the instance) is a refusal with its
    // reason, shown in status as a failed handshake is, not a connection that merely dropped.
    if (tls)
      this.socket.once('error', (err: NodeJS.ErrnoException) => {
        // A system error (ECONNREFUSED, ECONNRESET) is a connection that failed; anything else before
        // the protocol's handshake is done is TLS's verdict: a certificate, or an alert from the
        // instance (under TLS 1.3 it judges our certificate after our side has finished).
        const tlsVerdict = err.code === undefined || !/^E[A-Z]+$/.test(err.code)
        if (tlsVerdict && (this.state === 'connecting' || this.state === 'handshaking'))
          this.refuse(`TLS: ${err.code ?? 'handshake failed'}: ${err.message}`)
      })
    this.socket.setTimeout(owner.connectTimeoutMs, () => {
      if (this.state === 'handshaking' && this.secret !== null)
        this.refuse('it sent no Challenge: it does not ask for the shared secret')
      else this.close(new Error(`no connection and handshake within ${owner.connectTimeoutMs} ms`))
    })
    this.socket.once(tls ? 'secureConnect' : 'connect', () => {
      // The timeout stays until the handshake is done: a peer that never completes it is dropped.
      this.state = 'handshaking'
      // With a secret, the microservice speaks first (its Challenge); without one, Hello goes now.
      if (this.secret === null) this.framed!.send({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId } })
    })
    this.framed = new FramedSocket(
      this.socket,
      {
        onFrame: (f) => this.onFrame(f),
        onClose: (err) => this.onClose(err)
      },
      owner.maxFrameBytes,
      'poll',
      null,
      reads
    )
  }

  get ready(): boolean {
    return this.state === 'ready' && !this.goingAway
  }

  /** Calls in flight whose frame was large (sent in pieces): see InstanceClient.pick. */
  get largeInflight(): number {
    return this.large.size
  }
  private readonly large = new Set<number>()

  send(call: PendingCall, frame: OutFrame): void {
    this.inflight.set(call.callId, call)
    if (isLargeFrame(frame)) this.large.add(call.callId)
    call.connection = this
    this.framed!.sendBytes(frame)
    busyPoll.active()
  }

  /** Drops the call and tells the microservice its answer is no longer wanted. */
  cancel(call: PendingCall): void {
    if (!this.inflight.delete(call.callId)) return
    this.large.delete(call.callId)
    call.connection = null
    if (this.state === 'ready') this.framed!.send({ cancel: { id: call.callId } })
    this.closeIfDrained()
  }

  /** After a call ends here. Once none is left: closed after a GoAway (as the microservice waits for). */
  private closeIfDrained(): void {
    if (this.inflight.size > 0) return
    if (this.goingAway) this.close()
    this.owner.onIdle()
  }

  /** Answers every call in flight on this connection with `failure` and cancels it at the microservice. */
  abandonAll(failure: Failure): void {
    const calls = this.inflight.values()
    for (const call of calls) {
      this.cancel(call)
      call.settle(failure)
    }
  }

  ping(id: number): void {
    if (this.state === 'ready') this.framed!.send({ ping: { id } })
  }

  private refuse(why: string): void {
    this.clientNonce = null // reported here, not again when the socket closes
    this.refused = true
    this.owner.onRefused(this, why)
    this.close(new Error(why))
  }

  close(error: Error | null = null): void {
    this.framed?.destroy(error)
  }

  private onFrame(f: Frame): void {
    this.owner.onAnyFrame()
    switch (f.body) {
      case 'result': {
        // An answer, not a pong: an idle gateway's health checks do not keep its loop turning.
        busyPoll.active()
        const result = f.result as gateway.Result
        const call = this.inflight.get(result.id)
        if (call === undefined) return // cancelled or timed out meanwhile
        this.inflight.delete(result.id)
        this.large.delete(result.id)
        call.connection = null
        call.settle(result)
        this.closeIfDrained()
        return
      }
      case 'goAway': {
        if (this.state !== 'ready') break
        this.goingAway = true
        this.owner.onGoAway(this, (f.goAway as gateway.GoAway).reason)
        this.closeIfDrained()
        return
      }
      case 'pong':
        this.owner.onPong(this, f.pong as gateway.Pong)
        return
      case 'challenge': {
        if (this.state !== 'handshaking' || this.clientNonce !== null) break
        if (this.secret === null)
          return this.refuse('the microservice requires authentication and no secret is configured for it')
        this.serverNonce = (f.challenge as gateway.Challenge).nonce
        this.clientNonce = nonce()
        const proof = gatewayProof(this.secret, this.serverNonce, this.clientNonce)
        this.framed!.send({
          hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: this.gatewayId, nonce: this.clientNonce, proof }
        })
        return
      }
      case 'catalog': {
        if (this.state !== 'handshaking') break
        const catalog = f.catalog as gateway.Catalog
        if (catalog.protocolVersion !== PROTOCOL_VERSION)
          return this.refuse(
            `it speaks internal protocol version ${catalog.protocolVersion}, this gateway ${PROTOCOL_VERSION}: run one release on both sides`
          )
        if (this.secret !== null) {
          if (this.clientNonce === null || this.serverNonce === null)
            return this.refuse('it answered without being challenged: it does not know the secret')
          if (!sameProof(microserviceProof(this.secret, this.serverNonce, this.clientNonce), catalog.proof))
            return this.refuse('its Catalog does not prove the shared secret')
        }
        this.state = 'ready'
        this.readyAt = performance.now()
        this.socket.setTimeout(0)
        this.owner.onReady(this, catalog)
        return
      }
      default:
        break
    }
    this.close(new Error(`unexpected frame '${String(f.body)}' from microservice ${this.owner.name}`))
  }

  private onClose(error: Error | null): void {
    if (this.state === 'closed') return
    // The microservice closed the connection after our proof (it checks it and says nothing more).
    if (this.state === 'handshaking' && this.clientNonce !== null)
      this.owner.onRefused(this, 'it closed the connection after our Hello: it holds a different shared secret')
    // Under TLS 1.3 a server judges our certificate after our side has finished, and Node's server
    // closes without an alert when it does not take it (measured): the first frame never comes.
    else if (
      this.state === 'handshaking' &&
      !this.refused &&
      this.serverNonce === null &&
      !('path' in this.endpoint) &&
      this.endpoint.tls
    )
      this.owner.onRefused(
        this,
        "TLS: it closed the connection right after the TLS handshake, before a word: it does not take this gateway's certificate (not signed by a CA it trusts)"
      )
    this.state = 'closed'
    const calls = this.inflight.values()
    this.inflight.clear()
    this.large.clear()
    for (const call of calls) {
      call.connection = null
      call.settle({
        code: 'BACKEND_CONNECTION_LOST',
        detail: `the connection to microservice '${this.owner.name}' was lost during the call`
      })
    }
    this.owner.onClosed(this, error)
    if (calls.length > 0) this.owner.onIdle()
  }
}

/**
 * A Unix socket, a TCP connection, or TLS over TCP verified against the entry's CAs. A plain socket
 * reads into `reads`.
 */
function connectTo(endpoint: Endpoint, reads: ReadSlab | null): Socket {
  const onread = reads === null ? {} : { onread: reads.onread }
  if ('path' in endpoint) return connect({ path: endpoint.path, ...onread })
  const tls = endpoint.tls
  if (tls === undefined) return connect({ host: endpoint.host, port: endpoint.port, ...onread })
  let pem: SecureContextOptions
  try {
    pem = clientPem(tls)
  } catch (err) {
    // Files that went missing or bad since the start, with nothing read before: a refusal that says so.
    const s = new Socket()
    process.nextTick(() => s.destroy(Object.assign(new Error(errorMessage(err)), { code: 'ERR_TLS_FILES' })))
    return s
  }
  const name = tls.serverName ?? (isIP(endpoint.host) === 0 ? endpoint.host : undefined)
  return tlsConnect({
    host: endpoint.host,
    port: endpoint.port,
    ...pem,
    // An address is checked against the certificate's IP entries; a name, against its DNS entries.
    ...(name !== undefined ? { servername: name } : {}),
    checkServerIdentity: (host, cert) => checkServerIdentity(name ?? host, cert),
    minVersion: 'TLSv1.2'
  })
}

/** The PEM text of each client setting, with the stamp of the files it was read from. */
const clientPems = new Map<string, { stamp: string; pem: SecureContextOptions }>()

/**
 * The CAs and the gateway's own pair as the files hold them now: read again when their stamp has
 * changed (a renewal), checked as a context before use; a renewal half written (a certificate
 * beside the old key) keeps what was read before until it is whole.
 */
function clientPem(tls: TlsClient): SecureContextOptions {
  const files = [tls.caFile, ...(tls.certFile !== null && tls.keyFile !== null ? [tls.certFile, tls.keyFile] : [])]
  const key = files.join('\0')
  const stamp = filesStamp(files)
  const hit = clientPems.get(key)
  if (hit?.stamp === stamp) return hit.pem
  try {
    const pem: SecureContextOptions = {
      ca: readFileSync(tls.caFile, 'utf8'),
      ...(files.length === 3 ? { cert: readFileSync(files[1]!, 'utf8'), key: readFileSync(files[2]!, 'utf8') } : {}),
      ...(tls.passphrase !== null ? { passphrase: tls.passphrase } : {})
    }
    createSecureContext(pem)
    clientPems.set(key, { stamp, pem })
    return pem
  } catch (err) {
    if (hit !== undefined) return hit.pem
    throw err
  }
}
