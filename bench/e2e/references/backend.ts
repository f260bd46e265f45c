// The backend behind the fastify reference proxy: a plain node:http server that parses each body once
// and computes the answer (bench/e2e/references/answer.ts), as a microservice written without the platform
// would. Prints its port on stdout. Run: node backend.js [port]
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { answer } from './answer'

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const url = req.url ?? '/'
    const isXml = (req.headers['content-type'] ?? '').includes('xml')
    const out = answer(url.slice(url.lastIndexOf('/') + 1), isXml, Buffer.concat(chunks).toString())
    res.writeHead(200, {
      'Content-Type': isXml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8'
    })
    res.end(out)
  })
})
server.keepAliveTimeout = 60000
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log((server.address() as AddressInfo).port)
})
process.on('SIGTERM', () => process.exit(0))
