// `npm run bench:report`: the benchmark history (bench/results/history.jsonl: every gate run, and
// every `bench:e2e -- --history` run) drawn as one self-contained HTML file with inline SVG: per
// case, gateway req/s and the gateway/ceiling ratio over the runs, labelled by commit.
//   node dist/bench/report.js [--history FILE] [--out FILE]
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { RunResult } from './e2e/results'

export interface Point {
  when: string
  commit: string
  rps: number
  ratio: number
}

/** Per case, its measurements in run order. Lines that are not a run are skipped, and counted. */
export function readHistory(text: string): { series: Map<string, Point[]>; runs: number; skipped: number } {
  const series = new Map<string, Point[]>()
  let runs = 0
  let skipped = 0
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let r: RunResult
    try {
      r = JSON.parse(line) as RunResult
      if (!Array.isArray(r.cases)) throw new Error('no cases')
    } catch {
      skipped++
      continue
    }
    runs++
    for (const c of r.cases) {
      const s = series.get(c.case) ?? []
      s.push({ when: r.when, commit: r.commit, rps: c.gateway.rps, ratio: c.ratio })
      series.set(c.case, s)
    }
  }
  return { series, runs, skipped }
}

/** A round axis top: 45,062 → 50,000; 0.519 → 0.55. */
function niceCeiling(x: number): number {
  if (!(x > 0)) return 1
  const e = 10 ** Math.floor(Math.log10(x))
  return (Math.ceil((x / e) * 2) / 2) * e
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** A line chart of one value over the runs, with its axis labels; width 560, height 200. */
export function lineChart(title: string, points: Point[], value: (p: Point) => number, digits: number): string {
  const W = 560
  const H = 200
  const L = 60
  const R = 16
  const T = 28
  const B = 40
  const values = points.map(value)
  const max = niceCeiling(Math.max(...values, 0) * 1.05)
  const x = (k: number): number => L + (points.length === 1 ? (W - L - R) / 2 : (k * (W - L - R)) / (points.length - 1))
  const y = (v: number): number => T + (H - T - B) * (1 - v / max)
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => max * f)
  const path = values.map((v, k) => `${k === 0 ? 'M' : 'L'}${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  const every = Math.max(1, Math.ceil(points.length / 8))
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">`,
    `<text x="${L}" y="18" font-size="13" font-weight="600">${esc(title)}</text>`,
    ...ticks.map(
      (t) =>
        `<line x1="${L}" x2="${W - R}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/><text x="${L - 6}" y="${(y(t) + 4).toFixed(1)}" font-size="10" text-anchor="end">${t.toFixed(digits)}</text>`
    ),
    ...points
      .map((p, k) =>
        k % every === 0 || k === points.length - 1
          ? `<text x="${x(k).toFixed(1)}" y="${H - B + 16}" font-size="10" text-anchor="middle">${esc(p.commit)}</text>`
          : ''
      )
      .filter((s) => s !== ''),
    `<path d="${path}" fill="none" stroke="#2563eb" stroke-width="2"/>`,
    ...values.map(
      (v, k) =>
        `<circle cx="${x(k).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="#2563eb"><title>${esc(`${points[k]!.commit} ${points[k]!.when}: ${v.toFixed(digits)}`)}</title></circle>`
    ),
    '</svg>'
  ].join('\n')
}

export function renderReport(history: ReturnType<typeof readHistory>): string {
  const sections = [...history.series.entries()].map(([name, points]) => {
    const last = points[points.length - 1]!
    return `<section><h2>${esc(name)}</h2><p>${points.length} runs; last ${esc(last.commit)}: ${last.rps.toFixed(0)} req/s, ratio ${last.ratio.toFixed(3)}</p>
${lineChart(`${name}: gateway req/s`, points, (p) => p.rps, 0)}
${lineChart(`${name}: gateway/ceiling ratio`, points, (p) => p.ratio, 2)}</section>`
  })
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>invocation-gateway benchmark history</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#111}section{margin-bottom:28px}svg{margin-right:12px;border:1px solid #eee}</style>
</head><body>
<h1>Benchmark history</h1>
<p>${history.runs} runs${history.skipped > 0 ? ` (${history.skipped} unreadable lines skipped)` : ''}. The ratio (gateway/ceiling, measured in the same run) is what survives a noisy machine; req/s moves with the machine.</p>
${sections.join('\n')}
</body></html>
`
}

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

if (require.main === module) {
  const results = join(__dirname, '..', '..', 'bench', 'results')
  const file = arg('history', join(results, 'history.jsonl'))
  const out = arg('out', join(results, 'report.html'))
  if (!existsSync(file)) {
    console.error(`bench:report: no history at ${file}; run npm run bench:gate (or bench:e2e -- --history) first`)
    process.exit(1)
  }
  const history = readHistory(readFileSync(file, 'utf8'))
  if (history.runs === 0) {
    console.error(`bench:report: ${file} holds no run`)
    process.exit(1)
  }
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, renderReport(history))
  console.log(`wrote ${out}: ${history.runs} runs, ${history.series.size} cases`)
}
