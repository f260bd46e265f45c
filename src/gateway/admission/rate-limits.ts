import type { ApiMode } from '../../common/contract/vocabulary'
import type { Failure } from '../../common/errors/codes'
import type { RateLimitsSection, RateRule } from '../config/config'
import { LimitStore, type SlotMeaning } from './limit-store'

/** What a rule counts a call by (RateRule.key), as the pipeline knows the call. */
export interface LimitKeys {
  /** The authenticated user (a credential, a trusted peer's X-PLATFORM-User); '' when none. */
  limitUser(): string
  /** The verified client certificate's subject (or a trusted peer's X-PLATFORM-Certificate-Subject); ''. */
  limitCertificate(): string
  /** The client's address: a trusted peer's X-PLATFORM-IP, else the socket's. */
  limitAddress(): string
}

/** A call over a limit: the 429 and the headers that go with it. */
export class RateLimited {
  constructor(
    readonly failure: Failure,
    /** Retry-After and the RateLimit fields, name/value pairs. */
    readonly headers: string[]
  ) {}
}

/** A key kind's first hash input, so a user named like an address is not that address. */
const KIND_USER = 1
const KIND_CERTIFICATE = 2
const KIND_ADDRESS = 3

/**
 * A token bucket: `rate` tokens a second up to `burst`; a call takes one. Slot numbers: tokens, and
 * when they were counted (ms).
 */
class Bucket implements SlotMeaning {
  private readonly perMs: number
  constructor(
    readonly rate: number,
    readonly burst: number
  ) {
    this.perMs = rate / 1000
  }

  isFree(v: Float64Array, at: number, now: number): boolean {
    return v[at]! + Math.max(0, now - v[at + 1]!) * this.perMs >= this.burst
  }

  rank(v: Float64Array, at: number): number {
    return v[at + 1]!
  }

  /** The slot's tokens now (filled up since last counted); stored back. */
  level(v: Float64Array, at: number, now: number, fresh: boolean): number {
    const tokens = fresh ? this.burst : Math.min(this.burst, v[at]! + Math.max(0, now - v[at + 1]!) * this.perMs)
    v[at] = tokens
    v[at + 1] = now
    return tokens
  }

  allows(level: number): boolean {
    return level >= 1
  }

  take(v: Float64Array, at: number): void {
    v[at]! -= 1
  }

  remaining(v: Float64Array, at: number): number {
    return Math.floor(v[at]!)
  }

  /** Seconds until the bucket is full again. */
  reset(v: Float64Array, at: number): number {
    return Math.ceil((this.burst - v[at]!) / this.rate)
  }

  /** Seconds until a call would be allowed. */
  retry(v: Float64Array, at: number): number {
    return Math.max(1, Math.ceil((1 - v[at]!) / this.rate))
  }
}

/**
 * A quota: `count` calls a window of `seconds`, windows aligned to the epoch (a day's starts at 00:00
 * UTC). Slot numbers: the calls counted, and which window they were counted in.
 */
class Window implements SlotMeaning {
  private readonly ms: number
  constructor(
    readonly count: number,
    readonly seconds: number
  ) {
    this.ms = seconds * 1000
  }

  isFree(v: Float64Array, at: number, now: number): boolean {
    return v[at + 1]! !== Math.floor(now / this.ms)
  }

  rank(v: Float64Array, at: number): number {
    return v[at]!
  }

  level(v: Float64Array, at: number, now: number, fresh: boolean): number {
    const window = Math.floor(now / this.ms)
    if (fresh || v[at + 1]! !== window) {
      v[at] = 0
      v[at + 1] = window
    }
    return v[at]!
  }

  allows(level: number): boolean {
    return level < this.count
  }

  take(v: Float64Array, at: number): void {
    v[at]! += 1
  }

  remaining(v: Float64Array, at: number): number {
    return this.count - v[at]!
  }

  reset(v: Float64Array, at: number, now: number): number {
    return Math.max(1, Math.ceil(((v[at + 1]! + 1) * this.ms - now) / 1000))
  }

  retry(v: Float64Array, at: number, now: number): number {
    return this.reset(v, at, now)
  }
}

/** One rule, compiled: what it matches, what it counts by, and how it counts. */
class Rule {
  readonly meaning: Bucket | Window
  /** Its RateLimit-Policy item (draft-ietf-httpapi-ratelimit-headers, section 3). */
  readonly policy: string
  readonly quoted: string

