// Each default serializer, each direction, against a plain baseline in the same Bench:
// JSON.stringify / JSON.parse for the JSON families, fast-xml-parser's XMLBuilder / XMLParser
// for the XML ones. Inputs: the example's In and Out, and a list of In of about 1 MB.
// Run: npm run bench:serializers [-- --json]
import { newBench, meanUs } from './tinybench'
import { XMLBuilder, XMLParser } from 'fast-xml-parser'
import { t } from '../../src/microservice/descriptors/descriptors'
import { defaultSerializers } from '../../src/microservice/serializers'
import type { SerializerBeanName } from '../../src/common/contract/vocabulary'

const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
const Out = t.object('com.example.Out', { result: t.Integer })
const ListOfIn = t.list(In)
const aliases = new Map([
  ['com.example.In', 'in'],
  ['com.example.Out', 'out']
])
const serializers = defaultSerializers(aliases)

const bigList = Array.from({ length: 44000 }, (_, k) => ({ a: k, b: k * 7 }))
const inputs = [
  { name: 'In', type: In, value: { a: 2, b: 3 } },
  { name: 'Out', type: Out, value: { result: 6 } },
  { name: '1MB List<In>', type: ListOfIn, value: bigList }
] as const

const builder = new XMLBuilder({ format: false })
const parser = new XMLParser({ parseTagValue: true })

export interface Row {
  bean: SerializerBeanName
  input: string
  direction: 'serialize' | 'deserialize'
  bytes: number
  oursUs: number
  baselineUs: number
  ratio: number
}

export async function run(quick = false): Promise<Row[]> {
  const rows: Row[] = []
  for (const bean of Object.keys(serializers) as SerializerBeanName[]) {
    const s = serializers[bean]
    const json = s.format === 'json'
    for (const input of inputs) {
      const big = input.name.startsWith('1MB')
      const bytes = Buffer.from(s.serialize(input.value, input.type) as string)
      // Check before timing: our output reads back to the value.
      const back = s.deserialize(bytes, input.type)
      if (JSON.stringify(back) !== JSON.stringify(input.value))
        throw new Error(`${bean} ${input.name}: round trip differs`)
      const text = bytes.toString()
      const xmlTree = json ? null : (parser.parse(text) as unknown)
      const bench = await newBench({ time: quick ? 150 : big ? 1500 : 500, warmupTime: quick ? 50 : 200 })
      bench.add('ours serialize', () => {
        s.serialize(input.value, input.type)
      })
      bench.add(
        'baseline serialize',
        json
          ? () => {
              JSON.stringify(input.value)
            }
          : () => {
              builder.build(xmlTree)
            }
      )
      bench.add('ours deserialize', () => {
        s.deserialize(bytes, input.type)
      })
      bench.add(
        'baseline deserialize',
        json
          ? () => {
              JSON.parse(bytes.toString())
            }
          : () => {
              parser.parse(bytes.toString())
            }
      )
      await bench.run()
      const mean = (k: number): number => meanUs(bench.tasks[k])
      rows.push({
        bean,
        input: input.name,
        direction: 'serialize',
        bytes: bytes.length,
        oursUs: mean(0),
        baselineUs: mean(1),
        ratio: mean(0) / mean(1)
      })
      rows.push({
        bean,
        input: input.name,
        direction: 'deserialize',
        bytes: bytes.length,
        oursUs: mean(2),
        baselineUs: mean(3),
        ratio: mean(2) / mean(3)
      })
    }
  }
  return rows
}

if (require.main === module) {
  run(process.argv.includes('--quick')).then(
    (rows) => {
      if (process.argv.includes('--json')) {
        console.log(JSON.stringify(rows))
        return
      }
      console.log(
        'serializer           | input        | direction   |   bytes |   ours µs | baseline µs | ours/baseline'
      )
      for (const r of rows) {
        console.log(
          `${r.bean.padEnd(20)} | ${r.input.padEnd(12)} | ${r.direction.padEnd(11)} | ${String(r.bytes).padStart(7)} | ${r.oursUs.toFixed(2).padStart(9)} | ${r.baselineUs.toFixed(2).padStart(11)} | ${r.ratio.toFixed(2).padStart(6)}`
        )
      }
    },
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    }
  )
}
