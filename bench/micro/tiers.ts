// Each fast tier of the JSON serializers (serializers/stand-aside.ts) against the tier behind it, on
// inputs every tier reads: whether a tier still earns its place. Each tier starts from the
// argument's bytes, as the serializer gets them (the text tiers decode them first). Two inputs: the example's In and a
// list of In of about 1 MB. Run: npm run bench:tiers
import { newBench, meanUs } from './tinybench'
import { t } from '../../src/microservice/descriptors/descriptors'
import {
  createAlphaJsonSerializer,
  readAlphaJsonTree,
  renderAlphaJson,
  JSON_NAMING
} from '../../src/microservice/serializers/alpha/alpha-json'
import { readAlphaJsonInterpreted, tryWriteAlphaJson } from '../../src/microservice/serializers/alpha/alpha-json-direct'
import { readAlphaJsonCompiled } from '../../src/microservice/serializers/alpha/alpha-json-compiled'
import { readBetaJsonCompiled } from '../../src/microservice/serializers/beta/beta-json-compiled'
import { readBetaJsonExact, readBetaJsonParsed } from '../../src/microservice/serializers/beta/beta-json-reader'
import { toAlphaNode, type AlphaContext } from '../../src/microservice/serializers/alpha/alpha-node'
import { STAND_ASIDE } from '../../src/microservice/serializers/stand-aside'
import { DEFAULT_READ_LIMITS } from '../../src/common/contract/limits'

const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
const ctx: AlphaContext = { aliases: new Map([['com.example.In', 'in']]), naming: JSON_NAMING }
const alpha = createAlphaJsonSerializer(ctx.aliases)
const limits = DEFAULT_READ_LIMITS
const big = Array.from({ length: 44000 }, (_, k) => ({ a: k, b: k * 7 }))
const inputs = [
  { name: 'In', type: In, value: { a: 2, b: 3 } },
  { name: '1MB List<In>', type: t.list(In), value: big }
]

/** A tier's read that must not stand aside on these inputs (then the comparison would mean nothing). */
function must<T>(v: T): T {
  if (v === STAND_ASIDE) throw new Error('a tier stood aside on an input every tier should read')
  return v
}

async function main(): Promise<void> {
  console.log('input        | tier                               |       µs | × the first tier')
  for (const input of inputs) {
    const betaText = JSON.stringify(input.value)
    const betaBytes = Buffer.from(betaText)
    const alphaText = alpha.serialize(input.value, input.type)
    const alphaBytes = Buffer.from(alphaText)
    const groups: Array<Array<[string, () => unknown]>> = [
      [
        ['beta JSON read: generated', () => must(readBetaJsonCompiled(betaBytes, input.type, limits))],
        [
          'beta JSON read: JSON.parse + check',
          () => must(readBetaJsonParsed(betaBytes.toString('utf8'), input.type, limits))
        ],
        ['beta JSON read: exact reader', () => readBetaJsonExact(betaBytes.toString('utf8'), input.type, limits)]
      ],
      [
        ['alpha JSON read: generated', () => must(readAlphaJsonCompiled(alphaBytes, input.type, ctx, limits))],
        ['alpha JSON read: interpreting', () => must(readAlphaJsonInterpreted(alphaBytes, input.type, ctx, limits))],
        ['alpha JSON read: trees', () => readAlphaJsonTree(alphaBytes, input.type, ctx, limits)]
      ],
      [
        ['alpha JSON write: direct', () => must(tryWriteAlphaJson(input.value, input.type, ctx))],
        ['alpha JSON write: tree', () => renderAlphaJson(toAlphaNode(input.value, input.type, ctx))]
      ]
    ]
    for (const group of groups) {
      const bench = await newBench({ time: input.name === 'In' ? 300 : 1500, warmupTime: 200 })
      for (const [name, fn] of group) bench.add(name, fn)
      await bench.run()
      const first = meanUs(bench.tasks[0])
      for (const task of bench.tasks) {
        const us = meanUs(task)
        console.log(
          `${input.name.padEnd(12)} | ${task.name.padEnd(34)} | ${us.toFixed(2).padStart(8)} | ${(us / first).toFixed(2)}`
        )
      }
    }
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
