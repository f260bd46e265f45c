import type { ApiMode } from '../../common/contract/vocabulary'
import { HEADER } from '../../common/contract/http-names'
import type { Failure } from '../../common/errors/codes'
import type { RateLimitsSection, RateRule } from '../../common/config/config'
import { LimitStore, NUMBERS, type SlotMeaning } from './limit-store'
import { sharedCountsFor, type SharedCounts, type StoreEvents } from './shared-counts'

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

/** Leases a call may wait for before it is decided with what is in hand (others may take each one). */
const ASKS = 4
/** How long tokens leased from a Redis bucket may be spent here before they are given up. */
const BUCKET_LEASE_MS = 1000

/** A budget's "left" while its next lease is on its way (asked for once). */
const ASKED = -1

/**
 * A cluster rule's local budget: calls leased from RATE_LIMITS.redis and not spent yet. Slot numbers:
 * the calls in hand, until when they may be spent (ms), and what Redis had left when they were leased
 * (Infinity: unknown, ask it; ASKED: a lease is on its way).
 */
class Leased implements SlotMeaning {
  constructor(readonly limit: RateRule['limit']) {}

  isFree(v: Float64Array, at: number, now: number): boolean {
    return v[at + 1]! <= now
  }

  rank(v: Float64Array, at: number): number {
    return v[at + 1]!
  }

  level(v: Float64Array, at: number, now: number, fresh: boolean): number {
    if (fresh || v[at + 1]! <= now) {
      v[at] = 0
      v[at + 1] = now
      v[at + 2] = Infinity
    }
    return v[at]!
  }

  /**
   * Whether the budget is down to half a lease while Redis has more: time to ask for the next (once:
   * the slot is marked ASKED until it comes).
   */
  low(v: Float64Array, at: number, lease: number): boolean {
    if (!(v[at]! < lease / 2 && v[at + 2]! >= 1 && lease > 1)) return false
    v[at + 2] = ASKED
    return true
  }

  /** Whether Redis should be asked for more (or the lease on its way waited for) before the call is decided. */
  empty(v: Float64Array, at: number, now: number): boolean {
    const left = v[at + 2]!
    return v[at]! < 1 && (v[at + 1]! <= now || left >= 1 || left === ASKED)
  }

  /** A lease that did not come: what Redis has is unknown again. */
  unanswered(v: Float64Array, at: number): void {
    if (v[at + 2] === ASKED) v[at + 2] = Infinity
  }

  /** A lease Redis gave, added to what is in hand. */
  add(v: Float64Array, at: number, now: number, granted: number, left: number, endsInMs: number): void {
    v[at]! += granted
    v[at + 2] = left
    // A window's calls are good until it ends; a bucket's for a moment, or until one more has filled.
    v[at + 1] =
      this.limit.kind === 'window'
        ? now + endsInMs
        : now + (granted > 0 ? BUCKET_LEASE_MS : Math.max(1, ((1 - left) / this.limit.rate) * 1000))
  }

  allows(level: number): boolean {
    return level >= 1
  }

  take(v: Float64Array, at: number): void {
    v[at]! -= 1
  }

  remaining(v: Float64Array, at: number): number {
    const left = v[at + 2]!
    return Math.floor(v[at]! + (Number.isFinite(left) && left > 0 ? left : 0))
  }

  reset(v: Float64Array, at: number, now: number): number {
    const l = this.limit
    if (l.kind === 'window') return Math.max(1, Math.ceil((v[at + 1]! - now) / 1000))
    return Math.ceil((l.burst - this.remaining(v, at)) / l.rate)
  }

  retry(v: Float64Array, at: number, now: number): number {
    const l = this.limit
    return l.kind === 'window' ? this.reset(v, at, now) : Math.max(1, Math.ceil(1 / l.rate))
  }
}

type Meaning = Bucket | Window | Leased

