// The floor: the internal protocol alone. Starts the example microservice, then keeps
// `connections` Invoke frames in flight over one TCP connection for `duration` seconds, the way
// the gateway would, and prints one JSON line: requests, rps, latency percentiles, pids.
// Run: node floor.js <case> <connections> <duration-s>
import { fork } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'
import { FramedSocket } from '../../../src/common/protocol/framed-socket'
import { encodeFrame, PROTOCOL_VERSION, type Frame } from '../../../src/common/protocol/frame'
import { gateway } from '../../../src/common/protocol/generated/gateway'
import { splitArguments } from '../../../src/gateway/prepare/split'
import { hostEnv, HOST_FILE } from '../../../src/microservice/host/host-env'
import type { HostMessage } from '../../../src/microservice/host/host'
import { allCases } from '../cases'
import { reaped } from '../harness/reap'

async function main(): Promise<void> {
  const [caseName, c, d] = process.argv.slice(2)
  const bc = allCases().find((x) => x.name === caseName)
  if (bc === undefined || bc.invoke === null) throw new Error(`unknown case ${String(caseName)}`)
  const invoke = bc.invoke
  const connections = Number(c ?? 64)
  const durationMs = Number(d ?? 10) * 1000
  const ms = reaped(
    fork(HOST_FILE, [join(__dirname, '..', '..', '..', 'examples', 'example')], {
      env: hostEnv(),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc']
    })
  )
  const port = await new Promise<number>((resolve) =>
    ms.on('message', (m: HostMessage) => {
      if (m.type === 'listening') resolve('port' in m.endpoint ? m.endpoint.port : 0)
    })
  )

  const format = bc.headers['Content-Type']!.includes('xml') ? 'xml' : 'json'
  const slices = splitArguments(bc.body, invoke.rmc ? 'RMC' : 'ROA', format)
  const args: Uint8Array[] = []
  for (let k = 0; k < slices.length; k += 2) args.push(bc.body.subarray(slices[k], slices[k + 1]))
  const frameFor = (id: number): Uint8Array =>
    encodeFrame({
      invoke: {
        id,
        service: invoke.service,
        method: invoke.method,
        sequence: invoke.sequence,
        mode: invoke.rmc ? gateway.Mode.RMC : gateway.Mode.ROA,
        arguments: args,
        context: {}
      }
    })

  const sentAt = new Map<number, bigint>()
  const latencies: number[] = []
  let nextId = 1
  let done = 0
  let stopping = false
  let ready: () => void = () => {}
  const handshake = new Promise<void>((resolve) => {
    ready = resolve
  })
  let finish: () => void = () => {}
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  const socket = connect(port, '127.0.0.1')
  const framed: FramedSocket = new FramedSocket(socket, {
    onFrame(f: Frame): void {
      if (f.body === 'catalog') {
        ready()
        return
      }
      if (f.body !== 'result') return
      const r = f.result as gateway.Result
      if (r.error != null) throw new Error(`floor call failed: ${r.error.detail}`)
      const t0 = sentAt.get(r.id)!
      sentAt.delete(r.id)
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
      done++
      if (!stopping) send()
      else if (sentAt.size === 0) finish()
    },
    onClose(): void {
      finish()
    }
  })
  const send = (): void => {
    const id = nextId++
    sentAt.set(id, process.hrtime.bigint())
    framed.sendBytes(frameFor(id))
  }
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  framed.send({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 'floor' } })
  await handshake
  // Warm up for a second, then measure.
  for (let k = 0; k < connections; k++) send()
  await new Promise((r) => setTimeout(r, 1000))
  latencies.length = 0
  done = 0
  const start = process.hrtime.bigint()
  await new Promise((r) => setTimeout(r, durationMs))
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9
  const requests = done
  stopping = true
  await finished
  latencies.sort((a, b) => a - b)
  const pct = (p: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0
  console.log(
    `JSON ${JSON.stringify({ requests, rps: requests / elapsed, latencyMs: { p50: pct(50), p99: pct(99), p999: pct(99.9) }, microservicePid: ms.pid, clientPid: process.pid })}`
  )
  framed.destroy()
  ms.kill('SIGTERM')
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
