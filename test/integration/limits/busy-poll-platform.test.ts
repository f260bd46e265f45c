// ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds end to end: calls are answered as ever, the
// thread's loop is kept turning after them, and it goes back to sleep when they stop (docs/operating.md,
// "Busy polling"). The platform runs in this process, so its main thread's BusyPoll is the one imported;
// with listener threads, /metrics counts each thread's polling and /proc says whether a thread other
// than this one is running.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { postOn } from '../../helpers/http-post'
import { busyPoll } from '../../../src/gateway/dispatch/busy-poll'
import { EXAMPLE_DIR, post, startPlatform, until } from '../../helpers/platform'

for (const micros of [0, 10000])
  test(`busyPollMicroseconds ${micros}: 200 calls answered; the loop ${micros === 0 ? 'never polls' : 'polls after each, or rests, then sleeps'}`, async () => {
    const p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { busyPollMicroseconds: micros } } }, [
      EXAMPLE_DIR
    ])
    try {
      const polls = busyPoll.polls
      const rests = busyPoll.rests
      let polling = 0
      let resting = 0
      let neither = 0
      for (let k = 0; k < 200; k++) {
        const r = await post(p.url, '/example/calculator/multiply', `{"a":${k},"b":3}`)
        assert.equal(r.text, `{"result":${k * 3}}`)
        // Read at the answer, within 10 ms of the frame that brought it: polling, or resting because
        // the thread was kept from its core while it spun (this process shares two cores with the
        // microservice and its own threads, so some rests are to be expected).
        if (busyPoll.polling) polling++
        else if (busyPoll.resting) resting++
        else neither++
      }
      const counts = { polling, resting, neither, polls: busyPoll.polls - polls, rests: busyPoll.rests - rests }
      if (micros === 0) assert.deepEqual(counts, { polling: 0, resting: 0, neither: 200, polls: 0, rests: 0 })
      else {
        assert.ok(polling > 0 && counts.polls > 0, JSON.stringify(counts))
        // Neither polling nor resting only where a rest ended between the answer's read and this look
        // at it: once per rest at most.
        assert.ok(neither <= counts.rests, JSON.stringify(counts))
      }
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

/** A counter of /metrics by its thread label. */
async function byThread(admin: string, name: string): Promise<Record<string, number>> {
  const families = parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text()) as Array<{
    name: string
    metrics: Array<{ value: string; labels?: Record<string, string> }>
  }>
  const family = families.find((f) => f.name === name)
  return Object.fromEntries((family?.metrics ?? []).map((m) => [m.labels?.thread ?? '', Number(m.value)]))
}

for (const micros of [0, 10000])
  test(`two listener threads, busyPollMicroseconds ${micros}: ${micros === 0 ? 'no thread polls' : 'both threads poll after their calls, /metrics counts it, then they sleep'}`, async () => {
    const before = new Set(tids())
    // This (main) thread's counts are the process's, from every platform this file started.
    const main = { polls: busyPoll.polls, rests: busyPoll.rests }
    const p = await startPlatform(
      {
        ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 2, busyPollMicroseconds: micros } },
        ADMIN: { enabled: true, metrics: true }
      },
      [EXAMPLE_DIR]
    )
    try {
      // The listener thread started beside this (main) one, and whatever else the platform started;
      // not V8's own threads, which collect garbage at any time.
      const listeners = tids().filter((tid) => !before.has(tid))
      const port = Number(new URL(p.url).port)
      for (let k = 0; k < 200; k++)
        assert.equal(
          (await postOn({ port, path: '/example/calculator/multiply', body: `{"a":${k},"b":3}`, agent: false })).text,
          `{"result":${k * 3}}`
        )
      const admin = `http://127.0.0.1:${p.platform.adminPort}`
      const answered = await byThread(admin, 'igw_listener_thread_requests_total')
      const polls = await byThread(admin, 'igw_busy_polls_total')
      const rests = await byThread(admin, 'igw_busy_poll_rests_total')
      polls['0']! -= main.polls
      rests['0']! -= main.rests
      assert.deepEqual(Object.keys(polls), ['0', '1'])
      assert.deepEqual(Object.keys(rests), ['0', '1'])
      // About half the connections go to each thread; each call answered starts a period (or rests).
      assert.ok(answered['1']! > 0, JSON.stringify(answered))
      if (micros === 0)
        assert.deepEqual(
          [polls, rests],
          [
            { 0: 0, 1: 0 },
            { 0: 0, 1: 0 }
          ]
        )
      else for (const t of ['0', '1']) assert.ok(polls[t]! > 0, `thread ${t}: ${JSON.stringify({ polls, rests })}`)
      await until(() => running(listeners) === 0, 5000, 'the listener thread to sleep again')
    } finally {
      await p.stop()
    }
  })