/** One rule, compiled: what it matches, what it counts by, and how it counts. */
class Rule {
  readonly meaning: Bucket | Window
  /** A cluster rule's budget leased from Redis (and its table); null for a node rule. */
  readonly leased: Leased | null
  /** The calls leased from Redis at a time: a hundredth of the limit, from 1 to 100. */
  readonly leaseSize: number
  /** Its RateLimit-Policy item (draft-ietf-httpapi-ratelimit-headers, section 3). */
  readonly policy: string
  readonly quoted: string

  constructor(
    /** Its counts here (a cluster rule's while Redis cannot be asked). */
    readonly table: number,
    readonly leaseTable: number,
    readonly config: RateRule
  ) {
    const l = config.limit
    this.meaning = l.kind === 'bucket' ? new Bucket(l.rate, l.burst) : new Window(l.count, l.windowSeconds)
    this.leased = config.scope === 'cluster' ? new Leased(l) : null
    this.leaseSize = Math.min(100, Math.max(1, Math.floor((l.kind === 'bucket' ? l.burst : l.count) / 100)))
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
  if (rule.key === 'global') return 1
  let n = 1
  while (n < maxKeys * 2) n *= 2
  return n
}

/** What the limiter says of a call: the fields to send (null: none), or why it is refused. */
export type Verdict = string[] | RateLimited | null

/**
 * RATE_LIMITS: every rule that matches a call counts it by its key; a call is allowed only when
 * every one of them has room, and then counted by each (docs/rate-limits.md). Over a limit: 429
 * RATE_LIMITED with Retry-After; either way the RateLimit-Policy and RateLimit fields of the IETF
 * draft (draft-ietf-httpapi-ratelimit-headers-09) when RATE_LIMITS.headers is on. A cluster rule
 * spends calls leased from Redis (`counts`), and asks for more when none is left: only then is the
 * verdict a promise.
 */
export class RateLimiter {
  readonly store: LimitStore
  private readonly rules: Rule[]
  /**
   * The rules a call matched (the first `count`), their keys' hashes, slots and meanings: reused by
   * every call, as one JavaScript thread decides one call at a time.
   */
  private readonly matched: Rule[]
  private count = 0
  private readonly his: Uint32Array
  private readonly los: Uint32Array
  private readonly slots: Int32Array
  private readonly meanings: Meaning[]
  private readonly keys: KeyHashes = new KeyHashes()
  /**
   * Leases about to be asked for, by rule and key: the calls that find the same budget empty in one
   * turn of the event loop wait for one lease, of at least as many calls as they are.
   */
  private readonly asking = new Map<string, { waiters: number; leased: Promise<void> }>()
  /** Leases asked for and not answered yet: a budget running low asks for no other meanwhile. */
  private readonly leasing = new Map<string, { waiters: number; leased: Promise<void> }>()

  constructor(
    readonly config: RateLimitsSection,
    shared?: SharedArrayBuffer,
    private readonly clock: () => number = Date.now,
    /** RATE_LIMITS.redis for cluster rules; null without such rules. */
    readonly counts: SharedCounts | null = null
  ) {
    const tables: Array<{ slots: number }> = []
    this.rules = config.rules.map((r) => {
      const slots = slotsFor(r, config.maxKeys)
      tables.push({ slots })
      if (r.scope === 'cluster') tables.push({ slots })
      return new Rule(
        tables.length - (r.scope === 'cluster' ? 2 : 1),
        r.scope === 'cluster' ? tables.length - 1 : -1,
        r
      )
    })
    const n = this.rules.length
    this.matched = new Array<Rule>(n)
    this.his = new Uint32Array(n)
    this.los = new Uint32Array(n)
    this.slots = new Int32Array(n)
    this.meanings = new Array<Meaning>(n)
    this.store = new LimitStore(tables, shared)
  }

