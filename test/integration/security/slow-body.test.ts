// A body that stalls is the server's timeout (docs/security.md, "Slow bodies"): uWebSockets.js would
// close the connection after its own idle timeout without an answer, so the gateway answers 408
// BODY_TIMEOUT first, closes the connection, and logs what arrived and from whom. A body that keeps
// arriving at uWS's throughput floor or faster is not cut, and a client that leaves mid-body is logged
// as the client's doing, with the bytes that came.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { Platform } from '../../../src/platform/platform'
import { problem, testConfig, until, TESTKIT_DIR, EXAMPLE_DIR, TEST_PLATFORM_OPTIONS } from '../../helpers/platform'

const BODY_TIMEOUT_MS = 400

interface Exchange {
  /** What the server sent, as text. */
  text: string
  /** Whether the server closed the connection. */
  closedByServer: boolean
  ms: number
}

/** Sends `head` and the `pieces` (each after its delay); resolves when the server closes or `limitMs` passes. */
function exchange(port: number, head: string, pieces: Array<[number, string]>, limitMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const t0 = Date.now()
    const s = connect(port, '127.0.0.1')
    let text = ''
    const timers: NodeJS.Timeout[] = []
    const done = (closedByServer: boolean): void => {
      for (const t of timers) clearTimeout(t)
      s.destroy()
      resolve({ text, closedByServer, ms: Date.now() - t0 })
    }
    timers.push(setTimeout(() => done(false), limitMs))
    s.on('error', () => undefined)
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1')
      // A whole answer that keeps the connection open ends the exchange too.
      const end = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)
      if (
        end > 0 &&
        length !== null &&
        text.length - end - 4 >= Number(length[1]) &&
        !/\r\nconnection: *close/i.test(text)
      )
        done(false)
    })
    s.on('end', () => done(true))
    s.write(head)
    let at = 0
    for (const [delay, piece] of pieces) {
      at += delay
      timers.push(setTimeout(() => s.write(piece), at))
    }
  })
}

function parse(text: string): { status: number; headers: Headers; body: string } {
  const end = text.indexOf('\r\n\r\n')
  assert.ok(end > 0, `no HTTP answer: ${JSON.stringify(text)}`)
  const lines = text.slice(0, end).split('\r\n')
  const headers = new Headers()
  for (const line of lines.slice(1)) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1))
  return { status: Number(lines[0]!.split(' ')[1]), headers, body: text.slice(end + 4) }
}

function head(length: number, type = 'application/json', path = '/example/calculator/multiply'): string {
  return `POST ${path} HTTP/1.1\r\nHost: gateway\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`
}

interface AccessLine {
  status: number
  code?: string
  bytesIn: number
  client: string
}

