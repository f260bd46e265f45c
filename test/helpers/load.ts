// Steady load through an edge: keep-alive clients calling {microservice}/calculator/multiply in a loop,
// every answer checked, failures counted by status and problem code, while something happens to the
// nodes. Every call carries an X-PLATFORM-Request-ID of its own; an instance of test/fixtures/loadkit
// records the ids it executed (Records), so a test can tell which instance ran what and that no call
// ran twice, and can hold calls on the instance it is about to kill (holdOn).
import { Agent } from 'node:http'
import { postOn } from './http-post'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import assert from 'node:assert/strict'

export const CLIENTS = 16

export interface Tally {
  ok: number
  /** Failures by status and problem code ('ERR' for a client-side error such as a reset). */
  failed: Map<string, number>
  wrong: number
  /** The X-PLATFORM-Request-ID of every call answered 200 with the right result. */
  answered: string[]
}

async function call(url: URL, path: string, agent: Agent | false, id: string, body: string, timeoutMs: number) {
  const { status, text } = await postOn({
    host: url.hostname,
    port: Number(url.port),
    path,
    body,
    agent,
    timeoutMs,
    headers: { 'X-PLATFORM-Request-ID': id }
  })
  return { status, text }
}

/**
 * A failed answer as `failures` keys it: its status and problem code, or, when the body is not a
 * problem document (an edge's own page), the body's first 40 characters.
 */
export function failureKey(status: number, text: string): string {
  let code: unknown
  try {
    code = (JSON.parse(text) as { code?: unknown }).code
  } catch {
    // not JSON: its first characters say what it is
  }
  return `${status} ${typeof code === 'string' ? code : text.slice(0, 40)}`
}

/**
 * Runs the clients until `during` has finished and `tailMs` more have passed. They call
 * `microservice` (a copy of the example under another name, the example itself, or loadkit).
 */
export async function underLoad(
  nginxUrl: string,
  during: () => Promise<void>,
  tailMs = 500,
  microservice = 'example'
): Promise<Tally> {
  const url = new URL(nginxUrl)
  const path = `/_eapi/ELASTIC_HTTP/${microservice}/calculator/multiply`
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  const tally: Tally = { ok: 0, failed: new Map(), wrong: 0, answered: [] }
  // Ids unique across runs and clients (k steps by CLIENTS from the client's number).
  const run = randomUUID().slice(0, 8)
  let running = true
  const client = async (c: number): Promise<void> => {
    for (let k = c; running; k += CLIENTS) {
      const id = `load-${run}-${k}`
      try {
        const r = await call(url, path, agent, id, `{"a":${k},"b":3}`, 15000)
        if (r.status === 200) {
          if (r.text === `{"result":${k * 3}}`) {
            tally.ok++
            tally.answered.push(id)
          } else tally.wrong++
        } else {
          const key = failureKey(r.status, r.text)
          tally.failed.set(key, (tally.failed.get(key) ?? 0) + 1)
        }
      } catch (err) {
        const key = `ERR ${(err as Error).message}`
        tally.failed.set(key, (tally.failed.get(key) ?? 0) + 1)
      }
    }
  }
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c))
  const started = Date.now()
  await new Promise((r) => setTimeout(r, 300))
  await during()
  await new Promise((r) => setTimeout(r, tailMs))
  // IGW_LOAD_SECONDS=40 keeps the load on for as long as an operator's trial runs (the tests' default
  // is the event and a short tail, to keep npm test short).
  const rest = Number(process.env.IGW_LOAD_SECONDS ?? 0) * 1000 - (Date.now() - started)
  if (rest > 0) await new Promise((r) => setTimeout(r, rest))
  running = false
  await Promise.all(clients)
  agent.destroy()
  return tally
}

export function failures(t: Tally): Record<string, number> {
  return Object.fromEntries(t.failed)
}

/**
 * What loadkit instances executed: each writes the id of every call it starts, before running it,
 * to DIR/TAG-PID.ids, where the test gives DIR and TAG through the instance's environment (`env`).
 */
export class Records {
  readonly dir = mkdtempSync(join(tmpdir(), 'load-records-'))

  /** The environment that makes a loadkit instance record here as `tag` (a pod, a node). */
  env(tag: string): Record<string, string> {
    return { IGW_TEST_RECORDS: this.dir, IGW_TEST_TAG: tag }
  }

