// What the edge costs: the same ROA call sent by wrk to the gateway (:8082 role), to the embedded
// edge (/_eapi/ELASTIC_HTTP/…, same process) and to nginx in front of the edge (the many-platform
// setup, one node here), alternating in one run; medians of the rounds and the ratios to the gateway.
//   node dist/bench/e2e/edge/hop.js [--duration 5] [--rounds 3] [--connections 64]
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { execFileSync } from 'node:child_process'
import { runWrk, type LoadResult } from '../harness/wrk'
import { startDeployPlatform, cli, packCopy } from '../../../test/helpers/processes/deploy'
import { EXAMPLE_DIR } from '../../../test/helpers/platform'
import { startNginx } from '../../../test/helpers/nginx'

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

async function main(): Promise<void> {
  const durationS = Number(arg('duration', '5'))
  const rounds = Number(arg('rounds', '3'))
  const connections = Number(arg('connections', '64'))
  execFileSync('bash', [join(__dirname, '..', '..', '..', '..', 'scripts', 'ensure-debian.sh'), 'wrk:wrk'], {
    stdio: 'inherit'
  })
  const d = await startDeployPlatform()
  const nginx = await startNginx([{ host: '127.0.0.1', gatewayPort: d.platform.port, edgePort: d.platform.edgePort }])
  try {
    const up = await cli(d.configFile, 'upload', await packCopy(EXAMPLE_DIR, mkdtempSync(join(tmpdir(), 'edge-hop-'))))
    if (up.code !== 0) throw new Error(up.stderr)
    const subjects: Array<[string, string]> = [
      ['gateway', `http://127.0.0.1:${d.platform.port}/example/calculator/multiply`],
      ['edge', `http://127.0.0.1:${d.platform.edgePort}/_eapi/ELASTIC_HTTP/example/calculator/multiply`],
      ['nginx', `${nginx.url}/_eapi/ELASTIC_HTTP/example/calculator/multiply`]
    ]
    const body = Buffer.from('{"a":2,"b":3}')
    const headers = { 'Content-Type': 'application/json' }
    for (const [name, url] of subjects) {
      const r = await fetch(url, { method: 'POST', body, headers })
      const text = await r.text()
      if (text !== '{"result":6}') throw new Error(`${name} answered ${r.status} ${text}`)
    }
    const results = new Map<string, LoadResult[]>(subjects.map(([n]) => [n, []]))
    for (let k = 0; k < rounds; k++) {
      for (const [name, url] of subjects) {
        const r = await runWrk({ url, headers, body, connections, durationS })
        results.get(name)!.push(r)
        process.stderr.write(
          `round ${k + 1}/${rounds} ${name}: ${Math.round(r.rps)} req/s, p50 ${r.latencyMs.p50} ms\n`
        )
      }
    }
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const gw = med(results.get('gateway')!.map((r) => r.rps))
    console.log(`subject | req/s (median of ${rounds}) | p50 ms | p99 ms | errors | ratio to gateway`)
    for (const [name] of subjects) {
      const rs = results.get(name)!
      const rps = med(rs.map((r) => r.rps))
      const errors = rs.reduce((n, r) => n + r.errors + r.non2xx, 0)
      console.log(
        `${name} | ${Math.round(rps)} | ${med(rs.map((r) => r.latencyMs.p50))} | ${med(rs.map((r) => r.latencyMs.p99))} | ${errors} | ${(rps / gw).toFixed(3)}`
      )
    }
  } finally {
    await nginx.stop()
    await d.stop()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
