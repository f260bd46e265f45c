// One POST with node:http, for tests that choose the connection: an Agent's keep-alive sockets, or a
// connection of its own (`agent: false`), which fetch() cannot express. Answers as text with the
// headers the tests read.
import { request, type Agent, type IncomingHttpHeaders } from 'node:http'

export interface PostOptions {
  port: number
  path: string
  body: string
  /** `false`: a new connection for this call alone. */
  agent: Agent | false
  host?: string
  headers?: Record<string, string>
  /** Destroys the request with an error when no answer has come by then. */
  timeoutMs?: number
}

export interface PostAnswer {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

export function postOn(o: PostOptions): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: o.host ?? '127.0.0.1',
        port: o.port,
        path: o.path,
        method: 'POST',
        agent: o.agent,
        timeout: o.timeoutMs,
        headers: { 'Content-Type': 'application/json', ...o.headers }
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      }
    )
    if (o.timeoutMs !== undefined) {
      const ms = o.timeoutMs
      req.on('timeout', () => req.destroy(new Error(`no answer within ${ms / 1000} s`)))
    }
    req.on('error', reject)
    req.end(o.body)
  })
}
