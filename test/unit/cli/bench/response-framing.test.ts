// Where an answer ends, as the bench's load generator reads it: Content-Length in any case and
// spacing, chunked (extensions, trailers, after another coding), a body that ends with the
// connection, answers without a body, Connection: close among other tokens, and every split point
// of a chunked answer reported as incomplete until it is whole.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { dechunk, frame, INCOMPLETE, MALFORMED, UNTIL_CLOSE } from '../../../../src/cli/bench/response-framing'

function framed(text: string): ReturnType<typeof frame> & { body: string } {
  const buf = Buffer.from(text, 'latin1')
  const head = buf.indexOf('\r\n\r\n')
  const f = frame(buf, head)
  const body =
    f.end < 0 ? '' : (f.chunked ? dechunk(buf, head + 4, f.end) : buf.subarray(head + 4, f.end)).toString('latin1')
  return { ...f, body }
}

test('Content-Length in any case and spacing', () => {
  const f = framed('HTTP/1.1 200 OK\r\ncontent-LENGTH:\t 5 \r\nX: y\r\n\r\nhelloNEXT')
  assert.deepEqual([f.status, f.body, f.chunked, f.closing], [200, 'hello', false, false])
  assert.equal(f.end, Buffer.byteLength('HTTP/1.1 200 OK\r\ncontent-LENGTH:\t 5 \r\nX: y\r\n\r\nhello'))
})

test('chunked, with an extension and a trailer, after another coding; Transfer-Encoding wins over a length', () => {
  const text =
    'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n4;x=y\r\nwiki\r\n5\r\npedia\r\n0\r\nT: 1\r\n\r\n'
  const f = framed(`${text}NEXT`)
  assert.deepEqual([f.chunked, f.body, f.end], [true, 'wikipedia', Buffer.byteLength(text)])
})

test('a chunked answer is incomplete at every split point until its last byte', () => {
  const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n3\r\nabc\r\n0\r\n\r\n'
  const head = text.indexOf('\r\n\r\n')
  for (let cut = head + 4; cut < text.length; cut++)
    assert.equal(frame(Buffer.from(text.slice(0, cut), 'latin1'), head).end, INCOMPLETE, `cut at ${cut}`)
  assert.equal(framed(text).body, '0123456789abc')
})

test('no length and not chunked: the body ends with the connection; 204 and 304 have none', () => {
  assert.equal(framed('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello').end, UNTIL_CLOSE)
  for (const status of [204, 304]) {
    const text = `HTTP/1.1 ${status} X\r\nServer: s\r\n\r\n`
    assert.equal(framed(text).end, text.length)
  }
})

test('Connection: close among other tokens, not inside another word', () => {
  assert.equal(framed('HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n').closing, true)
  assert.equal(framed('HTTP/1.1 200 OK\r\nConnection: closed-ish\r\nContent-Length: 0\r\n\r\n').closing, false)
})

test('a chunk size that is not hex is malformed', () => {
  assert.equal(framed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n').end, MALFORMED)
})
