// The edge's credentials by client certificate (EDGE.auth.certificates), beside API keys: which
// wins, and what a certificate named nowhere gets. The certificates are real ones, parsed as the edge
// parses what uWS gives it; the edge itself with TLS runs in the image suite (uWS 20.57).
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Authenticator } from '../../../../src/gateway/edge/authenticate'
import { parsePeerCertificate } from '../../../../src/gateway/tls/peer-certificates'
import type { PeerCertificate } from '../../../../src/gateway/invoke/interfaces'
import { CertificateMaker } from '../../../helpers/inputs/certificates'

let billing: PeerCertificate
let stranger: PeerCertificate

before(() => {
  const certs = new CertificateMaker()
  const read = (file: string): PeerCertificate => parsePeerCertificate(readFileSync(file, 'utf8'))!
  billing = read(certs.make('billing', ['billing.internal'], { subject: '/O=Acme/CN=billing' }).certFile)
  stranger = read(certs.make('stranger', ['stranger.internal']).certFile)
})

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex')

test('a certificate named in EDGE.auth.certificates is its identity; an API key sent with it wins', async () => {
  const auth = new Authenticator({
    required: true,
    apiKeys: [{ sha256: sha256('k-1'), user: 'keyed', privileges: ['guest'] }],
    certificates: [
      { match: 'O=Acme,CN=billing', user: 'billing', privileges: ['admin'], clientApplicationName: 'ledger' }
    ],
    jwt: null
  })
  const call = (certificate: PeerCertificate | null, apiKey = '') =>
    auth.authenticate({ by: auth, apiKey, authorization: '', certificate })
  assert.deepEqual(await call(billing), { user: 'billing', privilegeNames: ['admin'], clientApplicationName: 'ledger' })
  assert.deepEqual(await call(billing, 'k-1'), { user: 'keyed', privilegeNames: ['guest'], clientApplicationName: '' })
  // Named nowhere: no credential at all, so refused where one is required, with the schemes listed.
  assert.deepEqual(await call(stranger), {
    refused:
      'a credential is required (X-API-Key, Authorization: Bearer or a client certificate named in EDGE.auth.certificates)'
  })
  assert.deepEqual(await call(null), (await call(stranger)) as object)
})

test('an edge that requires nothing: a certificate named nowhere is anonymous', async () => {
  const auth = new Authenticator({
    required: false,
    apiKeys: [],
    certificates: [{ match: 'URI:spiffe://acme/billing', user: 'billing', privileges: [] }],
    jwt: null
  })
  assert.equal(await auth.authenticate({ by: auth, apiKey: '', authorization: '', certificate: stranger }), null)
})
