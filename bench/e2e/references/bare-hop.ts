// The bare hop: the least any gateway built as this one is (a uWS front and the method in another
// process behind a Unix socket) must do per call, with none of the gateway's work (no routing, no
// checks, no context, no protobuf, no limits). The front answers with the gateway's headers and
// passes the method name and body in a 4-byte-length frame, writes flushed once per event-loop turn
// as the gateway's are; the backend computes what every reference server does (answer.ts).
// Measured beside the gateway with `--hop`: how much of the gateway's cost per call is the two
// processes themselves on this machine, and how much is the gateway's own work.
//   node bare-hop.js backend <socket path>   prints "ready"
//   node bare-hop.js front <socket path>     prints its HTTP port
import { randomUUID } from 'node:crypto'
import { connect, createServer, type Socket } from 'node:net'
import { unlinkSync } from 'node:fs'
import uWS from 'uWebSockets.js'
import { answer } from './answer'

/** Frames out of a byte stream: [u32 length][payload], little-endian. */
class Frames {
  private pending: Buffer = Buffer.alloc(0)
  constructor(private readonly onFrame: (frame: Buffer) => void) {}
  push(chunk: Buffer): void {
    const buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk
    let at = 0
    while (buf.length - at >= 4) {
      const length = buf.readUInt32LE(at)
      if (buf.length - at - 4 < length) break
      this.onFrame(buf.subarray(at + 4, at + 4 + length))
      at += 4 + length
    }
    this.pending = buf.subarray(at)
  }
}

/** Collects frames and writes them once per event-loop turn (the gateway's cork until setImmediate). */
class Batcher {
  private queue: Buffer[] = []
  private scheduled = false
  constructor(private readonly socket: Socket) {}
  send(frame: Buffer): void {
    this.queue.push(frame)
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      const q = this.queue
      this.queue = []
      this.socket.write(q.length === 1 ? q[0]! : Buffer.concat(q))
    })
  }
}

function frame(id: number, ...parts: Uint8Array[]): Buffer {
  const length = 4 + parts.reduce((n, p) => n + p.length, 0)
  const out = Buffer.allocUnsafe(4 + length)
  out.writeUInt32LE(length, 0)
  out.writeUInt32LE(id, 4)
  let at = 8
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** Request frame: [id][method length][method][isXml][body]; answer frame: [id][result]. */
function backend(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // no socket left from an earlier run
  }
  createServer((socket) => {
    const out = new Batcher(socket)
    const frames = new Frames((f) => {
      const id = f.readUInt32LE(0)
      const methodEnd = 5 + f[4]!
      const method = f.toString('latin1', 5, methodEnd)
      const result = answer(method, f[methodEnd] === 1, f.toString('utf8', methodEnd + 1))
      out.send(frame(id, Buffer.from(result)))
    })
    socket.on('data', (chunk: Buffer) => frames.push(chunk))
  }).listen(path, () => console.log('ready'))
}

interface Call {
  res: uWS.HttpResponse
  requestId: string
  isXml: boolean
  aborted: boolean
}

function front(path: string): void {
  const socket = connect(path)
  const out = new Batcher(socket)
  const calls = new Map<number, Call>()
  let nextId = 1
  const frames = new Frames((f) => {
    const id = f.readUInt32LE(0)
    const call = calls.get(id)
    calls.delete(id)
    if (call === undefined || call.aborted) return
    const res = call.res
    res.cork(() => {
      res.writeStatus('200 OK')
      res.writeHeader('Content-Type', call.isXml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8')
      res.writeHeader('X-PLATFORM-Request-ID', call.requestId)
      res.writeHeader('X-Content-Type-Options', 'nosniff')
      res.end(f.subarray(4))
    })
  })
  socket.on('data', (chunk: Buffer) => frames.push(chunk))
  const app = uWS.App()
  app.any('/*', (res, req) => {
    const url = req.getUrl()
    const method = Buffer.from(url.slice(url.lastIndexOf('/') + 1), 'latin1')
    const isXml = req.getHeader('content-type').includes('xml')
    // As the gateway: a request id and the client's address for every call.
    const call: Call = { res, requestId: randomUUID(), isXml, aborted: false }
    new Uint8Array(res.getRemoteAddress())
    res.onAborted(() => {
      call.aborted = true
    })
    const chunks: Buffer[] = []
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(new Uint8Array(chunk)))
      if (!last) return
      const id = nextId++
      calls.set(id, call)
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      out.send(frame(id, Uint8Array.of(method.length), method, Uint8Array.of(isXml ? 1 : 0), body))
    })
  })
  socket.on('connect', () =>
    app.listen('127.0.0.1', 0, (token) => {
      if (token === false) {
        console.error('bare hop: cannot listen')
        process.exit(1)
      }
      console.log(uWS.us_socket_local_port(token))
    })
  )
}

const [role, path] = process.argv.slice(2)
if (path === undefined || (role !== 'backend' && role !== 'front')) {
  console.error('usage: node bare-hop.js backend|front <socket path>')
  process.exit(2)
}
if (role === 'backend') backend(path)
else front(path)
process.on('SIGTERM', () => process.exit(0))