  /** The ids executed, per record file (one per instance process), in the order executed. */
  private files(tag?: string): string[][] {
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.ids') && (tag === undefined || f.startsWith(`${tag}-`)))
      .map((f) =>
        readFileSync(join(this.dir, f), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      )
  }

  /** How many calls the instances tagged `tag` executed (all of its processes). */
  count(tag: string): number {
    return this.files(tag).reduce((n, ids) => n + ids.length, 0)
  }

  /** Whether an instance tagged `tag` executed the call `id`. */
  executedBy(tag: string, id: string): boolean {
    return this.files(tag).some((ids) => ids.includes(id))
  }

  /** How many times each id was executed, over every instance. */
  executions(): Map<string, number> {
    const times = new Map<string, number>()
    for (const ids of this.files()) for (const id of ids) times.set(id, (times.get(id) ?? 0) + 1)
    return times
  }
}

/**
 * No call was executed twice, on one instance or on two, and every call answered 200 was executed
 * exactly once: an edge or gateway that sent a call again after the instance (or node) that held it
 * died would run it twice. Returns the line for the test's diagnostic.
 */
export function assertExecutedOnce(tally: Tally, records: Records): string {
  const times = records.executions()
  const twice = [...times].filter(([, n]) => n > 1)
  assert.deepEqual(twice, [], `calls executed more than once: ${JSON.stringify(twice.slice(0, 10))}`)
  const notOnce = tally.answered.filter((id) => times.get(id) !== 1)
  assert.deepEqual(notOnce.slice(0, 10), [], `${notOnce.length} calls answered 200 not executed exactly once`)
  return `${times.size} calls executed by the instances so far, none twice; the ${tally.answered.length} answered 200 here each once`
}

/** How many calls a kill scenario holds on its victim when it dies. */
export const HELD = 4

/** Calls held on an instance that is about to die: their ids, and their answers (failures keyed) once all came. */
export interface Held {
  ids: string[]
  answers: Promise<string[]>
}

/**
 * Sends loadkit's hold/here for `victim` through the edge until `n` of them are executing on the
 * instance tagged `victim` (its record lists them): there they never end, anywhere else they are
 * answered at once. Afterwards the caller kills the victim; each held call must then be answered,
 * as a failure, within `answerMs` (a hung call is answered 'ERR no answer …').
 */
export async function holdOn(
  edgeUrl: string,
  microservice: string,
  victim: string,
  records: Records,
  n = HELD,
  answerMs = 30000
): Promise<Held> {
  const url = new URL(edgeUrl)
  const path = `/_eapi/ELASTIC_HTTP/${microservice}/hold/here`
  const run = randomUUID().slice(0, 8)
  const held: Array<{ id: string; answer: Promise<string> }> = []
  const deadline = Date.now() + 30000
  let sent = 0
  while (held.length < n) {
    if (Date.now() > deadline)
      throw new Error(`only ${held.length} of ${n} hold calls reached ${victim} in 30 s (${sent} sent)`)
    // A round at once: the gateway spreads concurrent calls over its instances (the least busy
    // first), so some reach the victim even when the ones it holds make it the busiest.
    const round = Array.from({ length: n }, () => {
      const id = `hold-${run}-${sent++}`
      const answer = call(url, path, false, id, JSON.stringify(victim), answerMs).then(
        (r) => (r.status === 200 ? `200 ${r.text}` : failureKey(r.status, r.text)),
        (err: Error) => `ERR ${err.message}`
      )
      let settled: string | null = null
      void answer.then((a) => (settled = a))
      return { id, answer, settled: () => settled }
    })
    for (const h of round) {
      for (;;) {
        if (records.executedBy(victim, h.id)) {
          held.push(h)
          break
        }
        const a = h.settled()
        if (a !== null) {
          // Answered elsewhere, at once, with that instance's tag: anything else is a fault before the kill.
          assert.ok(a.startsWith('200 "') && a !== `200 ${JSON.stringify(victim)}`, `hold call ${h.id}: ${a}`)
          break
        }
        if (Date.now() > deadline) throw new Error(`hold call ${h.id} neither answered nor executing on ${victim}`)
        await new Promise((r) => setTimeout(r, 10))
      }
    }
  }
  return { ids: held.map((h) => h.id), answers: Promise.all(held.map((h) => h.answer)) }
}

/**
 * After a node or instance holding `held` was killed under load: every held call is answered with
 * `failure` (status and code, as `failures` keys them), none hangs, so at least one failure was
 * answered; the load's failures are `failure` too, at most one per client (the calls the victim
 * had of theirs), every answer right, and the load went on. Returns the line for the test's diagnostic.
 */
export async function assertOnlyHeldFailed(tally: Tally, failure: string, held: Held): Promise<string> {
  const heldAnswers = await held.answers
  const failed = failures(tally)
  const line = `${heldAnswers.length} held calls answered ${JSON.stringify(heldAnswers)}; ${tally.ok} calls answered 200, failed: ${JSON.stringify(failed)}`
  assert.ok(heldAnswers.length >= 1, line)
  assert.deepEqual(
    heldAnswers.filter((a) => a !== failure),
    [],
    `${line}; every call held on the killed instance is answered ${failure}`
  )
  assert.deepEqual(
    Object.keys(failed).filter((k) => k !== failure),
    [],
    line
  )
  assert.ok((failed[failure] ?? 0) <= CLIENTS, `${line}; at most one per client was held`)
  assert.equal(tally.wrong, 0)
  assert.ok(tally.ok > 100, line)
  return line
}
