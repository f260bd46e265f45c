import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { InternalError } from '../../common/errors/internal'

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

/** One listening socket of a uWS app, for the gateway and the edge alike. */
export class Listener {
  private socket: us_listen_socket | null = null
  /** The port listened on (the one the system chose when asked for 0); 0 before listen. */
  port = 0

  constructor(
    private readonly uws: Uws,
    private readonly app: TemplatedApp,
    /** Who listens, for the error when it cannot: 'the gateway', 'the edge'. */
    private readonly who: string
  ) {}

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (token) => {
        if (token === false)
          return reject(new InternalError('IGW_LISTEN', `${this.who} cannot listen on ${host}:${port}`))
        this.socket = token
        this.port = this.uws.us_socket_local_port(token)
        resolve(this.port)
      })
    })
  }

  /** No new connections; the ones open keep being served. */
  stop(): void {
    if (this.socket === null) return
    this.uws.us_listen_socket_close(this.socket)
    this.socket = null
  }
}
