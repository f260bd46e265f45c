import type { Bench as BenchClass, BenchOptions, Task } from 'tinybench' with { 'resolution-mode': 'import' }

// tinybench 6 ships ESM only; this CommonJS build loads it with import() (kept as a real import by
// module node16) rather than require.
export async function newBench(options: BenchOptions): Promise<BenchClass> {
  const { Bench } = await import('tinybench')
  return new Bench(options)
}

/** Mean time of one run in µs; throws unless the task completed (an errored task has no statistics). */
export function meanUs(task: Task | undefined): number {
  const r = task?.result
  if (r?.state !== 'completed')
    throw new Error(`benchmark task ${task?.name ?? '?'} did not complete: ${r?.state ?? 'no result'}`)
  return r.latency.mean * 1000
}
