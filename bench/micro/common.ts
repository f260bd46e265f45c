import { newBench, meanUs } from './tinybench'

export interface Pair {
  stage: string
  input: string
  ours: string
  baseline: string
  oursUs: number
  baselineUs: number
  ratio: number
}

/** Runs `ours` against `baseline` in one Bench (same process, same warm-up) and returns the pair. */
export async function pair(
  stage: string,
  input: string,
  ours: [string, () => unknown],
  baseline: [string, () => unknown],
  timeMs = 300
): Promise<Pair> {
  const bench = await newBench({ time: timeMs, warmupTime: Math.min(200, timeMs) })
  bench.add(ours[0], ours[1])
  bench.add(baseline[0], baseline[1])
  await bench.run()
  const o = meanUs(bench.tasks[0])
  const b = meanUs(bench.tasks[1])
  return { stage, input, ours: ours[0], baseline: baseline[0], oursUs: o, baselineUs: b, ratio: o / b }
}

export function table(rows: Pair[]): string {
  const lines = [
    'stage            | input   | ours                     |   ours µs | baseline                 | baseline µs | ours/baseline'
  ]
  for (const r of rows) {
    lines.push(
      `${r.stage.padEnd(16)} | ${r.input.padEnd(7)} | ${r.ours.padEnd(24)} | ${r.oursUs.toFixed(3).padStart(9)} | ${r.baseline.padEnd(24)} | ${r.baselineUs.toFixed(3).padStart(11)} | ${r.ratio.toFixed(2).padStart(6)}`
    )
  }
  return lines.join('\n')
}

/** A JSON array of about `bytes` bytes: In objects, for splitting and parsing. */
export function jsonBody(bytes: number): Buffer {
  const items: string[] = []
  let size = 2
  for (let k = 0; size < bytes; k++) {
    const item = `{"a":${k},"b":"v${k}"}`
    items.push(item)
    size += item.length + 1
  }
  return Buffer.from(`[${items.join(',')}]`)
}

/** A paramArray of about `bytes` bytes. */
export function xmlBody(bytes: number): Buffer {
  const items: string[] = []
  let size = 25
  for (let k = 0; size < bytes; k++) {
    const item = `<in><a>${k}</a><b>v${k}</b></in>`
    items.push(item)
    size += item.length
  }
  return Buffer.from(`<paramArray>${items.join('')}</paramArray>`)
}