  constructor(
    readonly table: number,
    readonly config: RateRule
  ) {
    const l = config.limit
    this.meaning = l.kind === 'bucket' ? new Bucket(l.rate, l.burst) : new Window(l.count, l.windowSeconds)
    this.quoted = `"${config.name}"`
    // A bucket's policy is its burst over the time the rate takes to fill it.
    this.policy =
      l.kind === 'bucket'
        ? `${this.quoted};q=${l.burst};w=${Math.max(1, Math.ceil(l.burst / l.rate))}`
        : `${this.quoted};q=${l.count};w=${l.windowSeconds}`
  }

  matches(microservice: string, service: string, method: string, mode: ApiMode): boolean {
    const m = this.config.match
    return (
      (m.microservice === null || m.microservice === microservice) &&
      (m.service === null || m.service === service) &&
      (m.method === null || m.method === method) &&
      (m.apiId === null || m.apiId === mode)
    )
  }
}

/** Slots for a rule that counts by key: twice the keys it keeps, as a power of two. */
function slotsFor(rule: RateRule, maxKeys: number): number {
  if (rule.key === 'shared') return 1
  let n = 1
  while (n < maxKeys * 2) n *= 2
  return n
}

/**
 * RATE_LIMITS: every rule that matches a call counts it by its key; a call is allowed only when
 * every one of them has room, and then counted by each (docs/rate-limits.md). Over a limit: 429
 * RATE_LIMITED with Retry-After; either way the RateLimit-Policy and RateLimit fields of the IETF
 * draft (draft-ietf-httpapi-ratelimit-headers-09) when RATE_LIMITS.headers is on.
 */
export class RateLimiter {
  readonly store: LimitStore
  private readonly rules: Rule[]
  /**
   * The rules a call matched (the first `count`), their keys' hashes and their slots: reused by every
   * call, as one JavaScript thread makes one call at a time.
   */
  private readonly matched: Rule[]
  private count = 0
  private readonly his: Uint32Array
  private readonly los: Uint32Array
  private readonly slots: Int32Array
  private readonly keys: KeyHashes = new KeyHashes()

  constructor(
    readonly config: RateLimitsSection,
    shared?: SharedArrayBuffer,
    private readonly clock: () => number = Date.now
  ) {
    this.rules = config.rules.map((r, k) => new Rule(k, r))
    const n = this.rules.length
    this.matched = new Array<Rule>(n)
    this.his = new Uint32Array(n)
    this.los = new Uint32Array(n)
    this.slots = new Int32Array(n)
    this.store = new LimitStore(
      config.rules.map((r) => ({ slots: slotsFor(r, config.maxKeys) })),
      shared
    )
  }

  /**
   * The limiter of a reloaded config: a rule of `previous` with the same name, key, kind of limit and
   * table size goes on with what it counted (its numbers may have changed); any other starts afresh.
   */
  static carriedOver(config: RateLimitsSection, previous: RateLimiter | null): RateLimiter {
    const next = new RateLimiter(config)
    if (previous === null) return next
    for (const rule of next.rules) {
      const c = rule.config
      const old = previous.rules.find(
        (r) => r.config.name === c.name && r.config.key === c.key && r.config.limit.kind === c.limit.kind
      )
      if (old !== undefined && slotsFor(old.config, previous.config.maxKeys) === slotsFor(rule.config, config.maxKeys))
        next.store.carry(previous.store, old.table, rule.table)
    }
    return next
  }

  /** The rules' names, in the order of the config (for the metrics). */
  get names(): string[] {
    return this.rules.map((r) => r.config.name)
  }

