import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { CertificateMaker } from '../../../helpers/inputs/certificates'
import {
  certificateMatcher,
  parsePeerCertificate,
  PeerCertificates
} from '../../../../src/gateway/tls/peer-certificates'
import type { PeerCertificate } from '../../../../src/gateway/invoke/interfaces'

let edge: PeerCertificate
let edgePem: string
let other: PeerCertificate

before(() => {
  const certs = new CertificateMaker()
  const e = certs.make('edge', ['Edge.Internal'], { subject: '/O=Acme/OU=Edge/CN=edge', uris: ['spiffe://acme/edge'] })
  edgePem = readFileSync(e.certFile, 'utf8')
  edge = parsePeerCertificate(edgePem)!
  other = parsePeerCertificate(readFileSync(certs.make('other', ['other.internal']).certFile, 'utf8'))!
})

test('a certificate read as its subject and its alternative names', () => {
  assert.equal(edge.subject, 'CN=edge,OU=Edge,O=Acme')
  assert.deepEqual([...edge.attributes], ['O=Acme', 'OU=Edge', 'CN=edge'])
  assert.deepEqual(edge.altNames, ['DNS:Edge.Internal', 'IP Address:127.0.0.1', 'URI:spiffe://acme/edge'])
  assert.equal(parsePeerCertificate('not a certificate'), null)
})

test('trusted names: a SAN exactly (DNS without case), or every subject attribute listed', () => {
  const cases: Array<[string, boolean, boolean]> = [
    // name, matches edge, matches other
    ['CN=edge', true, false],
    ['O=Acme,CN=edge', true, false],
    ['O=Acme, CN=edge', true, false],
    ['O=Other,CN=edge', false, false],
    ['CN=edg', false, false],
    ['DNS:edge.internal', true, false],
    ['DNS:other.internal', false, true],
    ['URI:spiffe://acme/edge', true, false],
    ['URI:spiffe://acme/EDGE', false, false],
    ['URI:spiffe://acme', false, false],
    ['IP Address:127.0.0.1', true, true]
  ]
  for (const [name, e, o] of cases) {
    const m = certificateMatcher([name])
    assert.equal(m(edge), e, `${name} on edge`)
    assert.equal(m(other), o, `${name} on other`)
  }
  assert.equal(certificateMatcher([])(edge), false)
  assert.equal(certificateMatcher(['CN=nobody', 'URI:spiffe://acme/edge'])(edge), true)
})

test('peer certificates parsed once each, within a bound', () => {
  const peers = new PeerCertificates(2)
  assert.equal(peers.of(''), null)
  const first = peers.of(edgePem)
  assert.equal(peers.of(edgePem), first, 'the same object: parsed once')
  assert.equal(peers.of('garbage'), null)
  assert.equal(peers.of(edgePem), first, 'still held')
  // Full: cleared whole for the next new one, so the first is parsed again.
  assert.equal(peers.of('more garbage'), null)
  const again = peers.of(edgePem)
  assert.notEqual(again, first)
  assert.deepEqual(again, first)
})
