// `npm run bench:mixed`: small calls beside large ones. ROA beta JSON multiply
// at c=64 alone, then the same beside ~1 MB `sumProducts` at c=4, against the gateway and against
// the fastify + undici reference proxy. Reports what the small calls keep of their solo throughput
// and their p99 under the mix, and the large calls' req/s against the proxy's under the same mix.
//   node dist/bench/e2e/mixed.js [--duration 8] [--rounds 3] [--threads N]
// --threads N runs the gateway with N listener threads (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads):
// a small call then need not wait behind a 1 MB body on the same event loop.
import { execFileSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { startGateway, startProxy } from './subjects'
import { runWrk, type LoadResult } from './harness/wrk'
import { allCases, type BenchCase } from './cases'

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function load(url: string, bc: BenchCase, connections: number, durationS: number): Promise<LoadResult> {
  return runWrk({ url: url + bc.path, headers: bc.headers, body: bc.body, connections, durationS })
}

interface Mix {
  soloSmall: LoadResult
  small: LoadResult
  big: LoadResult
}

async function measureMix(url: string, small: BenchCase, big: BenchCase, durationS: number): Promise<Mix> {
  const soloSmall = await load(url, small, 64, durationS)
  const [mixedSmall, mixedBig] = await Promise.all([load(url, small, 64, durationS), load(url, big, 4, durationS)])
  return { soloSmall, small: mixedSmall, big: mixedBig }
}

async function main(): Promise<void> {
  execFileSync(join(__dirname, '..', '..', '..', 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
  const durationS = Number(arg('duration', '8'))
  const rounds = Number(arg('rounds', '3'))
  const threads = Number(arg('threads', '1'))
  const cases = allCases()
  const small = cases.find((c) => c.name === 'roa-json')!
  const big = cases.find((c) => c.name === 'rmc-json-1mb')!
  const children: ChildProcess[] = []
  try {
    const gateway = await startGateway(children, {
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__threads: String(threads)
    })
    process.stderr.write(`gateway with ${threads} listener thread${threads === 1 ? '' : 's'}\n`)
    const proxy = await startProxy(children)
    const g: Mix[] = []
    const p: Mix[] = []
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      for (const who of r % 2 === 0 ? ['gateway', 'proxy'] : ['proxy', 'gateway']) {
        const m = await measureMix(who === 'gateway' ? gateway.url : proxy.url, small, big, durationS)
        ;(who === 'gateway' ? g : p).push(m)
        process.stderr.write(
          `round ${r + 1}/${rounds} ${who}: small solo ${m.soloSmall.rps.toFixed(0)} req/s, mixed ${m.small.rps.toFixed(0)} req/s p99 ${m.small.latencyMs.p99.toFixed(2)} ms; large ${m.big.rps.toFixed(1)} req/s (errors ${m.small.errors + m.small.non2xx + m.big.errors + m.big.non2xx})\n`
        )
      }
    }
    const row = (name: string, ms: Mix[]): string => {
      const solo = median(ms.map((m) => m.soloSmall.rps))
      const mixed = median(ms.map((m) => m.small.rps))
      return `${name.padEnd(8)} | ${solo.toFixed(0).padStart(10)} | ${mixed.toFixed(0).padStart(11)} | ${((100 * mixed) / solo).toFixed(0).padStart(5)}% | ${median(
        ms.map((m) => m.small.latencyMs.p99)
      )
        .toFixed(2)
        .padStart(13)} | ${median(ms.map((m) => m.big.rps))
        .toFixed(1)
        .padStart(11)}`
    }
    console.log('subject  | small solo | small mixed | kept  | small p99 ms  | large req/s')
    console.log(row('gateway', g))
    console.log(row('proxy', p))
    const ratio = median(g.map((m) => m.big.rps)) / median(p.map((m) => m.big.rps))
    console.log(`large calls under the mix, gateway/proxy req/s: ${ratio.toFixed(2)}`)
  } finally {
    for (const c of children) c.kill('SIGTERM')
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
