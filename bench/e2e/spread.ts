// `npm run bench:spread`: how the kernel spreads calls over the gateway's listener threads. A
// platform with N threads (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads) takes ROA multiply calls
// from wrk at each concurrency, each run on new connections; each thread's share of the calls comes
// from its own count (igw_listener_thread_requests_total on /metrics), read before and after.
//   node dist/bench/e2e/spread.js [--threads 2] [--connections 1,4,16,64] [--duration 3] [--repeat 5]
import { execFileSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { freePort, startGateway } from './subjects'
import { runWrk } from './harness/wrk'
import { allCases } from './cases'

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

/** Each thread's count of answered requests, by thread label. */
async function counts(admin: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${admin}/metrics`)).text()
  const out = new Map<string, number>()
  for (const m of text.matchAll(/^igw_listener_thread_requests_total\{thread="(\d+)"\} (\d+)/gm))
    out.set(m[1]!, Number(m[2]))
  return out
}

async function main(): Promise<void> {
  execFileSync(join(__dirname, '..', '..', '..', 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
  const threads = Number(arg('threads', '2'))
  const levels = arg('connections', '1,4,16,64').split(',').map(Number)
  const durationS = Number(arg('duration', '3'))
  const repeat = Number(arg('repeat', '5'))
  const bc = allCases().find((c) => c.name === 'roa-json')!
  const adminPort = await freePort()
  const children: ChildProcess[] = []
  try {
    const gateway = await startGateway(children, {
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__threads: String(threads),
      PLATFORM__ADMIN__enabled: 'true',
      PLATFORM__ADMIN__port: String(adminPort),
      PLATFORM__ADMIN__metrics: 'true'
    })
    const admin = `http://127.0.0.1:${adminPort}`
    console.log(`${threads} listener threads; each row: the busiest thread's share of the calls in each run`)
    console.log('connections | busiest thread share per run | worst | best possible')
    for (const connections of levels) {
      const shares: number[] = []
      for (let r = 0; r < repeat; r++) {
        const before = await counts(admin)
        await runWrk({ url: gateway.url + bc.path, headers: bc.headers, body: bc.body, connections, durationS })
        const after = await counts(admin)
        const done = [...after].map(([t, n]) => n - (before.get(t) ?? 0))
        const all = done.reduce((a, b) => a + b, 0)
        shares.push(Math.max(...done) / Math.max(all, 1))
      }
      const pct = (x: number): string => `${(100 * x).toFixed(0)}%`
      const best = Math.ceil(connections / threads) / connections
      console.log(
        `${String(connections).padStart(11)} | ${shares.map(pct).join(' ').padEnd(28)} | ${pct(Math.max(...shares)).padStart(5)} | ${pct(Math.max(best, 1 / threads))}`
      )
    }
  } finally {
    for (const c of children) c.kill('SIGTERM')
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
