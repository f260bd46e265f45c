// The reference `microservice bench` measures beside the target when it compares runs: a bare
// uWebSockets.js server in a process of its own that reads each POST body and answers a fixed small
// JSON. It does none of the target's work, so the target's throughput over its throughput in the
// same round is what the machine's speed at that moment does not change much.
//   node reference-server.js   → prints "listening <port>" on 127.0.0.1, stops on SIGTERM or stdin end
import { loadUws } from '../../gateway/http/uws'

const ANSWER = '{"result":42}'

function main(): void {
  const uws = loadUws(16 * 1024)
  const app = uws.App()
  app.post('/*', (res) => {
    let aborted = false
    res.onAborted(() => (aborted = true))
    res.onData((_chunk, last) => {
      if (!last || aborted) return
      res.cork(() => res.writeHeader('Content-Type', 'application/json').end(ANSWER))
    })
  })
  app.listen('127.0.0.1', 0, (token) => {
    if (token === false) {
      console.error('the reference server cannot listen on 127.0.0.1')
      process.exit(1)
    }
    process.stdout.write(`listening ${uws.us_socket_local_port(token)}\n`)
  })
  // Its parent's end is its end, however the parent went.
  process.stdin.on('end', () => process.exit(0))
  process.stdin.resume()
  process.on('SIGTERM', () => process.exit(0))
}

main()
