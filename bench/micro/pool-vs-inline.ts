// Pool round trip vs inline split+encode, per body size, in the same run: the data behind
// WORKER_POOL.inlineMaxBytes. Run: npm run bench:micro
import { newBench, meanUs } from './tinybench'
import { PreparePool } from '../../src/gateway/prepare/prepare-pool'
import { prepare, type PrepareTask } from '../../src/gateway/prepare/prepare'

function body(bytes: number): Uint8Array {
  const items: string[] = []
  let size = 2
  for (let k = 0; size < bytes; k++) {
    const item = `{"a":${k},"b":${k + 1}}`
    items.push(item)
    size += item.length + 1
  }
  return Buffer.from(`[[${items.join(',')}],7]`)
}

function task(b: Uint8Array): PrepareTask {
  // A fresh buffer per run: the pool moves (detaches) the one it is given.
  const own = new Uint8Array(b.length)
  own.set(b)
  return {
    id: 1,
    body: own,
    mode: 'RMC',
    format: 'json',
    service: 's',
    method: 'm',
    sequence: 'betaParamArrayJsonInOutSequence',
    parameterCount: 2,
    context: { requestId: 'r' },
    timeoutMs: 1000,
    maxDepth: 1000
  }
}

export async function run(): Promise<Array<{ size: number; inlineUs: number; poolUs: number }>> {
  const pool = new PreparePool({
    maxThreads: 2,
    minThreads: 2,
    idleTimeoutMs: 60000,
    maxQueue: 1000,
    taskTimeoutMs: 60000,
    inlineMaxBytes: 0
  })
  const out: Array<{ size: number; inlineUs: number; poolUs: number }> = []
  try {
    for (const size of [100, 1024, 10 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024]) {
      const b = body(size)
      // Check outputs before timing: both paths give the same frame.
      const a = prepare(task(b))
      const p = await pool.run(task(b), null)
      if (!(a instanceof Uint8Array) || !(p instanceof Uint8Array) || Buffer.compare(a, p) !== 0)
        throw new Error('inline and pool frames differ')
      const bench = await newBench({ time: size >= 256 * 1024 ? 1500 : 700 })
      bench.add(`inline ${size}`, () => {
        prepare(task(b))
      })
      bench.add(`pool ${size}`, async () => {
        await pool.run(task(b), null)
      })
      await bench.run()
      const [inline, pooled] = bench.tasks.map(meanUs)
      out.push({ size, inlineUs: inline!, poolUs: pooled! })
    }
  } finally {
    await pool.close()
  }
  return out
}

if (require.main === module) {
  run().then(
    (rows) => {
      console.log('body bytes | inline µs/op | pool µs/op | pool/inline')
      for (const r of rows)
        console.log(
          `${String(r.size).padStart(10)} | ${r.inlineUs.toFixed(1).padStart(12)} | ${r.poolUs.toFixed(1).padStart(10)} | ${(r.poolUs / r.inlineUs).toFixed(2)}`
        )
    },
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    }
  )
}
