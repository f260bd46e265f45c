// ROA beta JSON `multiply` through the platform (gateway + example microservice, separate
// processes as in production) against the bare uWS ceiling, same run, same load generator.
// Run: npm run bench:e2e -- [--connections 64] [--duration 10] [--target http://127.0.0.1:8082]
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import autocannon from 'autocannon'

interface Result { name: string, rps: number, p50: number, p99: number, errors: number, non2xx: number }

function arg (name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

function startChild (file: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess, line: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(file, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = ready.exec(out)
      if (m !== null) resolve({ child, line: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`${file} exited with ${String(code)}: ${out}`)))
  })
}

async function load (name: string, url: string, connections: number, duration: number): Promise<Result> {
  const r = await autocannon({
    url: `${url}/example/calculator/multiply`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"a":2,"b":3}',
    connections,
    duration,
    expectBody: '{"result":6}'
  })
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.mismatches, non2xx: r.non2xx }
}

async function main (): Promise<void> {
  const connections = Number(arg('connections', '64'))
  const duration = Number(arg('duration', '10'))
  const target = arg('target', '')
  const children: ChildProcess[] = []
  try {
    let gatewayUrl = target
    if (gatewayUrl === '') {
      const { child } = await startChild(join(__dirname, '..', '..', 'src', 'main.js'), [], {
        PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '"127.0.0.1"',
        PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: '18082'
      }, /(gateway listening)/)
      children.push(child)
      gatewayUrl = 'http://127.0.0.1:18082'
    }
    const ceiling = await startChild(join(__dirname, 'ceiling.js'), [], {}, /^(\d+)\n/)
    children.push(ceiling.child)
    const ceilingUrl = `http://127.0.0.1:${ceiling.line}`

    // Warm both up, then measure alternately so drift on a shared machine hits both alike.
    await load('warm-up', gatewayUrl, connections, 2)
    await load('warm-up', ceilingUrl, connections, 2)
    const results: Result[] = []
    results.push(await load('gateway', gatewayUrl, connections, duration))
    results.push(await load('ceiling', ceilingUrl, connections, duration))
    const [g, c] = results as [Result, Result]
    console.log(`ROA beta JSON multiply, c=${connections}, ${duration} s each`)
    console.log('subject  |   req/s | p50 ms | p99 ms | errors | non-2xx')
    for (const r of results) console.log(`${r.name.padEnd(8)} | ${r.rps.toFixed(0).padStart(7)} | ${String(r.p50).padStart(6)} | ${String(r.p99).padStart(6)} | ${String(r.errors).padStart(6)} | ${String(r.non2xx).padStart(7)}`)
    console.log(`gateway / ceiling = ${(g.rps / c.rps).toFixed(3)}`)
    if (process.argv.includes('--json')) console.log(JSON.stringify({ connections, duration, results, ratio: g.rps / c.rps }))
  } finally {
    for (const child of children) child.kill('SIGTERM')
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1) })
