// Platform events (pino) and the access log share the process's stdout. Through a pipe whose reader
// lags, so that the 64 KiB writes fill it, every line must still arrive whole and in order.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const LOG = join(__dirname, '..', '..', '..', 'src', 'common', 'observability', 'log.js')
const LINES = join(__dirname, '..', '..', '..', 'src', 'common', 'observability', 'line-writer.js')

const CHILD = `
const { createLogger } = require(${JSON.stringify(LOG)})
const { stdoutLines } = require(${JSON.stringify(LINES)})
const log = createLogger('info').child({ component: 'platform' })
const access = stdoutLines()
let n = 0
function burst() {
  for (let k = 0; k < 2000; k++) {
    access.write('{"component":"access","n":' + n + ',"pad":"' + 'x'.repeat(200) + '"}\\n')
    if (n % 97 === 0) log.info({ event: 'tick', n }, 'an event between access lines')
    n++
  }
  if (n < 40000) setImmediate(burst)
}
burst()
`

test('events and access lines through one writer: whole lines, in order, with a slow reader', async () => {
  const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] })
  const out = child.stdout
  let text = ''
  out.on('data', (d: Buffer) => {
    text += d.toString()
    // Read slowly: the pipe fills and the child's large writes have to wait.
    out.pause()
    setTimeout(() => out.resume(), 2)
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  assert.equal(code, 0)
  const records = text
    .trimEnd()
    .split('\n')
    .map((l, k) => {
      try {
        return JSON.parse(l) as { component: string; n: number }
      } catch {
        assert.fail(`line ${k} is not whole: ${l.slice(0, 120)}`)
      }
    })
  const access = records.filter((r) => r.component === 'access').map((r) => r.n)
  const events = records.filter((r) => r.component === 'platform').map((r) => r.n)
  assert.deepEqual(
    access,
    Array.from({ length: 40000 }, (_, k) => k)
  )
  assert.equal(events.length, Math.ceil(40000 / 97))
  // An event follows the access line it was written after.
  for (let k = 1; k < records.length; k++) {
    const r = records[k]!
    if (r.component === 'platform') assert.equal(records[k - 1]!.n, r.n)
  }
})