  /**
   * Counts a call against the rules it matches: null when none does (or headers are off and it is
   * allowed), the RateLimit fields to send when it is allowed, or RateLimited.
   */
  check(
    microservice: string,
    service: string,
    method: string,
    mode: ApiMode,
    keys: LimitKeys
  ): string[] | RateLimited | null {
    const matched = this.matched
    let n = 0
    for (const r of this.rules) if (r.matches(microservice, service, method, mode)) matched[n++] = r
    this.count = n
    if (n === 0) return null
    // The keys' hashes first: hashing holds no lock.
    const his = this.his
    const los = this.los
    this.keys.start(keys)
    for (let k = 0; k < n; k++) {
      this.keys.of(matched[k]!.config.key)
      his[k] = this.keys.hi
      los[k] = this.keys.lo
    }
    const store = this.store
    const v = store.values
    const slots = this.slots
    const now = this.clock()
    let refused = false
    store.lock()
    for (let k = 0; k < n; k++) {
      const r = matched[k]!
      const at = store.find(r.table, his[k]!, los[k]!, r.meaning, now) * 2
      slots[k] = at
      if (!r.meaning.allows(r.meaning.level(v, at, now, store.fresh))) refused = true
    }
    let retry = 0
    for (let k = 0; k < n; k++) {
      const r = matched[k]!
      const at = slots[k]!
      if (!refused) {
        r.meaning.take(v, at)
        store.count(r.table, false)
      } else if (!r.meaning.allows(v[at]!)) {
        store.count(r.table, true)
        retry = Math.max(retry, r.meaning.retry(v, at, now))
      }
    }
    const fields = refused || this.config.headers ? this.fields(now) : null
    let limits = ''
    if (refused)
      for (let k = 0; k < n; k++)
        if (!matched[k]!.meaning.allows(v[slots[k]!]!))
          limits = limits === '' ? matched[k]!.config.name : `${limits}, ${matched[k]!.config.name}`
    store.unlock()
    if (!refused) return fields
    return new RateLimited({ code: 'RATE_LIMITED', detail: `over the rate limit ${limits}; try again in ${retry} s` }, [
      'Retry-After',
      String(retry),
      ...fields!
    ])
  }

  /** RateLimit-Policy and RateLimit for the rules matched (under the lock: the slots' numbers are read). */
  private fields(now: number): string[] {
    const v = this.store.values
    let policy = ''
    let limit = ''
    for (let k = 0; k < this.count; k++) {
      const r = this.matched[k]!
      const at = this.slots[k]!
      const item = `${r.quoted};r=${Math.max(0, r.meaning.remaining(v, at))};t=${r.meaning.reset(v, at, now)}`
      policy = k === 0 ? r.policy : `${policy}, ${r.policy}`
      limit = k === 0 ? item : `${limit}, ${item}`
    }
    return ['RateLimit-Policy', policy, 'RateLimit', limit]
  }
}

/** The hashes of a call's keys, each made once per call. */
class KeyHashes {
  hi = 0
  lo = 0
  private from: LimitKeys | null = null
  private identity = false
  private address = false
  private identityHi = 0
  private identityLo = 0
  private addressHi = 0
  private addressLo = 0

  /** A new call. */
  start(keys: LimitKeys): void {
    this.from = keys
    this.identity = false
    this.address = false
  }

  /** Sets hi and lo to the hash of the call's key of this kind. */
  of(kind: RateRule['key']): void {
    if (kind === 'shared') {
      this.hi = 1
      this.lo = 1
    } else if (kind === 'address') {
      if (!this.address) {
        this.hashed(KIND_ADDRESS, this.from!.limitAddress())
        this.addressHi = this.hi
        this.addressLo = this.lo
        this.address = true
      }
      this.hi = this.addressHi
      this.lo = this.addressLo
    } else {
      if (!this.identity) {
        this.identified()
        this.identityHi = this.hi
        this.identityLo = this.lo
        this.identity = true
      }
      this.hi = this.identityHi
      this.lo = this.identityLo
    }
  }

  /** The key "identity": the user, else the certificate's subject, else the address. */
  private identified(): void {
    const keys = this.from!
    const user = keys.limitUser()
    if (user !== '') return this.hashed(KIND_USER, user)
    const subject = keys.limitCertificate()
    if (subject !== '') return this.hashed(KIND_CERTIFICATE, subject)
    this.hashed(KIND_ADDRESS, keys.limitAddress())
  }

  /** A key's 64-bit hash, never 0, 0 (an empty slot): FNV-1a and a multiply-xorshift, side by side. */
  private hashed(kind: number, key: string): void {
    let a = Math.imul(0x811c9dc5 ^ kind, 0x01000193)
    let b = Math.imul(0x9747b28c ^ kind, 0x5bd1e995)
    for (let k = 0; k < key.length; k++) {
      const c = key.charCodeAt(k)
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
      b ^= b >>> 15
    }
    b = Math.imul(b ^ (b >>> 13), 0x5bd1e995)
    this.hi = a >>> 0
    this.lo = ((b ^ (b >>> 15)) | 1) >>> 0
  }
}
