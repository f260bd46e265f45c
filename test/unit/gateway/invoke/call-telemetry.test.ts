// The access-log line is built by hand (and its head kept per route): every line must still be one
// JSON record with the request's own fields, whatever the path, status or request id holds. And the
// listener threads' route counts add up into one set of totals.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { CallTelemetry, addedRoutes, routeCounts, RouteStats } from '../../../../src/gateway/invoke/call-telemetry'
import { createLogger } from '../../../../src/common/observability/log'
import { BatchedLineWriter } from '../../../../src/common/observability/line-writer'
import { putJsonString, putMillis, putUint, jsonBound } from '../../../../src/common/bytes/json-bytes'
import type { ObservedCall } from '../../../../src/gateway/invoke/interfaces'
import type { MethodInfo } from '../../../../src/gateway/dispatch/catalog'

const multiply: MethodInfo = {
  service: 'calc',
  name: 'multiply',
  parameterCount: 2,
  returnsVoid: false,
  needsPrivilege: false
}

function call(over: Partial<ObservedCall>, elapsedMs = 1.005): ObservedCall {
  return {
    requestId: 'r-1',
    httpMethod: 'post',
    microservice: 'example',
    method: multiply,
    url: '/example/calc/multiply',
    status: 200,
    code: '',
    bytesIn: 13,
    bytesOut: 12,
    startedAt: performance.now() - elapsedMs,
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    clientAddress: () => '127.0.0.1',
    ...over
  }
}

function record(line: string): Record<string, unknown> {
  assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line')
  return JSON.parse(line) as Record<string, unknown>
}

test('each line is its own request, also when the route repeats with another status or path', () => {
  const lines: string[] = []
  const t = new CallTelemetry(false, { write: (l) => void lines.push(l) })
  t.finished(call({ requestId: 'a' }), null)
  t.finished(call({ requestId: 'b', status: 400, code: 'BAD_ARGUMENT' }), null)
  t.finished(call({ requestId: 'c', url: '/example/calc/multiply?x="q"\\ü' }), null)
  t.finished(call({ requestId: 'd', httpMethod: 'put', status: 405, code: 'METHOD_NOT_ALLOWED' }), null)
  t.finished(
    call({ requestId: 'e"\u2028', method: null, microservice: '', url: '/x', status: 404, code: 'NOT_FOUND' }),
    null
  )
  const [a, b, c, d, e] = lines.map(record)
  assert.deepEqual(
    [a, b, c, d, e].map((r) => [r!.requestId, r!.method, r!.path, r!.status, r!.code, r!.msg]),
    [
      ['a', 'POST', '/example/calc/multiply', 200, undefined, 'POST /example/calc/multiply 200'],
      ['b', 'POST', '/example/calc/multiply', 400, 'BAD_ARGUMENT', 'POST /example/calc/multiply 400'],
      ['c', 'POST', '/example/calc/multiply?x="q"\\ü', 200, undefined, 'POST /example/calc/multiply?x="q"\\ü 200'],
      ['d', 'PUT', '/example/calc/multiply', 405, 'METHOD_NOT_ALLOWED', 'PUT /example/calc/multiply 405'],
      ['e"\u2028', 'POST', '/x', 404, 'NOT_FOUND', 'POST /x 404']
    ]
  )
  assert.equal(a!.operation, 'multiply')
  assert.equal(e!.microservice, undefined)
  assert.equal(a!.traceId, '0af7651916cd43dd8448eb211c80319c')
  assert.equal(a!.component, 'access')
  assert.equal(a!.client, '127.0.0.1')
})

test('the duration is in milliseconds with three decimals', () => {
  const lines: string[] = []
  const t = new CallTelemetry(false, { write: (l) => void lines.push(l) })
  const spans: number[] = []
  for (const ms of [0.0004, 0.05, 1.005, 12.5, 1234.5678]) {
    const before = performance.now()
    t.finished(call({}, ms), null)
    spans.push(performance.now() - before)
  }
  const got = lines.map((l) => record(l).ms as number)
  for (const [k, ms] of [0.0004, 0.05, 1.005, 12.5, 1234.5678].entries()) {
    // The line's duration is the call's plus however long making the call and the line took, which is
    // measured around them (no bound that a loaded machine could break), rounded to three decimals.
    const low = Math.round(ms * 1000) / 1000
    const high = Math.round((ms + spans[k]!) * 1000) / 1000 + 0.001
    assert.ok(got[k]! >= low && got[k]! <= high, `${ms} ms → ${got[k]} (between ${low} and ${high})`)
    assert.match(/"ms":([0-9.]+)/.exec(lines[k]!)![1]!, /^\d+\.\d{3}$/)
  }
})

