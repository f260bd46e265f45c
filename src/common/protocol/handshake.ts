import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Mutual authentication of the internal protocol on a shared secret (HMAC-SHA256 challenge and
 * response), for instances reached over TCP. The microservice opens with a Challenge (its nonce);
 * the gateway answers Hello with its own nonce and a proof over both; the microservice checks it and
 * answers Catalog with a proof of its own. Neither side ever sends the secret, and each proof binds
 * both nonces, so a recorded exchange cannot be replayed and a stranger on either side is refused.
 */
export const NONCE_BYTES = 32

export function nonce(): Uint8Array {
  return randomBytes(NONCE_BYTES)
}

function proof(secret: string, role: 'gateway' | 'microservice', a: Uint8Array, b: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(role).update(a).update(b).digest()
}

/** The gateway's proof: it knows the secret and answers this very challenge. */
export function gatewayProof(secret: string, serverNonce: Uint8Array, clientNonce: Uint8Array): Buffer {
  return proof(secret, 'gateway', serverNonce, clientNonce)
}

/** The microservice's proof, over the gateway's nonce first. */
export function microserviceProof(secret: string, serverNonce: Uint8Array, clientNonce: Uint8Array): Buffer {
  return proof(secret, 'microservice', clientNonce, serverNonce)
}

export function sameProof(expected: Buffer, got: Uint8Array | null | undefined): boolean {
  return got != null && got.length === expected.length && timingSafeEqual(expected, got)
}
