// Malformed or unusual HTTP/1.1 requests and what each uWebSockets.js build answers, measured
// directly on the gateway (no nginx): `current` for the image's build (20.57, Node 24), `host` for
// the lock file's build (20.30, Node 20); null means no answer (the connection is held or closed
// without one). docs/security.md, "Malformed HTTP", has the same table.
import { connect } from 'node:net'

const P = '/example/calculator/multiply'
const HEAD = `POST ${P} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n`
const BODY = '{"a":2,"b":3}'

export interface MalformedKind {
  readonly name: string
  readonly text: string
  readonly current: string | null
  readonly host: string | null
}

export const MALFORMED_KINDS: readonly MalformedKind[] = [
  // Refused by the gateway itself on both builds (uWS frames the body by the first one).
  {
    name: 'conflicting Content-Length',
    text: `${HEAD}Content-Length: 13\r\nContent-Length: 5\r\n\r\n${BODY}`,
    current: '400',
    host: '400'
  },
  {
    name: 'Transfer-Encoding with Content-Length',
    text: `${HEAD}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
    current: '400',
    host: null
  },
  {
    name: 'a header line without a colon',
    text: `${HEAD}Bogus header line\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '400',
    host: null
  },
  { name: 'a space before the colon', text: `${HEAD}Content-Length : 13\r\n\r\n${BODY}`, current: '400', host: null },
  {
    name: 'obs-fold',
    text: `${HEAD}X-PLATFORM-Locale: en\r\n  folded\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '400',
    host: null
  },
  {
    name: 'a NUL in a header',
    text: `${HEAD}X-A: a\0b\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '400',
    host: null
  },
  {
    name: 'a NUL in the path',
    text: `POST ${P}\0x HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '505',
    host: null
  },
  {
    name: 'no Host header',
    text: `POST ${P} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '400',
    host: null
  },
  {
    name: 'a 64 KiB header',
    text: `${HEAD}X-Big: ${'a'.repeat(64 * 1024)}\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '431',
    host: '200'
  },
  {
    name: '200 headers',
    text: `${HEAD}${Array.from({ length: 200 }, (_, k) => `X-H${k}: v`).join('\r\n')}\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '431',
    host: null
  },
  {
    name: 'bare LF line ends',
    text: `POST ${P} HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 13\n\n${BODY}`,
    current: '505',
    host: null
  },
  {
    name: 'an absolute-form target',
    text: `POST http://x${P} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '505',
    host: null
  },
  {
    name: 'HTTP/1.0',
    text: `POST ${P} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '505',
    host: null
  },
  // Well-formed and answered: the same Content-Length twice, and 70 headers (20.30 holds those).
  {
    name: 'the same Content-Length twice',
    text: `${HEAD}Content-Length: 13\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '200',
    host: '200'
  },
  {
    name: '70 headers',
    text: `${HEAD}${Array.from({ length: 70 }, (_, k) => `X-H${k}: v`).join('\r\n')}\r\nContent-Length: 13\r\n\r\n${BODY}`,
    current: '200',
    host: null
  }
]

/** What came back on a raw connection: the first answer's status, headers and body, and when. */
export interface RawAnswer {
  status: string
  headers: Headers
  body: string
  ms: number
}

/** Sends raw bytes; resolves with the first answer, or null when none comes within `timeoutMs`. */
export function firstAnswer(port: number, text: string, timeoutMs = 1000): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    const t0 = Date.now()
    const s = connect(port, '127.0.0.1')
    let got = ''
    let done = false
    const settle = (answer: Omit<RawAnswer, 'ms'> | null): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      s.destroy()
      resolve(answer === null ? null : { ...answer, ms: Date.now() - t0 })
    }
    const timer = setTimeout(() => settle(null), timeoutMs)
    const parse = (closed: boolean): void => {
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) return closed ? settle(null) : undefined
      const lines = got.slice(0, end).split('\r\n')
      const headers = new Headers()
      for (const line of lines.slice(1))
        headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim())
      const body = got.slice(end + 4)
      const length = Number(headers.get('content-length') ?? NaN)
      if (closed || body.length >= length)
        settle({
          status: lines[0]!.split(' ')[1] ?? '',
          headers,
          body: Number.isNaN(length) ? body : body.slice(0, length)
        })
    }
    s.on('error', () => undefined)
    s.on('data', (d) => {
      got += d.toString('latin1')
      parse(false)
    })
    s.on('close', () => parse(true))
    s.write(text)
  })
}
