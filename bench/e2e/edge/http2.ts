// HTTP/2 against HTTP/1.1 through the nginx edge `microservice edge nginx-config` writes, one platform
// with the README's example behind it: h2load (Debian's nghttp2-client) sends the same ROA call over h2
// (TLS, ALPN), HTTP/1.1 on the same TLS listener, h2c (--h2c-listen) and HTTP/1.1 on a plain edge,
// 64 calls in flight each (8 connections × 8 streams for HTTP/2, 64 connections for HTTP/1.1),
// alternating in rounds; medians of the rounds.
// Each run is a count of calls (h2load -n), so that every one must be answered: a run by time counts
// the calls still in flight when it ends as failed.
//   node dist/bench/e2e/edge/http2.js [--requests 20000] [--rounds 3]
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { execFile, execFileSync } from 'node:child_process'
import { startDeployPlatform, cli, packCopy } from '../../../test/helpers/processes/deploy'
import { EXAMPLE_DIR } from '../../../test/helpers/platform'
import { startNginx } from '../../../test/helpers/nginx'
import { CertificateMaker } from '../../../test/helpers/inputs/certificates'

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

interface Run {
  rps: number
  succeeded: number
  failed: number
  meanMs: number
}

/** One h2load run, parsed; asynchronously, since the platform runs in this process. */
function h2load(url: string, args: string[], requests: number, body: string): Promise<Run> {
  const all = ['-n', String(requests), '-t', '1', '-d', body, '-H', 'Content-Type: application/json', ...args, url]
  return new Promise((resolve, reject) =>
    execFile('h2load', all, { timeout: 120_000 }, (err, out) => {
      const rps = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out)
      const req = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed/.exec(out)
      const time = /time for request:\s+\S+\s+\S+\s+(\S+)/.exec(out)
      if (err !== null || rps === null || req === null || time === null)
        return reject(new Error(`h2load ${all.join(' ')}: ${err?.message ?? ''}\n${out}`))
      const mean = time[1]!
      const meanMs = mean.endsWith('us')
        ? Number(mean.slice(0, -2)) / 1000
        : mean.endsWith('ms')
          ? Number(mean.slice(0, -2))
          : Number(mean.slice(0, -1)) * 1000
      resolve({ rps: Number(rps[1]), succeeded: Number(req[1]), failed: Number(req[2]), meanMs })
    })
  )
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function main(): Promise<void> {
  const requests = Number(arg('requests', '20000'))
  const rounds = Number(arg('rounds', '3'))
  execFileSync(
    'bash',
    [join(__dirname, '..', '..', '..', '..', 'scripts', 'ensure-debian.sh'), 'h2load:nghttp2-client'],
    {
      stdio: 'inherit'
    }
  )
  const work = mkdtempSync(join(tmpdir(), 'edge-http2-'))
  const body = join(work, 'body.json')
  writeFileSync(body, '{"a":2,"b":3}')
  const certs = new CertificateMaker()
  const cert = certs.make('edge', ['localhost'])
  const d = await startDeployPlatform()
  const node = [{ host: '127.0.0.1', gatewayPort: d.platform.port, edgePort: d.platform.edgePort }]
  const secure = await startNginx(node, undefined, {
    tls: { certFile: cert.certFile, keyFile: cert.keyFile },
    h2c: true
  })
  const plain = await startNginx(node)
  try {
    const up = await cli(d.configFile, 'upload', await packCopy(EXAMPLE_DIR, work))
    if (up.code !== 0) throw new Error(up.stderr)
    const path = '/_eapi/ELASTIC_HTTP/example/calculator/multiply'
    const h2 = ['-c', '8', '-m', '8']
    const h1 = ['--h1', '-c', '64', '-m', '1']
    const subjects: Array<[string, string, string[]]> = [
      ['h2 (TLS)', `${secure.url}${path}`, h2],
      ['HTTP/1.1 (TLS)', `${secure.url}${path}`, h1],
      ['h2c', `${secure.h2cUrl!}${path}`, h2],
      ['HTTP/1.1 (plain)', `${plain.url}${path}`, h1]
    ]
    const runs = new Map<string, Run[]>(subjects.map(([name]) => [name, []]))
    for (let r = 1; r <= rounds; r++)
      for (const [name, url, args] of subjects) {
        const run = await h2load(url, args, requests, body)
        runs.get(name)!.push(run)
        console.log(
          `  round ${r}/${rounds}: ${name} ${run.rps.toFixed(0)} req/s, mean ${run.meanMs.toFixed(2)} ms, ${run.failed} failed`
        )
      }
    const reference = median(runs.get('HTTP/1.1 (TLS)')!.map((x) => x.rps))
    console.log(
      `\nthrough the nginx edge, ROA multiply, 64 in flight, ${requests} calls × ${rounds} rounds alternating (medians)`
    )
    console.log('protocol          |   req/s | over HTTP/1.1 (TLS) | mean ms | calls answered | failed')
    for (const [name] of subjects) {
      const rs = runs.get(name)!
      const rps = median(rs.map((x) => x.rps))
      console.log(
        `${name.padEnd(17)} | ${rps.toFixed(0).padStart(7)} | ${(rps / reference).toFixed(2).padStart(18)}× | ${median(
          rs.map((x) => x.meanMs)
        )
          .toFixed(2)
          .padStart(
            7
          )} | ${String(rs.reduce((n, x) => n + x.succeeded, 0)).padStart(14)} | ${rs.reduce((n, x) => n + x.failed, 0)}`
      )
    }
  } finally {
    await secure.stop()
    await plain.stop()
    await d.stop()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
