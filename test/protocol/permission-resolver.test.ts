// A microservice's own permission resolver (MicroserviceDefinition.permissionResolver) decides
// whether a call is privileged, from the privilege names and the rest of the call's context,
// instead of the default one that grants the names in microservice.json: a privileged method is
// refused PRIVILEGE_DENIED unless it says yes, and every method sees its verdict as ctx.privileged.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { MicroserviceServer } from '../../src/microservice/host/microservice-server'
import { DEFAULT_RUNTIME_SETTINGS } from '../../src/microservice/host/settings'
import { defineMicroservice, method, service, t } from '../../src/microservice/sdk'

test("the microservice's own resolver decides, with the names and the context; the config's names do not", async () => {
  const asked: Array<{ names: readonly string[]; user: string | null }> = []
  const definition = defineMicroservice({
    services: [
      service('vault', [
        method('open', { params: [], returns: t.String, privileged: true, handler: () => 'opened' }),
        method('whoami', { params: [], returns: t.Boolean, handler: (ctx) => ctx.privileged })
      ])
    ],
    platformRegularExpressionToRemotelyEnabled: ['vault'],
    // Privileged only for the 'keyholder' name carried by the user 'ada'.
    permissionResolver: (names, context) => {
      asked.push({ names: [...names], user: context.user })
      return names.includes('keyholder') && context.user === 'ada'
    }
  })
  // The config grants 'admin'; with a resolver of its own, that list is not consulted.
  const server = new MicroserviceServer(definition, {
    name: 'vault',
    version: '1',
    settings: DEFAULT_RUNTIME_SETTINGS,
    privilegedNames: ['admin']
  })
  const e = await server.listen()
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  const socket = connect('port' in e ? e.port : 0, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const next = async (n: number): Promise<void> => {
    for (let k = 0; k < 2000 && frames.length < n; k++) await new Promise((r) => setTimeout(r, 5))
    assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`)
  }
  try {
    socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't' } }))
    await next(1)
    const call = (id: number, m: string, privilegeNames: string[], user: string | null): void => {
      socket.write(
        encodeFrame({
          invoke: {
            id,
            service: 'vault',
            method: m,
            sequence: 'betaParamArrayJsonInOutSequence',
            mode: gateway.Mode.RMC,
            arguments: [],
            context: { privilegeNames, user, requestId: `r${id}` }
          }
        })
      )
    }
    call(1, 'open', ['keyholder'], 'ada')
    call(2, 'open', ['keyholder'], 'eve')
    call(3, 'open', ['admin'], 'ada')
    call(4, 'whoami', ['keyholder'], 'ada')
    call(5, 'whoami', [], 'ada')
    await next(6)
    const results = new Map(frames.slice(1).map((f) => [f.result!.id, f.result!]))
    const answer = (id: number): string => {
      const r = results.get(id)!
      return r.error != null ? String(r.error.code) : Buffer.from(r.body!).toString()
    }
    assert.deepEqual([1, 2, 3, 4, 5].map(answer), ['"opened"', 'PRIVILEGE_DENIED', 'PRIVILEGE_DENIED', 'true', 'false'])
    assert.deepEqual(asked.slice(0, 3), [
      { names: ['keyholder'], user: 'ada' },
      { names: ['keyholder'], user: 'eve' },
      { names: ['admin'], user: 'ada' }
    ])
  } finally {
    socket.destroy()
    await server.close()
  }
})
