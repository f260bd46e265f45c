import { callsOf, connectionsText, type BenchResult, type RunResult } from './bench-result'

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)
}

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${n} B`
}

function percent(x: number): string {
  return `${Math.round(x * 100)} %`
}

interface Column {
  title: string
  cell: (r: RunResult) => string
}

function columns(result: BenchResult): Column[] {
  const cols: Column[] = [
    { title: 'conns', cell: (r) => String(r.connections) },
    { title: 'req/s', cell: (r) => int.format(r.rps) },
    { title: 'p50 ms', cell: (r) => ms(r.latencyMs.p50) },
    { title: 'p90 ms', cell: (r) => ms(r.latencyMs.p90) },
    { title: 'p99 ms', cell: (r) => ms(r.latencyMs.p99) },
    { title: 'p99.9 ms', cell: (r) => ms(r.latencyMs.p999) },
    { title: 'max ms', cell: (r) => ms(r.latencyMs.max) },
    { title: 'answers', cell: (r) => int.format(r.requests) },
    { title: 'errors', cell: (r) => int.format(r.errors.total) },
    { title: 'sent', cell: (r) => bytes(r.bytes.sent) },
    { title: 'received', cell: (r) => bytes(r.bytes.received) },
    { title: 'client CPU', cell: (r) => percent(r.generatorCpu) }
  ]
  if (result.runs.some((r) => r.cpuUsPerCall !== null))
    cols.push({ title: 'CPU µs/call', cell: (r) => (r.cpuUsPerCall === null ? '' : r.cpuUsPerCall.toFixed(1)) })
  if (result.settings.reference)
    cols.push(
      { title: 'ref req/s', cell: (r) => (r.reference === null ? '' : int.format(r.reference.rps)) },
      { title: 'req/s of ref', cell: (r) => (r.reference === null ? '' : r.reference.ratio.toFixed(3)) }
    )
  if (result.runs.some((r) => r.reference?.cpuRatio != null))
    cols.push({
      title: 'CPU × ref',
      cell: (r) => (r.reference?.cpuRatio == null ? '' : r.reference.cpuRatio.toFixed(2))
    })
  return cols
}

/** `via`: how the calls reached the URL when it is more than the URL says (TLS's verification, SNI). */
function heading(result: BenchResult, via: string | null = null): string[] {
  const t = result.target
  const s = result.settings
  const source = { argument: 'given', file: 'from a file', example: "the method's example" }[t.bodySource]
  const length =
    s.requests !== null
      ? `${int.format(s.requests)} answers`
      : `${s.durationMs! / 1000} s${s.rounds > 1 ? ` in ${s.rounds} rounds` : ''}`
  const rate = s.rate !== null ? `, open loop at ${int.format(s.rate)} req/s (timed from when each was due)` : ''
  return [
    `microservice bench ${t.route} → ${t.url}${via === null ? '' : ` (${via})`}`,
    `POST ${t.contentType}, ${t.bodyBytes} bytes (${source}); ${length} per concurrency ${s.warmupMs > 0 ? `after a ${s.warmupMs / 1000} s warm-up` : 'without a warm-up'}${rate}`
  ]
}

/** Lines under the table: errors by kind, the comparison, warnings, problems. */
function notes(result: BenchResult): string[] {
  const out: string[] = []
  for (const r of result.runs) {
    const kinds = [
      ...Object.entries(r.errors.byStatus)
        .filter(([status]) => !status.startsWith('2'))
        .map(([status, n]) => `${status} ×${int.format(n)}`),
      ...Object.entries(r.errors.byCode).map(([code, n]) => `${code} ×${int.format(n)}`),
      r.errors.mismatched > 0 ? `answers unlike the first ×${int.format(r.errors.mismatched)}` : '',
      r.errors.transport > 0 ? `connection errors ×${int.format(r.errors.transport)}` : '',
      r.errors.timeouts > 0 ? `timeouts ×${int.format(r.errors.timeouts)}` : '',
      r.errors.unsent > 0 ? `never sent (no free connection) ×${int.format(r.errors.unsent)}` : ''
    ].filter((x) => x !== '')
    if (kinds.length > 0) out.push(`errors at ${connectionsText(r.connections)}: ${kinds.join(', ')}`)
  }
  const c = result.comparison
  if (c !== null)
    for (const r of c.runs)
      out.push(
        `against ${c.baseline} at ${connectionsText(r.connections)}: ${r.measure === 'cpu' ? 'CPU per call' : 'req/s'} ${r.ratio.toFixed(3)}× the reference's, baseline ${r.baselineRatio.toFixed(3)}×: ${r.changePercent >= 0 ? '+' : ''}${r.changePercent.toFixed(1)} % speed (${r.regressed ? `a regression beyond ${c.tolerancePercent} %` : `within ${c.tolerancePercent} %`})`
      )
  for (const w of result.warnings) out.push(`warning: ${w}`)
  for (const p of result.problems) out.push(`FAILED: ${p}`)
  if (result.problems.length === 0) out.push('passed')
  return out
}

