// Steady load through an edge: keep-alive clients calling example/calculator/multiply in a loop, every
// answer checked, failures counted by status and problem code, while something happens to the nodes.
import { Agent, request } from 'node:http'
import assert from 'node:assert/strict'

export const CLIENTS = 16

export interface Tally {
  ok: number
  /** Failures by status and problem code ('ERR' for a client-side error such as a reset). */
  failed: Map<string, number>
  wrong: number
}

function call(
  url: URL,
  path: string,
  agent: Agent,
  k: number
): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        timeout: 15000,
        headers: { 'Content-Type': 'application/json' }
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, type: String(res.headers['content-type']) }))
      }
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')))
    req.on('error', reject)
    req.end(`{"a":${k},"b":3}`)
  })
}

/**
 * Runs the clients until `during` has finished and `tailMs` more have passed. They call
 * `microservice` (a copy of the example under another name, or the example itself).
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
  const tally: Tally = { ok: 0, failed: new Map(), wrong: 0 }
  let running = true
  const client = async (c: number): Promise<void> => {
    for (let k = c; running; k += CLIENTS) {
      try {
        const r = await call(url, path, agent, k)
        if (r.status === 200) {
          if (r.text === `{"result":${k * 3}}`) tally.ok++
          else tally.wrong++
        } else {
          const code = r.type.startsWith('application/problem+json')
            ? (JSON.parse(r.text) as { code: string }).code
            : r.text.slice(0, 40)
          const key = `${r.status} ${code}`
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
 * After a node or instance was killed under load: every failure is `failure` (status and code, as
 * `failures` keys them), at most one per client (the calls it held), every answer right, and the
 * load went on. Returns the line for the test's diagnostic.
 */
export function assertOnlyHeldFailed(tally: Tally, failure: string): string {
  const failed = failures(tally)
  const line = `${tally.ok} calls answered 200, failed: ${JSON.stringify(failed)}`
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
