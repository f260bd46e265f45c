// Busy polling keeps a thread's event loop turning for its budget after the last call or answer, and
// then lets it sleep; kept from its core while it spins, it gives way (src/gateway/dispatch/busy-poll.ts;
// docs/operating.md, "Busy polling").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { BusyPoll, CoreWaits, REST_AFTER_NS, REST_MS, TURNS_A_LOOK } from '../../../../src/gateway/dispatch/busy-poll'

/** The thread's time waiting for a core as these tests set it: none unless a test says so. */
const calm = (): number => 0

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
  const poll = new BusyPoll(200, () => clock.ms, calm)
  poll.active()
  assert.equal(poll.polling, true)
  // 200 µs at 0.01 ms a turn: about 20 turns, then idle.
  const turns = await turnsUntilIdle(poll, clock, 0.01)
  assert.ok(turns >= 19 && turns <= 22, `${turns} turns`)
  assert.equal(poll.polling, false)
})

test('each activity moves the end: a call every 0.1 ms keeps it turning, and it stops 0.2 ms after the last', async () => {
  const clock = { ms: 0 }
  const poll = new BusyPoll(200, () => clock.ms, calm)
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
  const poll = new BusyPoll(0, () => clock.ms, calm)
  poll.active()
  assert.equal(poll.polling, false)
  poll.configure(100)
  poll.active()
  assert.equal(poll.polling, true)
  assert.ok((await turnsUntilIdle(poll, clock, 0.05)) <= 3)
})

test('one chain of turns, however many activities come while it turns', async () => {
  const clock = { ms: 0, asked: 0 }
  const poll = new BusyPoll(1000, () => (clock.asked++, clock.ms), calm)
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

test('kept from its core for REST_AFTER_NS while it spins, the loop stops within TURNS_A_LOOK turns and rests for REST_MS; shorter waits are let be', async () => {
  const clock = { ms: 0 }
  const waited = { ns: 7000 }
  const poll = new BusyPoll(
    1000,
    () => clock.ms,
    () => waited.ns
  )
  // A step that adds up exactly (2^-10 ms), so that the rest's end falls on a reading of the clock.
  const step = 1 / 1024
  const turn = async (): Promise<void> => {
    await new Promise((r) => setImmediate(r))
    clock.ms += step
  }
  poll.active()
  // Waits shorter than REST_AFTER_NS between two looks, however many, are the kernel's own.
  for (let k = 0; k < 5; k++) {
    waited.ns += REST_AFTER_NS - 1
    for (let t = 0; t < TURNS_A_LOOK; t++) await turn()
    assert.equal(poll.polling, true, `short wait ${k}: still turning`)
  }
  waited.ns += REST_AFTER_NS
  const last = await turnsUntilIdle(poll, clock, step)
  assert.ok(last >= 1 && last <= TURNS_A_LOOK, `stopped ${last} turns after a long wait`)
  assert.equal(poll.rests, 1)
  assert.equal(poll.resting, true)
  // Calls and answers while it rests keep the loop asleep between them; it ends REST_MS after the
  // turn that rested (one step before this reading of the clock).
  clock.ms += REST_MS - step - 0.5
  poll.active()
  assert.equal(poll.polling, false)
  clock.ms += 0.5
  assert.equal(poll.resting, false)
  poll.active()
  assert.equal(poll.polling, true, 'after REST_MS an activity polls again')
  assert.equal(poll.polls, 2)
  // A wait before this period began (counted from its start) does not end it: 1 ms at 0.125 ms a turn
  // (a step that adds up exactly) is about 8 turns.
  const turns = await turnsUntilIdle(poll, clock, 0.125)
  assert.ok(turns >= 8 && turns <= 10, `${turns} turns`)
  assert.equal(poll.rests, 1)
})

test('the wait is looked at once every TURNS_A_LOOK turns, and once as polling starts', async () => {
  const clock = { ms: 0 }
  let looks = 0
  const poll = new BusyPoll(
    1000,
    () => clock.ms,
    () => (looks++, 0)
  )
  poll.active()
  assert.equal(looks, 1)
  for (let t = 1; t <= TURNS_A_LOOK * 4; t++) {
    await new Promise((r) => setImmediate(r))
    clock.ms += 1 / 1024
    assert.equal(looks, 1 + Math.floor(t / TURNS_A_LOOK), `after turn ${t}`)
  }
  assert.equal(poll.polling, true)
  clock.ms += 2
  assert.ok((await turnsUntilIdle(poll, clock, 0)) <= 1)
})

/** The descriptors this process holds. */
const openFiles = (): number => readdirSync('/proc/self/fd').length

/** The second number of /proc/thread-self/schedstat, as the kernel writes it now. */
const waitedNow = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[1])

test("CoreWaits reads this thread's time waiting for a core (schedstat's second number), again at each read", () => {
  const waits = new CoreWaits()
  for (let k = 0; k < 3; k++) {
    const before = waitedNow()
    const read = waits.read()
    const after = waitedNow()
    assert.ok(before <= read && read <= after, `${before} <= ${read} <= ${after}`)
  }
  // Missing at the first read: 0 from then on, without looking again (a file that appears later is not read).
  const later = join(mkdtempSync(join(tmpdir(), 'core-waits-')), 'schedstat')
  const missing = new CoreWaits(later)
  assert.equal(missing.read(), 0)
  writeFileSync(later, '100 200 3\n')
  assert.equal(missing.read(), 0)
  assert.equal(new CoreWaits(later).read(), 200, 'the same file, read from the start')
  rmSync(dirname(later), { recursive: true })
  // A file that opens but cannot be read (a directory): 0, then 0 without opening it again.
  const open = openFiles()
  const unreadable = new CoreWaits('/proc/thread-self')
  assert.equal(unreadable.read(), 0)
  assert.equal(openFiles(), open, 'the directory it opened is closed again')
  for (let k = 0; k < 5; k++) assert.equal(unreadable.read(), 0)
  assert.equal(openFiles(), open)
})

test('CoreWaits opens its file once, however often it reads', () => {
  const waits = new CoreWaits()
  waits.read()
  const open = openFiles()
  for (let k = 0; k < 50; k++) waits.read()
  assert.equal(openFiles(), open)
})
