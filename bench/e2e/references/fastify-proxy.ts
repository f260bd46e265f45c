// The peer a gateway is compared with: fastify in front, undici's connection pool behind, forwarding
// each POST body as it is to the backend (backend.ts) and its answer back. What a team would write
// with the most common fast Node tools. Prints its port on stdout.
// Run: node fastify-proxy.js <port> <backend URL>
import Fastify from 'fastify'
import { Pool } from 'undici'

const backend = new Pool(process.argv[3] ?? 'http://127.0.0.1:1', { connections: 64, keepAliveTimeout: 60000 })
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 })
// Bodies travel as bytes: the proxy does not parse what it forwards.
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

app.post('/*', async (request, reply) => {
  const r = await backend.request({
    path: request.url,
    method: 'POST',
    headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
    body: request.body as Buffer
  })
  const body = Buffer.from(await r.body.arrayBuffer())
  reply.code(r.statusCode)
  const ct = r.headers['content-type']
  if (typeof ct === 'string') reply.header('content-type', ct)
  return reply.send(body)
})

app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' }).then(
  () => {
    const address = app.server.address()
    console.log(typeof address === 'object' && address !== null ? address.port : 0)
  },
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  }
)
process.on('SIGTERM', () => process.exit(0))
