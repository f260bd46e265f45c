// The ceiling: a bare uWebSockets.js server answering each benchmark request in-process: it parses
// the whole body once (JSON.parse, or fast-xml-parser for XML), computes, and answers in the same
// shape as the gateway. Prints its port on stdout. Run: node ceiling.js [port]
import uWS from 'uWebSockets.js'
import { XMLParser } from 'fast-xml-parser'

const xml = new XMLParser({ parseTagValue: true })

function answer(method: string, isXml: boolean, body: string): string {
  switch (method) {
    case 'multiply': {
      const input = JSON.parse(body) as { a: number; b: number }
      return JSON.stringify({ result: Math.imul(input.a, input.b) })
    }
    case 'multiplyInts': {
      if (isXml) {
        const ints = (xml.parse(body) as { paramArray: { int: number[] } }).paramArray.int
        return `<int>${Math.imul(ints[0]!, ints[1]!)}</int>`
      }
      const [a, b] = JSON.parse(body) as [number, number]
      return String(Math.imul(a, b))
    }
    case 'sumProducts': {
      const [list, factor] = JSON.parse(body) as [Array<{ a: number; b: number }>, number]
      let sum = 0
      for (const x of list) sum += x.a * x.b * factor
      return String(sum)
    }
    default:
      throw new Error(`unknown method ${method}`)
  }
}

const app = uWS.App()
app.post('/*', (res, req) => {
  const url = req.getUrl()
  const method = url.slice(url.lastIndexOf('/') + 1)
  const isXml = req.getHeader('content-type').includes('xml')
  let aborted = false
  res.onAborted(() => {
    aborted = true
  })
  const chunks: Buffer[] = []
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(new Uint8Array(chunk)))
    if (!last || aborted) return
    const out = answer(method, isXml, (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString())
    res.cork(() => {
      res
        .writeStatus('200 OK')
        .writeHeader('Content-Type', isXml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8')
      res.end(out)
    })
  })
})
app.listen('127.0.0.1', Number(process.argv[2] ?? 0), (token) => {
  if (token === false) {
    console.error('ceiling: cannot listen')
    process.exit(1)
  }
  console.log(uWS.us_socket_local_port(token))
})
process.on('SIGTERM', () => process.exit(0))