  /**
   * The limiter of a reloaded config: a rule of `previous` with the same name, key, scope, kind of
   * limit and table size goes on with what it counted (its numbers may have changed); any other starts
   * afresh.
   */
  static carriedOver(
    config: RateLimitsSection,
    previous: RateLimiter | null,
    counts: SharedCounts | null = null
  ): RateLimiter {
    const next = new RateLimiter(config, undefined, Date.now, counts)
    if (previous === null) return next
    for (const rule of next.rules) {
      const c = rule.config
      const old = previous.rules.find(
        (r) =>
          r.config.name === c.name &&
          r.config.key === c.key &&
          r.config.scope === c.scope &&
          r.config.limit.kind === c.limit.kind
      )
      if (old === undefined || slotsFor(old.config, previous.config.maxKeys) !== slotsFor(c, config.maxKeys)) continue
      next.store.carry(previous.store, old.table, rule.table)
      if (rule.leaseTable >= 0) next.store.carry(previous.store, old.leaseTable, rule.leaseTable)
    }
    return next
  }

  /** The rules' names and the tables their counts are in, in the order of the config (for the metrics). */
  get tables(): Array<{ name: string; table: number }> {
    return this.rules.map((r) => ({ name: r.config.name, table: r.table }))
  }

  /**
   * Counts a call against the rules it matches: null when none does (or headers are off and it is
   * allowed), the RateLimit fields to send when it is allowed, or RateLimited; a promise of one of
   * these when a cluster rule must ask Redis first.
   */
  check(
    microservice: string,
    service: string,
    method: string,
    mode: ApiMode,
    keys: LimitKeys
  ): Verdict | Promise<Verdict> {
    return this.decide(microservice, service, method, mode, keys, 0)
  }

  private decide(
    microservice: string,
    service: string,
    method: string,
    mode: ApiMode,
    keys: LimitKeys,
    /** Leases asked for this call so far. */
    asked: number
  ): Verdict | Promise<Verdict> {
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
    const meanings = this.meanings
    const now = this.clock()
    const counts = this.counts
    const redis = counts !== null && counts.available
    let refused = false
    let unreachable = false
    let ask: Array<[Rule, number, number]> | null = null
    store.lock()
    for (let k = 0; k < n; k++) {
      const r = matched[k]!
      let table = r.table
      let meaning: Meaning = r.meaning
      if (r.leased !== null) {
        if (redis) {
          table = r.leaseTable
          meaning = r.leased
        } else unreachable = true
      }
      const at = store.find(table, his[k]!, los[k]!, meaning, now) * NUMBERS
      slots[k] = at
      meanings[k] = meaning
      const level = meaning.level(v, at, now, store.fresh)
      if (meaning.allows(level)) continue
      // Empty, and Redis may have more: ask (again, when other calls took what the last lease gave).
      if (meaning instanceof Leased && asked < ASKS && meaning.empty(v, at, now))
        (ask ??= []).push([r, his[k]!, los[k]!])
      else refused = true
    }
    if (ask !== null) {
      store.unlock()
      return this.leased(ask).then(() => this.decide(microservice, service, method, mode, keys, asked + 1))
    }
    if (unreachable && counts !== null) {
      counts.skipped()
      if (this.config.redis!.onFailure === 'refuse') {
        store.unlock()
        // A 503: its problem answer carries Retry-After (ENTRY_POINTS…retryAfterSeconds) already.
        return new RateLimited(
          {
            code: 'OVERLOADED',
            detail:
              'the rate limits shared through Redis cannot be counted now, and RATE_LIMITS.redis.onFailure is "refuse"; try again after Retry-After'
          },
          []
        )
      }
    }
    let retry = 0
    let more: Array<[Rule, number, number]> | null = null
    for (let k = 0; k < n; k++) {
      const r = matched[k]!
      const m = meanings[k]!
      const at = slots[k]!
      if (!refused) {
        m.take(v, at)
        store.count(r.table, false)
        // Half the lease spent and Redis has more: the next one is asked for now, so that no call
        // waits for it while calls keep coming.
        if (m instanceof Leased && m.low(v, at, r.leaseSize)) (more ??= []).push([r, his[k]!, los[k]!])
      } else if (!m.allows(v[at]!)) {
        store.count(r.table, true)
        retry = Math.max(retry, m.retry(v, at, now))
      }
    }
    const fields = refused || this.config.headers ? this.fields(now) : null
    let limits = ''
    if (refused)
      for (let k = 0; k < n; k++)
        if (!meanings[k]!.allows(v[slots[k]!]!))
          limits = limits === '' ? matched[k]!.config.name : `${limits}, ${matched[k]!.config.name}`
    store.unlock()
    if (more !== null) void this.leased(more, false)
    if (!refused) return fields
    return new RateLimited({ code: 'RATE_LIMITED', detail: `over the rate limit ${limits}; try again in ${retry} s` }, [
      HEADER.retryAfter,
      String(retry),
      ...fields!
    ])
  }

