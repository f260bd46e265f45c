// The checks made before the load: an HTTPS call, the negotiated protocol and suite, session resumption.
import { readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import type { BenchCase } from '../cases'
import { runWrk } from '../harness/wrk'
import { runTool } from './tls-servers'
import type { Negotiated, Resumption, Running, WrkResumption } from './tls-shapes'

/** One HTTPS call, the certificate checked against `ca` (so each subject is seen to serve it). */
function httpsCall(url: string, bc: BenchCase, ca: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + bc.path,
      { method: 'POST', headers: { ...bc.headers, 'Content-Length': String(bc.body.length) }, ca, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
        res.on('error', reject)
      }
    )
    req.setTimeout(15000, () => req.destroy(new Error(`${url}${bc.path}: no answer within 15 s`)))
    req.on('error', reject)
    req.end(bc.body)
  })
}

export async function check(r: Running, bc: BenchCase, ca: Buffer): Promise<void> {
  const { status, text } = await httpsCall(r.url, bc, ca)
  if (status !== 200 || (bc.expected !== null && text !== bc.expected))
    throw new Error(
      `${r.subject} (${r.key}) ${r.url}${bc.path} answered ${status} '${text.slice(0, 200)}', expected '${(bc.expected ?? '').slice(0, 200)}'`
    )
}

/** What `openssl s_client` (OpenSSL's defaults, as wrk offers them) negotiates with a subject. */
export async function negotiated(r: Running): Promise<Negotiated> {
  const { out } = await runTool(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${r.port}`, '-servername', 'localhost', '-brief'],
    10000
  )
  const field = (re: RegExp): string | null => re.exec(out)?.[1]?.trim() ?? null
  return {
    subject: r.subject,
    key: r.key,
    protocol: field(/^Protocol version: (.+)$/m),
    ciphersuite: field(/^Ciphersuite: (.+)$/m),
    // "Server Temp Key: X25519, 253 bits" (OpenSSL 3.0) or "Negotiated TLS1.3 group: X25519" (3.2+).
    group: field(/^(?:Server|Peer) Temp Key: ([^,\n]+)/m) ?? field(/^Negotiated TLS1\.3 group: (.+)$/m),
    signature: field(/^Signature type: (.+)$/m)
  }
}

/** A call on a new connection saving its session, then one offering it back: was it resumed? */
export async function resumption(r: Running, bc: BenchCase, dir: string): Promise<Resumption> {
  const sess = join(dir, `session-${r.subject}-${r.key}.pem`)
  const head = Object.entries({ ...bc.headers, Host: 'localhost', 'Content-Length': String(bc.body.length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  // The answer comes after the server's session tickets, and `Connection: close` ends s_client once
  // it has read it (-ign_eof: not at the end of its input).
  const call = `POST ${bc.path} HTTP/1.1\r\n${head}Connection: close\r\n\r\n${bc.body.toString()}`
  const base = ['s_client', '-connect', `127.0.0.1:${r.port}`, '-servername', 'localhost', '-ign_eof']
  const first = await runTool('openssl', [...base, '-sess_out', sess], 10000, call)
  const second = await runTool('openssl', [...base, '-sess_in', sess], 10000, call)
  const line = (out: string): string | null => /^((?:New|Reused), TLSv[\d.]+)/m.exec(out)?.[1] ?? null
  const status = (out: string): number | null => {
    const m = /^HTTP\/1\.1 (\d{3})/m.exec(out)
    return m === null ? null : Number(m[1])
  }
  const secondLine = line(second.out)
  return {
    subject: r.subject,
    key: r.key,
    first: line(first.out),
    second: secondLine,
    statuses: [status(first.out), status(second.out)],
    resumed: secondLine?.startsWith('Reused') ?? false
  }
}

/** How many of wrk's `Connection: close` handshakes nginx resumed: wrk's own behaviour, seen from the server. */
export async function wrkResumption(r: Running, bc: BenchCase): Promise<WrkResumption> {
  const probe = r.probe!
  writeFileSync(probe.log, '')
  await runWrk({
    url: `https://127.0.0.1:${probe.port}${bc.path}`,
    headers: { ...bc.headers, Connection: 'close' },
    body: bc.body,
    connections: 4,
    durationS: 1
  })
  // nginx writes an unbuffered access log line by line; its last lines are there once wrk has its answers.
  const lines = readFileSync(probe.log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
  return { key: r.key, handshakes: lines.length, resumed: lines.filter((l) => l.startsWith('r')).length }
}
