// Busy polling keeps a thread's event loop turning for its budget after the last call or answer, and
// then lets it sleep, and the platform warns when polling threads would leave no core free
// (src/gateway/dispatch/busy-poll.ts; docs/operating.md, "Busy polling").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BusyPoll, crowdedWarning } from '../../../../src/gateway/dispatch/busy-poll'

/** The loop's turns until it stops, with a clock that moves `step` ms a turn (none are timed). */
async function turnsUntilIdle(poll: BusyPoll, clock: { ms: number }, step: number, limit = 1000): Promise<number> {
  let turns = 0
  while (poll.polling && turns < limit) {
    await new Promise((r) => setImmediate(r))
    clock.ms += step
    turns++
  }
  return turns
}

test('after an activity the loop turns until the budget has passed since the last one, then stops', async () => {
  const clock = { ms: 1000 }
  const poll = new BusyPoll(200, () => clock.ms)
  poll.active()
  assert.equal(poll.polling, true)
  // 200 µs at 0.01 ms a turn: about 20 turns, then idle.
  const turns = await turnsUntilIdle(poll, clock, 0.01)
  assert.ok(turns >= 19 && turns <= 22, `${turns} turns`)
  assert.equal(poll.polling, false)
})

test('each activity moves the end: a call every 0.1 ms keeps it turning, and it stops 0.2 ms after the last', async () => {
  const clock = { ms: 0 }
  const poll = new BusyPoll(200, () => clock.ms)
  poll.active()
  for (let k = 0; k < 50; k++) {
    await new Promise((r) => setImmediate(r))
    clock.ms += 0.1
    assert.equal(poll.polling, true, `turn ${k}`)
    poll.active()
  }
  const turns = await turnsUntilIdle(poll, clock, 0.1)
  assert.ok(turns >= 2 && turns <= 4, `${turns} turns after the last`)
})

test('0 (the default): an activity never keeps the loop turning', async () => {
  const clock = { ms: 0 }
  const poll = new BusyPoll(0, () => clock.ms)
  poll.active()
  assert.equal(poll.polling, false)
  poll.configure(100)
  poll.active()
  assert.equal(poll.polling, true)
  assert.ok((await turnsUntilIdle(poll, clock, 0.05)) <= 3)
})

test('one chain of turns, however many activities come while it turns', async () => {
  const clock = { ms: 0, asked: 0 }
  const poll = new BusyPoll(1000, () => (clock.asked++, clock.ms))
  for (let k = 0; k < 5; k++) poll.active()
  clock.asked = 0
  let turns = 0
  while (poll.polling && turns < 100) {
    await new Promise((r) => setImmediate(r))
    clock.ms += 0.25
    turns++
  }
  // Each turn asks the clock once; five chains would ask it five times a turn.
  assert.ok(clock.asked <= turns + 1, `${clock.asked} readings of the clock in ${turns} turns`)
})

test('a warning when polling threads would take every core; none with a core to spare or without polling', () => {
  assert.equal(crowdedWarning(0, 2, 2), null)
  assert.equal(crowdedWarning(100, 1, 2), null)
  assert.equal(crowdedWarning(100, 3, 4), null)
  assert.equal(
    crowdedWarning(100, 2, 2),
    'busyPollMicroseconds 100 with 2 listener threads on 2 cores: no core is left for other work while the ' +
      'threads poll, and calls slow down; set fewer threads, or busyPollMicroseconds 0'
  )
  assert.match(crowdedWarning(1, 1, 1) ?? '', /^busyPollMicroseconds 1 with 1 listener thread on 1 core: /)
  assert.match(crowdedWarning(200, 4, 2) ?? '', /^busyPollMicroseconds 200 with 4 listener threads on 2 cores: /)
})