/** The result as a terminal table. */
export function textReport(result: BenchResult, via: string | null = null): string {
  const cols = columns(result)
  const rows = [cols.map((c) => c.title), ...result.runs.map((r) => cols.map((c) => c.cell(r)))]
  const widths = cols.map((_, k) => Math.max(...rows.map((row) => row[k]!.length)))
  const table = rows.map((row) => row.map((cell, k) => cell.padStart(widths[k]!)).join('  '))
  return [...heading(result, via), '', ...table, '', ...notes(result)].join('\n')
}

/** The result as GitHub-flavoured Markdown (for $GITHUB_STEP_SUMMARY and pull requests). */
export function markdownReport(result: BenchResult): string {
  const cols = columns(result)
  const [title, line] = heading(result)
  return [
    `### ${result.ok ? '✅' : '❌'} ${title!.replace(/\|/g, '\\|')}`,
    '',
    line!,
    '',
    `| ${cols.map((c) => c.title).join(' | ')} |`,
    `|${cols.map(() => '---:').join('|')}|`,
    ...result.runs.map((r) => `| ${cols.map((c) => c.cell(r)).join(' | ')} |`),
    '',
    ...notes(result).map((n) => `- ${n}`),
    ''
  ].join('\n')
}

function xml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!)
}

/** One test case per concurrency (its errors and its comparison), for CI systems that read JUnit. */
export function junitReport(result: BenchResult): string {
  const cases = result.runs.map((r) => {
    const failures: string[] = []
    if (r.errors.total > 0 && !result.settings.allowErrors)
      failures.push(`${r.errors.total} of ${callsOf(r)} calls failed`)
    const cmp = result.comparison?.runs.find((c) => c.connections === r.connections)
    if (cmp?.regressed === true)
      failures.push(
        `${cmp.changePercent.toFixed(1)} % against the baseline (tolerance ${result.comparison!.tolerancePercent} %)`
      )
    const name = `${result.target.route} at ${connectionsText(r.connections)}`
    const out = `${int.format(r.rps)} req/s, p50 ${ms(r.latencyMs.p50)} ms, p99 ${ms(r.latencyMs.p99)} ms`
    const failure =
      failures.length === 0
        ? ''
        : `<failure message="${xml(failures.join('; '))}">${xml(failures.join('\n'))}</failure>`
    return `  <testcase classname="microservice bench" name="${xml(name)}" time="${(r.durationMs / 1000).toFixed(3)}">${failure}<system-out>${xml(out)}</system-out></testcase>`
  })
  const failed = cases.filter((c) => c.includes('<failure')).length
  const time = result.runs.reduce((t, r) => t + r.durationMs / 1000, 0)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="microservice bench ${xml(result.target.route)}" tests="${cases.length}" failures="${failed}" errors="0" time="${time.toFixed(3)}" timestamp="${result.startedAt}">`,
    ...cases,
    '</testsuite>',
    ''
  ].join('\n')
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf']

/**
 * The latency distribution as HdrHistogram plots it: latency against the percentile, the percentile
 * axis stretched towards the tail (90, 99, 99.9, 99.99 equally apart), one line per concurrency.
 */
export function latencyPlot(runs: readonly RunResult[]): string {
  const W = 760
  const H = 360
  const left = 64
  const right = 40
  const top = 16
  const bottom = 48
  const maxX = 4 // 99.99 %
  const maxMs = Math.max(...runs.map((r) => r.latencyMs.max), 0.001)
  const x = (q: number): number =>
    left + (Math.min(-Math.log10(Math.max(1 - q, 1e-4)), maxX) / maxX) * (W - left - right)
  const y = (v: number): number => top + (1 - v / maxMs) * (H - top - bottom)
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="latency by percentile">`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`
  ]
  for (const [q, label] of [
    [0, '0 %'],
    [0.9, '90 %'],
    [0.99, '99 %'],
    [0.999, '99.9 %'],
    [0.9999, '99.99 %']
  ] as const) {
    parts.push(`<line x1="${x(q)}" y1="${top}" x2="${x(q)}" y2="${H - bottom}" stroke="#ddd"/>`)
    parts.push(`<text x="${x(q)}" y="${H - bottom + 18}" font-size="12" text-anchor="middle">${label}</text>`)
  }
  for (let k = 0; k <= 4; k++) {
    const v = (maxMs * k) / 4
    parts.push(`<line x1="${left}" y1="${y(v)}" x2="${W - right}" y2="${y(v)}" stroke="#eee"/>`)
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" font-size="12" text-anchor="end">${ms(v)}</text>`)
  }
  parts.push(
    `<text x="${(W + left) / 2}" y="${H - 8}" font-size="13" text-anchor="middle">percentile of answers</text>`,
    `<text x="14" y="${(H - bottom) / 2}" font-size="13" text-anchor="middle" transform="rotate(-90 14 ${(H - bottom) / 2})">latency (ms)</text>`
  )
  runs.forEach((r, k) => {
    const total = r.histogram.reduce((t, [, n]) => t + n, 0)
    let seen = 0
    const points: string[] = [`${x(0)},${y(r.histogram[0]?.[0] ?? 0)}`]
    for (const [upper, n] of r.histogram) {
      seen += n
      points.push(`${x(seen / total).toFixed(1)},${y(Math.min(upper, r.latencyMs.max)).toFixed(1)}`)
    }
    const colour = COLOURS[k % COLOURS.length]!
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}"/>`)
    parts.push(
      `<text x="${left + 10}" y="${top + 16 + 16 * k}" font-size="13" fill="${colour}">${connectionsText(r.connections)}: p50 ${ms(r.latencyMs.p50)} ms, p99 ${ms(r.latencyMs.p99)} ms</text>`
    )
  })
  parts.push('</svg>')
  return parts.join('\n')
}