  /**
   * Leases from Redis for the budgets found empty (or low: `waiting` false), one request per rule and
   * key however many calls wait; a budget low while its next lease is on its way asks for none.
   */
  private leased(ask: Array<[Rule, number, number]>, waiting = true): Promise<unknown> {
    return Promise.all(
      ask.map(([rule, hi, lo]) => {
        const id = `${rule.table}:${hi}:${lo}`
        let entry = this.asking.get(id) ?? this.leasing.get(id)
        if (entry === undefined) {
          const e = {
            waiters: 0,
            // Sent once this turn of the event loop is over, for every call that joined it.
            leased: new Promise<void>((resolve) =>
              setImmediate(() => {
                this.asking.delete(id)
                this.leasing.set(id, e)
                void this.lease(rule, hi, lo, Math.max(rule.leaseSize, e.waiters)).finally(() => {
                  this.leasing.delete(id)
                  resolve()
                })
              })
            )
          }
          entry = e
          this.asking.set(id, e)
        }
        if (waiting) entry.waiters++
        return entry.leased
      })
    )
  }

  private async lease(rule: Rule, hi: number, lo: number, n: number): Promise<void> {
    const counts = this.counts!
    const l = rule.config.limit
    const key = `${this.config.redis!.prefix}:${rule.config.name}:${hi.toString(36)}.${lo.toString(36)}`
    const got =
      l.kind === 'window'
        ? await counts.window(key, n, l.count, l.windowSeconds * 1000)
        : await counts.bucket(key, n, l.rate, l.burst)
    const store = this.store
    const now = this.clock()
    store.lock()
    const at = store.find(rule.leaseTable, hi, lo, rule.leased!, now) * NUMBERS
    rule.leased!.level(store.values, at, now, store.fresh)
    // Not answered: the call is decided again, without Redis (counts.available is false for a while).
    if (got === null) rule.leased!.unanswered(store.values, at)
    else rule.leased!.add(store.values, at, now, got.granted, got.left, got.endsInMs)
    store.unlock()
  }

  /** RateLimit-Policy and RateLimit for the rules matched (under the lock: the slots' numbers are read). */
  private fields(now: number): string[] {
    const v = this.store.values
    let policy = ''
    let limit = ''
    for (let k = 0; k < this.count; k++) {
      const r = this.matched[k]!
      const m = this.meanings[k]!
      const at = this.slots[k]!
      const item = `${r.quoted};r=${Math.max(0, m.remaining(v, at))};t=${m.reset(v, at, now)}`
      policy = k === 0 ? r.policy : `${policy}, ${r.policy}`
      limit = k === 0 ? item : `${limit}, ${item}`
    }
    return [HEADER.rateLimitPolicy, policy, HEADER.rateLimit, limit]
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
    if (kind === 'global') {
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

/**
 * A thread's limiter for a RATE_LIMITS config (null without rules): over the main thread's shared
 * counts when `shared` is given, else a new store that keeps what `previous` counted for unchanged
 * rules. The Redis connection of `previous` is kept when RATE_LIMITS.redis did not change.
 */
export function limiterFor(
  config: RateLimitsSection,
  shared: SharedArrayBuffer | null,
  previous: RateLimiter | null,
  events: StoreEvents
): RateLimiter | null {
  const counts = sharedCountsFor(config, previous?.counts ?? null, events)
  if (config.rules.length === 0) return null
  return shared === null
    ? RateLimiter.carriedOver(config, previous, counts)
    : new RateLimiter(config, shared, Date.now, counts)
}
