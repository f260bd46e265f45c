// ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds end to end: calls are answered as ever, the
// thread's loop is kept turning after them, and it goes back to sleep when they stop (docs/operating.md,
// "Busy polling"). The platform runs in this process, so its main thread's BusyPoll is the one imported.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { busyPoll } from '../../src/gateway/dispatch/busy-poll'
import { EXAMPLE_DIR, post, startPlatform, until } from '../helpers/platform'

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
