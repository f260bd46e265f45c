// The ceiling: a bare uWebSockets.js server answering each benchmark request in-process: it parses
// the whole body once (JSON.parse, or fast-xml-parser for XML), computes, and answers in the same
// shape as the gateway. Prints its port on stdout. Run: node ceiling.js [port]
import uWS from 'uWebSockets.js'
import { answer } from './answer'

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