test('written in place into the batched writer, the lines are the same bytes, long ones too', async () => {
  const calls = [
    call({ requestId: 'a' }),
    call({ requestId: 'ü"\n\u0001😀', status: 400, code: 'BAD_ARGUMENT' }),
    call({ requestId: 'x'.repeat(70000), traceparent: '' }),
    ...Array.from({ length: 400 }, (_, k) => call({ requestId: `r${k}`, bytesIn: k * 1013, bytesOut: 2 ** 40 + k }))
  ]
  const lines: string[] = []
  const viaStrings = new CallTelemetry(false, { write: (l) => void lines.push(l) })
  const file = join(mkdtempSync(join(tmpdir(), 'access-')), 'access.log')
  const fd = openSync(file, 'w')
  const w = new BatchedLineWriter(fd)
  const inPlace = new CallTelemetry(false, w)
  for (const c of calls) {
    viaStrings.finished(c, null)
    inPlace.finished(c, null)
  }
  // The line too long for the buffer sealed the first two lines' chunk and began writing it on a
  // libuv thread: the file is whole once that write is done (it lost that race under load in CI).
  await w.whenIdle()
  w.flushSync()
  closeSync(fd)
  // The clock moved between the two calls: compare the lines without the time and the duration.
  const noMs = (l: string): string => l.replace(/"time":"[^"]+"/, '').replace(/"ms":[0-9.]+/, '')
  assert.deepEqual(
    readFileSync(file, 'utf8').split('\n').slice(0, -1).map(noMs),
    lines.map((l) => noMs(l.slice(0, -1)))
  )
  assert.equal(lines.length, calls.length)
  assert.equal(record(lines[1]!).requestId, 'ü"\n\u0001😀')
  assert.equal(record(lines[2]!).requestId, 'x'.repeat(70000))
  assert.equal(record(lines[3 + 399]!).bytesOut, 2 ** 40 + 399)
  assert.equal(w.dropped, 0)
})

test('numbers and strings as JSON bytes', () => {
  const b = Buffer.alloc(256)
  for (const n of [0, 7, 10, 99, 100, 65535, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]) {
    assert.equal(b.toString('latin1', 0, putUint(b, 0, n)), String(n))
  }
  for (const [us, text] of [
    [0, '0.000'],
    [5, '0.005'],
    [1005, '1.005'],
    [1234567, '1234.567'],
    [990, '0.990']
  ] as const) {
    assert.equal(b.toString('latin1', 0, putMillis(b, 0, us)), text)
  }
  for (const s of ['', 'plain', 'q"uote', 'back\\slash', 'tab\t', 'é', '\u2028', '😀', '\ud800', '\u007f']) {
    const end = putJsonString(b, 0, s)
    assert.ok(end <= jsonBound(s))
    assert.equal(JSON.parse(b.toString('utf8', 0, end)), s)
  }
})

test("one line format: the access log's lines and pino's events start and end alike", () => {
  const events: string[] = []
  createLogger('info', { write: (l: string) => void events.push(l) })
    .child({ component: 'manager' })
    .info({ event: 'instance-up', microservice: 'example' }, 'example/1 is up')
  const access: string[] = []
  new CallTelemetry(false, { write: (l) => void access.push(l) }).finished(call({}), null)
  const shape = (line: string): { head: string[]; last: string; time: unknown; pid: unknown } => {
    const r = record(line)
    const keys = Object.keys(r)
    return { head: keys.slice(0, 4), last: keys[keys.length - 1]!, time: r.time, pid: r.pid }
  }
  const [event, line] = [shape(events[0]!), shape(access[0]!)]
  assert.deepEqual(event.head, ['level', 'time', 'pid', 'component'])
  assert.deepEqual(line.head, event.head)
  assert.deepEqual([event.last, line.last], ['msg', 'msg'])
  for (const s of [event, line]) {
    assert.match(String(s.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal(s.pid, process.pid)
  }
  assert.deepEqual(
    [record(events[0]!).level, record(access[0]!).level],
    ['info', 'info'],
    'the level as a word in both'
  )
})

test("each line's time is its own millisecond, within a second and across seconds, years and leap days", () => {
  // The line's start is made once a second and only its millisecond digits rewritten in between: a
  // digit written in the wrong place, or a second that keeps the last one's start, shows here.
  let now = 0
  const lines: string[] = []
  const telemetry = new CallTelemetry(false, { write: (l) => void lines.push(l) }, () => now)
  const times = [
    Date.UTC(2026, 10, 28, 16, 46, 35, 771),
    Date.UTC(2026, 10, 28, 16, 46, 35, 772),
    Date.UTC(2026, 10, 28, 16, 46, 35, 9),
    Date.UTC(2026, 10, 28, 16, 46, 35, 990),
    Date.UTC(2026, 10, 28, 16, 46, 36, 0),
    Date.UTC(2026, 10, 28, 16, 46, 36, 100),
    Date.UTC(2026, 10, 28, 16, 46, 36, 100),
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(2027, 0, 1, 0, 0, 0, 1),
    Date.UTC(2028, 1, 29, 12, 0, 0, 58)
  ]
  for (const t of times) {
    now = t
    telemetry.finished(call({}), null)
  }
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { time: string }).time),
    times.map((t) => new Date(t).toISOString())
  )
})

test("threads' route counts add up into one set of totals", () => {
  const a = new RouteStats('example', 'calculator', 'multiply')
  a.ok200 = 3
  a.count = 4
  a.failures.set('OVERLOADED', new Map([[503, 1]]))
  a.buckets[0] = 4
  const b = new RouteStats('example', 'calculator', 'multiply')
  b.ok200 = 5
  b.count = 6
  b.failures.set('OVERLOADED', new Map([[503, 1]]))
  b.buckets[1] = 6
  const [sum, ...rest] = addedRoutes([[a], [routeCounts(b)]])
  assert.equal(rest.length, 0)
  assert.equal(sum!.ok200, 8)
  assert.equal(sum!.count, 10)
  assert.deepEqual([...sum!.failures.get('OVERLOADED')!], [[503, 2]])
  assert.deepEqual([sum!.buckets[0], sum!.buckets[1]], [4, 6])
})