describe('a body that stalls', () => {
  const lines: string[] = []
  let platform: Platform
  let port = 0
  before(async () => {
    platform = new Platform(
      testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { bodyTimeoutMs: BODY_TIMEOUT_MS } } }),
      {
        ...TEST_PLATFORM_OPTIONS,
        accessLog: { write: (l: string) => void lines.push(l) }
      }
    )
    port = await platform.start([EXAMPLE_DIR, TESTKIT_DIR])
  })
  after(async () => {
    await platform?.stop(0, 0)
  })

  /** The access-log line of the request with this request id. */
  async function logged(requestId: string): Promise<AccessLine> {
    const find = (): string | undefined => lines.find((l) => l.includes(`"requestId":"${requestId}"`))
    await until(() => find() !== undefined, 5000, `the access-log line of ${requestId}`)
    return JSON.parse(find()!) as AccessLine
  }

  test('half a JSON body, then nothing: 408 BODY_TIMEOUT, the connection closed, logged as the timeout with the bytes and the client', async () => {
    const e = await exchange(port, head(100) + '{"a":2,"b":3,' + ' '.repeat(37), [], 10000)
    assert.ok(e.closedByServer, 'the server closes the connection')
    assert.ok(e.ms < 5000, `answered after ${e.ms} ms, before uWS's own timeout`)
    const r = parse(e.text)
    assert.equal(r.headers.get('connection')?.trim(), 'close')
    const p = problem({
      status: r.status,
      headers: r.headers,
      text: r.body.slice(0, Number(r.headers.get('content-length')))
    })
    assert.equal(r.status, 408)
    assert.equal(p.code, 'BODY_TIMEOUT')
    assert.match(p.detail, /^50 of the body's 100 bytes arrived; less than 163840 bytes came within 400 ms$/)
    const line = await logged(p.requestId)
    assert.equal(line.status, 408)
    assert.equal(line.code, 'BODY_TIMEOUT')
    assert.equal(line.bytesIn, 50)
    assert.equal(line.client, '127.0.0.1')
  })

  test('an XML body that stalls gets the problem in XML', async () => {
    const xml = `${head(200, 'application/xml').slice(0, -2)}X-PLATFORM-Sequence-Name: alphaParamArrayXmlInOutSequence\r\n\r\n`
    const e = await exchange(port, xml + '<in><a>2</a>', [], 10000)
    const r = parse(e.text)
    assert.equal(r.status, 408)
    assert.match(r.headers.get('content-type') ?? '', /^\s*application\/problem\+xml/)
    assert.match(r.body, /<code>BODY_TIMEOUT<\/code>/)
  })

  test('a body that arrives at the throughput floor or faster is not cut, however long it takes', async () => {
    // 1 MiB of JSON whitespace after the object, in 200 KB pieces 250 ms apart: each piece is more than
    // the floor, so the timeout is reset by each; the body takes well over the timeout in all.
    const piece = ' '.repeat(200 * 1024)
    const json = '{"a":6,"b":7}'
    const pieces: Array<[number, string]> = Array.from({ length: 5 }, () => [250, piece] as [number, string])
    const e = await exchange(port, head(json.length + 5 * piece.length) + json, pieces, 10000)
    assert.ok(e.ms > 3 * BODY_TIMEOUT_MS, `the body took ${e.ms} ms`)
    const r = parse(e.text)
    assert.equal(r.status, 200, r.body)
    assert.equal(r.body.slice(0, Number(r.headers.get('content-length'))), '{"result":42}')
  })

  test('a body that trickles below the floor is cut although bytes keep coming', async () => {
    const pieces: Array<[number, string]> = Array.from({ length: 20 }, () => [100, ' '.repeat(100)] as [number, string])
    const e = await exchange(port, head(5000) + '{"a":6,"b":7}', pieces, 10000)
    assert.equal(parse(e.text).status, 408)
  })

  test('a client that leaves mid-body is logged as the client closing, with the bytes that came', async () => {
    const before = lines.length
    const s = connect(port, '127.0.0.1')
    await new Promise<void>((resolve) => s.on('connect', resolve))
    s.write(head(100, 'application/json') + '{"a":2,')
    await new Promise((r) => setTimeout(r, 100))
    s.destroy()
    await until(() => lines.slice(before).some((l) => l.includes('"status":499')), 5000, 'the 499 line')
    const line = JSON.parse(lines.slice(before).find((l) => l.includes('"status":499'))!) as AccessLine
    assert.equal(line.code, 'CLIENT_CLOSED')
    assert.equal(line.bytesIn, 7)
  })

  test('nothing is held afterwards: no request in flight, no body bytes reserved, the body list empty', async () => {
    await until(() => platform.gateway.inFlight === 0, 5000, 'no request in flight')
    assert.equal(platform.gateway.calls.bounds.inFlight, 0)
    assert.equal(platform.gateway.calls.bodyBytes, 0)
    assert.equal(platform.gateway.calls.bodyDeadlines.size, 0)
    // And the gateway answers as before.
    const ok = await fetch(`http://127.0.0.1:${port}/example/calculator/multiply`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":2,"b":3}'
    })
    assert.equal(await ok.text(), '{"result":6}')
  })
})