/** A page of its own: the heading, the table, the plot and the notes. */
export function htmlReport(result: BenchResult): string {
  const cols = columns(result)
  const [title, line] = heading(result)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${xml(title!)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { padding: 0.3rem 0.7rem; text-align: right; border-bottom: 1px solid #ddd; font-variant-numeric: tabular-nums; white-space: nowrap; }
.verdict { font-weight: bold; color: ${result.ok ? '#1a7f37' : '#cf222e'}; }
</style></head><body>
<h1>${xml(title!)}</h1>
<p>${xml(line!)}</p>
<p class="verdict">${result.ok ? 'passed' : 'failed'}</p>
<table><thead><tr>${cols.map((c) => `<th>${xml(c.title)}</th>`).join('')}</tr></thead>
<tbody>${result.runs.map((r) => `<tr>${cols.map((c) => `<td>${xml(c.cell(r))}</td>`).join('')}</tr>`).join('\n')}</tbody></table>
<h2>Latency by percentile</h2>
${latencyPlot(result.runs)}
<ul>${notes(result)
    .map((n) => `<li>${xml(n)}</li>`)
    .join('\n')}</ul>
<p><small>${xml(result.startedAt)} · ${xml(result.tool.name)} ${xml(result.tool.version)}</small></p>
</body></html>
`
}
