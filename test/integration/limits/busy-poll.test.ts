// ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds end to end: calls are answered as ever, the
// thread's loop is kept turning after them, and it goes back to sleep when they stop (docs/operating.md,
// "Busy polling"). The platform runs in this process, so its main thread's BusyPoll is the one imported;
// with listener threads, /proc says whether a thread other than this one is running.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { postOn } from '../../helpers/http-post'
import { busyPoll } from '../../../src/gateway/dispatch/busy-poll'
import { EXAMPLE_DIR, post, startPlatform, until } from '../../helpers/platform'

for (const micros of [0, 10000])
  test(`busyPollMicroseconds ${micros}: 200 calls answered; the loop ${micros === 0 ? 'never polls' : 'polls after calls, then sleeps'}`, async () => {
    const p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { busyPollMicroseconds: micros } } }, [
      EXAMPLE_DIR
    ])
    try {
      let seen = 0
      for (let k = 0; k < 200; k++) {
        const r = await post(p.url, '/example/calculator/multiply', `{"a":${k},"b":3}`)
        assert.equal(r.text, `{"result":${k * 3}}`)
        // Read at the answer, within 10 ms of the frame that brought it: polling unless a pause came between.
        if (busyPoll.polling) seen++
      }
      if (micros === 0) assert.equal(seen, 0)
      else assert.ok(seen > 100, `polling after ${seen} of 200 calls`)
      await until(() => !busyPoll.polling, 5000, 'the loop to sleep again')
    } finally {
      await p.stop()
    }
  })

const tids = (): string[] => readdirSync('/proc/self/task')

/** Of `tids`, how many are running (not asleep) now: /proc's state. */
function running(among: string[]): number {
  let n = 0
  for (const tid of among) {
    try {
      // "pid (comm) S ...": the state follows the last ')'; a thread may end between the two reads.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1')
      if (stat[stat.lastIndexOf(')') + 2] === 'R') n++
    } catch {
      continue
    }
  }
  return n
}

for (const micros of [0, 10000])
  test(`two listener threads, busyPollMicroseconds ${micros}: ${micros === 0 ? 'the listener thread sleeps between calls' : 'the listener thread turns after its calls, then sleeps'}`, async () => {
    const before = new Set(tids())
    const p = await startPlatform(
      { ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2, busyPollMicroseconds: micros } } },
      [EXAMPLE_DIR]
    )
    try {
      // The listener thread started beside this (main) one, and whatever else the platform started;
      // not V8's own threads, which collect garbage at any time.
      const listeners = tids().filter((tid) => !before.has(tid))
      const port = Number(new URL(p.url).port)
      let seen = 0
      for (let k = 0; k < 200; k++) {
        assert.equal(
          (await postOn({ port, path: '/example/calculator/multiply', body: `{"a":${k},"b":3}`, agent: false })).text,
          `{"result":${k * 3}}`
        )
        // A millisecond on: a thread that only answered has gone back to epoll_wait; a polling one
        // runs. About half the connections go to the listener thread, 10 ms of polling each.
        await new Promise((resolve) => setTimeout(resolve, 1))
        if (running(listeners) > 0) seen++
      }
      if (micros === 0) assert.ok(seen < 40, `the listener thread running after ${seen} of 200 calls`)
      else assert.ok(seen > 100, `the listener thread running after ${seen} of 200 calls`)
      await until(() => running(listeners) === 0, 5000, 'the listener thread to sleep again')
    } finally {
      await p.stop()
    }
  })
