// The ceiling: a bare uWebSockets.js server answering POST .../multiply in-process (parse the JSON
// body once, multiply, answer). Prints its port on stdout. Run: node ceiling.js [port]
import uWS from 'uWebSockets.js'

const app = uWS.App()
app.post('/*', (res) => {
  let aborted = false
  res.onAborted(() => { aborted = true })
  const chunks: Buffer[] = []
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(new Uint8Array(chunk)))
    if (!last || aborted) return
    const input = JSON.parse(Buffer.concat(chunks).toString()) as { a: number, b: number }
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json; charset=utf-8')
      res.end(JSON.stringify({ result: Math.imul(input.a, input.b) }))
    })
  })
})
app.listen('127.0.0.1', Number(process.argv[2] ?? 0), (token) => {
  if (token === false) { console.error('ceiling: cannot listen'); process.exit(1) }
  console.log(uWS.us_socket_local_port(token))
})
