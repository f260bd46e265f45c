// The ceiling: a bare uWebSockets.js server answering each benchmark request in-process: it parses
// the whole body once (JSON.parse, or fast-xml-parser for XML), computes, and answers in the same
// shape as the gateway. Prints its port on stdout. Run: node ceiling.js [port] [threads]
//
// With threads > 1 (the scaling curve, run.ts --threads) it runs that many worker threads, each its
// own uWS App listening on the same port, as uWebSockets.js's WorkerThreads example does and as the
// gateway's listener threads do. uSockets shares a port (SO_REUSEPORT) only when it is not 0, so the
// port must then be given.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import uWS, { type TemplatedApp } from 'uWebSockets.js'
import { closeApp } from '../../../src/gateway/http/uws'
import { answer } from './answer'

/** The App, listening on `port`; `listening` gets the port bound, or null when it cannot listen. */
function serve(port: number, listening: (app: TemplatedApp, port: number | null) => void): void {
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
  app.listen('127.0.0.1', port, (token) => {
    listening(app, token === false ? null : uWS.us_socket_local_port(token))
  })
}

type ToWorker = 'close'
type FromWorker = { type: 'listening'; port: number | null }

const port = Number(process.argv[2] ?? 0)
const threads = Number(process.argv[3] ?? 1)

if (!isMainThread) {
  // A worker thread that ends with its App open aborts the whole process (Node's uv_loop_close
  // assertion; measured: the main thread's process.exit and worker.terminate() both abort it). Closed
  // first, the thread's loop empties once its port is closed too, and the thread ends on its own.
  serve(workerData as number, (app, p) => {
    const close = (): void => {
      closeApp(app)
      parentPort!.close()
    }
    parentPort!.postMessage({ type: 'listening', port: p } satisfies FromWorker)
    if (p === null) return close()
    parentPort!.on('message', (m: ToWorker) => {
      if (m === 'close') close()
    })
  })
} else if (threads <= 1) {
  serve(port, (_app, p) => {
    if (p === null) {
      console.error('ceiling: cannot listen')
      process.exit(1)
    }
    console.log(p)
  })
  process.on('SIGTERM', () => process.exit(0))
} else {
  if (port === 0) throw new Error('ceiling: threads need an explicit port (uSockets shares port 0 with no one)')
  const live = new Set<Worker>()
  let listening = 0
  let stopping = false
  let exitCode = 0
  /** Ends the process once every thread has closed its App and ended (see the worker's 'close'). */
  const stop = (code: number): void => {
    if (stopping) return
    stopping = true
    exitCode = code
    if (live.size === 0) process.exit(code)
    for (const w of live) w.postMessage('close' satisfies ToWorker)
  }
  for (let k = 0; k < threads; k++) {
    const w = new Worker(__filename, { workerData: port, argv: process.argv.slice(2) })
    live.add(w)
    w.on('message', (m: FromWorker) => {
      if (m.port === null) {
        console.error(`ceiling: a thread cannot listen on ${port}`)
        stop(1)
      } else if (++listening === threads) console.log(m.port)
    })
    w.on('error', (err) => console.error('ceiling: a thread failed', err))
    w.on('exit', (code) => {
      live.delete(w)
      if (stopping) {
        if (live.size === 0) process.exit(exitCode)
        return
      }
      // A thread that failed: the others are closed, and the process ends with an error.
      console.error(`ceiling: a thread ended with ${code}`)
      stop(1)
    })
  }
  process.on('SIGTERM', () => stop(0))
}
