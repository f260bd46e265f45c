// Debian's Prometheus (scripts/ensure-debian.sh installs the package when missing): promtool for the
// rules' own tests, and a real server scraping a platform, each in a directory of its own.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { parse, stringify } from 'yaml'
import { ROOT } from '../root'
import { freePort } from '../nginx'
import { until } from '../until'

export const RULES_FILE = join(ROOT, 'deploy', 'prometheus', 'gateway.rules.yml')
/** The scrape configuration for a plain host (docs/operating.md, "Metrics"). */
export const SCRAPE_FILE = join(ROOT, 'deploy', 'prometheus', 'prometheus.yml')

/** One rule of the rules file: a recording rule (`record`) or an alert. */
export interface Rule {
  alert?: string
  record?: string
  expr: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}

/** Every rule of the rules file, in its order. */
export function shippedRules(): Rule[] {
  return (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
    (g) => g.rules
  )
}

export function ensurePrometheus(): void {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'promtool:prometheus', 'prometheus:prometheus'], {
    stdio: 'inherit'
  })
}

/** promtool with these arguments: its exit code and what it printed. */
export function promtool(args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync('promtool', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    return { code: 0, out }
  } catch (err) {
    const e = err as { status: number | null; stdout?: string; stderr?: string }
    return { code: e.status ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
  }
}

/** One answer of the HTTP API's instant query: a series' labels and value. */
export interface Sample {
  metric: Record<string, string>
  value: [number, string]
}

/** One answer of the HTTP API's range query: a series' labels and its [seconds, value] points. */
export interface RangeSeries {
  metric: Record<string, string>
  values: Array<[number, string]>
}

export interface RunningPrometheus {
  url: string
  query(expr: string): Promise<Sample[]>
  /** The series of `expr` from `start` to `end` (seconds since the epoch), a point every `step` s. */
  queryRange(expr: string, start: number, end: number, step: number): Promise<RangeSeries[]>
  stop(): Promise<void>
}

/**
 * Prometheus scraping `targets` (host:port of admin listeners) every second and evaluating the rules
 * as often, on a free loopback port, its data in a temporary directory removed when it stops.
 */
export async function startPrometheus(targets: string[], ruleFiles: string[]): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'))
  // The scrape configuration docs/operating.md ships for a plain host, with the test's targets, rule
  // files and intervals.
  const config = parse(readFileSync(SCRAPE_FILE, 'utf8')) as {
    global: Record<string, string>
    rule_files: string[]
    scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>
  }
  config.global = { ...config.global, scrape_interval: '1s', evaluation_interval: '1s' }
  config.rule_files = ruleFiles
  const job = config.scrape_configs.find((j) => j.job_name === 'gateway')
  if (job === undefined) throw new Error(`${SCRAPE_FILE} has no job "gateway"`)
  job.static_configs = [{ targets }]
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn'
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  )
  let log = ''
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ask = async <T>(path: string, expr: string): Promise<T[]> => {
    const r = await fetch(`${url}/api/v1/${path}`)
    const body = (await r.json()) as { status: string; error?: string; data?: { result: T[] } }
    if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? r.status}`)
    return body.data!.result
  }
  const query = (expr: string): Promise<Sample[]> => ask(`query?query=${encodeURIComponent(expr)}`, expr)
  const queryRange = (expr: string, start: number, end: number, step: number): Promise<RangeSeries[]> =>
    ask(`query_range?query=${encodeURIComponent(expr)}&start=${start}&end=${end}&step=${step}`, expr)
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`)
        return (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true
      },
      30000,
      'prometheus ready'
    )
  } catch (err) {
    await stop()
    throw err
  }
  return { url, query, queryRange, stop }
}
