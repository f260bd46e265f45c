import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { errorMessage, InternalError } from '../../common/errors/internal'
import { ConfigError, type TlsConfig } from '../../common/config/config'
import { loadCertificates, withPemFiles, type CertificateSet } from '../tls/certificates'
import { certificateRenewal, type TlsEvents } from '../tls/certificate-renewal'
import { uwsBuild, uwsReadsPeerCertificates } from './uws-support'
import type { FileRenewal } from '../../common/tls/file-renewal'

type Uws = typeof import('uWebSockets.js')

let loaded: Uws | null = null
let loadedHeaderLimit = 0

/**
 * uWebSockets.js, loaded on first use rather than at import, because two of its settings exist only
 * then: the largest request head it reads (UWS_HTTP_MAX_HEADERS_SIZE, read by the native library's
 * static initializer when it loads: 431 past it; the 20.30 build ignores it), and the `uWebSockets: 20`
 * header it adds to every answer, turned off by its undocumented `_cfg('silent')` (both builds have
 * it; the parser's own error pages still name the server). Every listener in a process shares them.
 */
export function loadUws(maxHeaderBytes: number): Uws {
  if (loaded !== null) {
    if (maxHeaderBytes !== loadedHeaderLimit)
      throw new InternalError(
        'IGW_UWS',
        `uWebSockets.js was loaded with a ${loadedHeaderLimit}-byte header limit; one process cannot also have ${maxHeaderBytes}`
      )
    return loaded
  }
  process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(maxHeaderBytes)
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- must run after the line above
  const uws = require('uWebSockets.js') as Uws & { _cfg?: (key: string) => void }
  uws._cfg?.('silent')
  loaded = uws
  loadedHeaderLimit = maxHeaderBytes
  return uws
}

/** close() exists in both builds (it ends every connection) but not in the 20.30 typings. */
export function closeApp(app: TemplatedApp): void {
  ;(app as TemplatedApp & { close(): void }).close()
}

/**
 * One listening port of the gateway or the edge, plain or TLS, served by uWS Apps made by `routes`.
 * With TLS, a renewed certificate (tls/certificate-renewal.ts) is taken up by a new App listening on the same
 * port (SO_REUSEPORT) before the old one stops listening: uWS 20.30 cannot change the certificate of an
 * App without SNI (docs/security.md, "TLS"). The old App serves its open connections on until they
 * end or the listener closes.
 */
export class Listener {
  private socket: us_listen_socket | null = null
  /** Every App made: the listening one last; older ones still serve their open connections. */
  private readonly apps: TemplatedApp[] = []
  private host = ''
  /** The port listened on (the one the system chose when asked for 0); 0 before listen. */
  port = 0
  /** The certificates served now (null: plain HTTP). */
  certificates: CertificateSet | null = null
  private renewal: FileRenewal<CertificateSet> | null = null
  events: TlsEvents = () => {}

  constructor(
    private readonly uws: Uws,
    private readonly routes: (app: TemplatedApp) => void,
    /** Who listens, for the error when it cannot: 'the gateway', 'the edge'. */
    private readonly who: string,
    private readonly tls: TlsConfig | null = null
  ) {
    if (tls === null) return
    if (tls.minVersion !== 'TLSv1.2')
      throw new ConfigError(
        `${tls.at}.minVersion: uWebSockets.js always accepts TLS 1.2 and 1.3 and has no setting for the lowest version; only "TLSv1.2" can be honoured on ${who}'s listener`
      )
    if (tls.clientCertificates !== null && !uwsReadsPeerCertificates())
      throw new ConfigError(
        `${tls.clientCertificates.at}: this uWebSockets.js build (${uwsBuild().version}) cannot show ${who} a client's certificate (no getX509Certificate; the 20.5x builds, as in the image, have it), so it can neither require one nor trust by one. Use the image, or a TLS terminator in front that verifies them (microservice edge nginx-config --client-ca), or mode "off" here`
      )
    this.certificates = loadCertificates(tls)
  }

  listen(host: string, port: number): Promise<number> {
    this.host = host
    return this.listenWith(this.makeApp(), port).then((socket) => {
      if (socket === false) throw new InternalError('IGW_LISTEN', `${this.who} cannot listen on ${host}:${port}`)
      this.socket = socket
      this.port = this.uws.us_socket_local_port(socket)
      if (this.tls !== null && this.certificates !== null) {
        this.renewal = certificateRenewal(this.tls, this.certificates, (set) => this.renew(set), this.events)
        this.renewal.start()
      }
      return this.port
    })
  }

  /** No new connections; the ones open keep being served. */
  stop(): void {
    this.renewal?.stop()
    this.renewal = null
    if (this.socket === null) return
    this.uws.us_listen_socket_close(this.socket)
    this.socket = null
  }

  /** Every App closed, and with them every connection. */
  close(): void {
    this.stop()
    for (const app of this.apps.splice(0)) closeApp(app)
  }

  /**
   * Renewed certificates: a new App takes the port, and the old socket closes in the check phase,
   * right after a poll has accepted what its queue held (connections still queued on a closed socket
   * are reset by Linux). False when the new App cannot listen: the old one serves on.
   */
  private async renew(set: CertificateSet): Promise<boolean> {
    if (this.socket === null) return false
    const old = this.socket
    const previous = this.certificates
    this.certificates = set
    let socket: us_listen_socket | false
    try {
      socket = await this.listenWith(this.makeApp(), this.port)
    } catch (err) {
      socket = false
      this.events('warn', 'tls: the renewed certificates could not be served', {
        listener: this.who,
        error: errorMessage(err)
      })
    }
    if (socket === false || this.socket !== old) {
      this.certificates = previous
      if (socket !== false) this.uws.us_listen_socket_close(socket)
      return false
    }
    this.socket = socket
    await new Promise((resolve) => setImmediate(resolve))
    this.uws.us_listen_socket_close(old)
    return true
  }

  /** Listens with `app`: kept among the Apps when it listens, closed at once when it cannot. */
  private listenWith(app: TemplatedApp, port: number): Promise<us_listen_socket | false> {
    return new Promise((resolve) =>
      app.listen(this.host, port, (token) => {
        if (token === false) closeApp(app)
        else this.apps.push(app)
        resolve(token)
      })
    )
  }

  /** An App with the routes, plain or with the certificates served now (one per server name). */
  private makeApp(): TemplatedApp {
    const set = this.certificates
    let app: TemplatedApp
    if (set === null || this.tls === null) app = this.uws.App()
    else {
      app = withPemFiles(
        set.main,
        (files) => {
          try {
            return this.uws.SSLApp({ ...files, ...(this.tls?.ciphers ? { ssl_ciphers: this.tls.ciphers } : {}) })
          } catch {
            throw new ConfigError(
              `${set.main.at}: uWebSockets.js could not make a TLS context of ${set.main.files.certFile}, ${set.main.files.keyFile}${this.tls?.ciphers ? ` and the ciphers '${this.tls.ciphers}'` : ''}`
            )
          }
        },
        set.clientCa
      )
    }
    this.routes(app)
    // A server name's connections are routed by its own router in uWS, which `domain` selects; it
    // comes last so that the routes above stay the App's own.
    for (const [name, cert] of set?.names ?? []) {
      withPemFiles(cert, (files) => app.addServerName(name, files), set?.clientCa ?? null)
      this.routes(app.domain(name))
    }
    return app
  }
}
