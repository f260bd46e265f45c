// The dashboard of deploy/grafana/gateway.json drawn without Grafana (which Debian does not package):
// a page of our own that lays its panels out on the same 24-column grid and draws each query's answer
// from a real Prometheus as SVG lines, for a headless browser to show and photograph.

export interface DashboardPanel {
  id: number
  type: string
  title: string
  gridPos: { x: number; y: number; w: number; h: number }
  fieldConfig?: { defaults?: { unit?: string } }
  targets?: Array<{ expr: string; legendFormat: string }>
}

/** A panel's lines: each a legend and its [seconds, value] points. */
export interface DrawnPanel {
  panel: DashboardPanel
  lines: Array<{ legend: string; points: Array<[number, number]> }>
}

const COLOURS = ['#73bf69', '#f2cc0c', '#8ab8ff', '#ff780a', '#f2495c', '#5794f2', '#b877d9', '#705da0']
const ROW_PX = 30

/** A legend as Grafana fills it: {{label}} replaced by the series' value of it. */
export function legendOf(format: string, labels: Record<string, string>): string {
  return format.replace(/\{\{(\w+)\}\}/g, (_, name: string) => labels[name] ?? '').trim()
}

function formatted(value: number, unit: string | undefined): string {
  if (!Number.isFinite(value)) return String(value)
  switch (unit) {
    case 'percentunit':
      return `${(value * 100).toFixed(1)} %`
    case 's':
      return value >= 86400
        ? `${(value / 86400).toFixed(1)} d`
        : value >= 1
          ? `${value.toFixed(2)} s`
          : `${(value * 1000).toFixed(2)} ms`
    case 'reqps':
      return `${value.toFixed(1)}/s`
    case 'Bps':
      return `${(value / 1024).toFixed(1)} KiB/s`
    default:
      return value.toFixed(value % 1 === 0 ? 0 : 2)
  }
}

const escape = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)

function chart(d: DrawnPanel, width: number, height: number): string {
  const all = d.lines.flatMap((l) => l.points)
  if (all.length === 0) return `<svg width="${width}" height="${height}"></svg>`
  const t0 = Math.min(...all.map((p) => p[0]))
  const t1 = Math.max(...all.map((p) => p[0]), t0 + 1)
  const finite = all.map((p) => p[1]).filter(Number.isFinite)
  const lo = Math.min(0, ...finite)
  const hi = Math.max(...finite, lo + 1e-9)
  const x = (t: number): number => ((t - t0) / (t1 - t0)) * (width - 8) + 4
  const y = (v: number): number => height - 4 - ((v - lo) / (hi - lo)) * (height - 8)
  const lines = d.lines.map((l, k) => {
    const points = l.points
      .filter((p) => Number.isFinite(p[1]))
      .map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`)
    return `<polyline class="line" fill="none" stroke="${COLOURS[k % COLOURS.length]}" stroke-width="2" points="${points.join(' ')}"/>`
  })
  const unit = d.panel.fieldConfig?.defaults?.unit
  return `<svg width="${width}" height="${height}"><text x="4" y="12" class="axis">${escape(formatted(hi, unit))}</text>${lines.join('')}</svg>`
}

/** The page: every panel where its gridPos puts it, rows as headings. */
export function dashboardPage(title: string, drawn: DrawnPanel[], widthPx = 1600): string {
  const column = widthPx / 24
  const boxes = drawn.map((d) => {
    const g = d.panel.gridPos
    const style = `left:${g.x * column}px;top:${g.y * ROW_PX}px;width:${g.w * column - 8}px;height:${g.h * ROW_PX - 8}px`
    if (d.panel.type === 'row') return `<h2 class="row" style="${style}">${escape(d.panel.title)}</h2>`
    const unit = d.panel.fieldConfig?.defaults?.unit
    const legend = d.lines
      .map((l, k) => {
        const last = l.points.at(-1)?.[1] ?? NaN
        return `<li><span style="color:${COLOURS[k % COLOURS.length]}">&#9632;</span> ${escape(l.legend)} <b>${escape(formatted(last, unit))}</b></li>`
      })
      .join('')
    return `<section class="panel" data-id="${d.panel.id}" style="${style}"><h3>${escape(d.panel.title)}</h3>${chart(d, g.w * column - 24, g.h * ROW_PX - 96)}<ul>${legend}</ul></section>`
  })
  const height = Math.max(...drawn.map((d) => (d.panel.gridPos.y + d.panel.gridPos.h) * ROW_PX))
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title><style>
body{margin:0;background:#111217;color:#ccccdc;font:12px sans-serif}
main{position:relative;width:${widthPx}px;height:${height}px;margin:8px}
.panel{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:2px;padding:6px;box-sizing:border-box;overflow:hidden}
.row{position:absolute;margin:0;font-size:15px;line-height:${ROW_PX}px}
h3{margin:0 0 4px;font-size:13px}ul{list-style:none;margin:2px 0 0;padding:0;font-size:11px;max-height:48px;overflow:hidden}
.axis{fill:#8e8e8e;font-size:10px}
</style></head><body><h1 style="margin:8px;font-size:18px">${escape(title)}</h1><main>${boxes.join('')}</main></body></html>`
}
