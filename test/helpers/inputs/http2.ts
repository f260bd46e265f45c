// One request on an HTTP/2 session, as the edge tests make them: what came back, read whole.
import type { ClientHttp2Session, OutgoingHttpHeaders } from 'node:http2'

export interface H2Answer {
  status: number
  type: string
  text: string
}

/** Sends `headers` (pseudo-headers included) and `body`; rejects on a stream error, naming its code. */
export function h2Exchange(
  session: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  body?: string
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request(headers)
    let status = 0
    let type = ''
    let text = ''
    req.on('response', (h) => {
      status = Number(h[':status'])
      type = String(h['content-type'] ?? '')
    })
    req.setEncoding('utf8')
    req.on('data', (d: string) => (text += d))
    req.on('end', () => resolve({ status, type, text }))
    req.on('error', (e: Error) => reject(new Error(`${e.message} (${req.rstCode})`)))
    req.end(body)
  })
}
