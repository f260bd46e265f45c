import Redis from 'ioredis'
import { isDeepStrictEqual } from 'node:util'
import type { RateLimitsSection } from '../../common/config/config'
import { errorMessage } from '../../common/errors/internal'
import type { Logger } from '../../common/observability/log'

/**
 * A window's count in Redis, leased `n` at a time: the calls a gateway takes are counted when it takes
 * them, so every gateway together never takes more than `limit` in a window. Windows are Redis's own
 * clock's (TIME), so gateways whose clocks differ count the same window. Returns the calls granted
 * (0 to n), the calls left in the window after them, and the milliseconds until it ends.
 *   KEYS[1] the key's prefix; ARGV: n, limit, window (ms)
 */
const WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[3])
local window = math.floor(now / span)
local key = KEYS[1] .. ':' .. window
local n = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local used = redis.call('INCRBY', key, n)
if used == n then redis.call('PEXPIRE', key, span + 1000) end
local grant = n
if used > limit then
  grant = math.max(0, n - (used - limit))
  redis.call('DECRBY', key, n - grant)
  used = used - (n - grant)
end
return {grant, limit - used, (window + 1) * span - now}
`

/**
 * A token bucket in Redis (a hash of its tokens and when they were counted), leased `n` tokens at a
 * time. Returns the tokens granted and the thousandths of a token left (Lua's numbers reach Redis as
 * integers).
 *   KEYS[1] the bucket; ARGV: n, rate (tokens a millisecond), burst
 */
const BUCKET = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(v[1]) or burst
local at = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local grant = math.min(n, math.floor(tokens))
tokens = tokens - grant
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return {grant, math.floor(tokens * 1000)}
`

/** What a lease from Redis gave: calls granted, calls (or tokens) left after them, and for a window its end. */
export interface Lease {
  granted: number
  left: number
  /** Milliseconds until the window ends (a bucket: 0). */
  endsInMs: number
}

interface LeaseCommands {
  windowLease(key: string, n: number, limit: number, spanMs: number): Promise<[number, number, number]>
  bucketLease(key: string, n: number, ratePerMs: number, burst: number): Promise<[number, number]>
}

/** How the store's state changed (for one log line a change, not one a call). */
export type StoreEvents = (up: boolean, detail: string) => void

/**
 * RATE_LIMITS.redis: the counts of rules with `"scope": "cluster"`, shared by every gateway that
 * names the same Redis (docs/rate-limits.md, "Across gateways"). Commands are never queued while
 * Redis is away and each has a deadline, so a call waits at most `timeoutMs` for it; after a
 * failure the store is not asked for `retryMs`, and the rules count locally (or refuse, by
 * `onFailure`) until it answers again.
 */
export class SharedCounts {
  private readonly redis: Redis
  private readonly commands: LeaseCommands
  /** performance.now() before which Redis is not asked (it failed a moment ago). */
  private resting = 0
  private wasUp = true
  /** Calls decided without the store because it could not be asked or did not answer. */
  failures = 0

  constructor(
    readonly settings: NonNullable<RateLimitsSection['redis']>,
    private readonly events: StoreEvents = () => {}
  ) {
    this.redis = new Redis(settings.url, {
      enableOfflineQueue: false,
      commandTimeout: settings.timeoutMs,
      connectTimeout: Math.max(1000, settings.timeoutMs),
      maxRetriesPerRequest: 0,
      // Reconnects every half second at most, for as long as it takes.
      retryStrategy: (times) => Math.min(50 * times, 500),
      lazyConnect: false
    })
    // Errors are answered per command (and logged once a change): a connection's own is not fatal.
    this.redis.on('error', () => {})
    this.redis.on('ready', () => this.changed(true, `${settings.url} reachable`))
    this.redis.defineCommand('windowLease', { numberOfKeys: 1, lua: WINDOW })
    this.redis.defineCommand('bucketLease', { numberOfKeys: 1, lua: BUCKET })
    this.commands = this.redis as unknown as LeaseCommands
  }

  /** Whether Redis may be asked now. */
  get available(): boolean {
    return this.redis.status === 'ready' && performance.now() >= this.resting
  }

  /** 1 while Redis answers, 0 while calls are decided without it (the metric igw_rate_limit_store_up). */
  get up(): number {
    return this.wasUp ? 1 : 0
  }

  /** `n` calls of a window of `spanMs` that allows `limit`; null when Redis did not answer. */
  async window(key: string, n: number, limit: number, spanMs: number): Promise<Lease | null> {
    try {
      const [granted, left, endsInMs] = await this.commands.windowLease(key, n, limit, spanMs)
      this.changed(true, `${this.settings.url} answers`)
      return { granted, left, endsInMs }
    } catch (err) {
      return this.failed(err)
    }
  }

  /** `n` tokens of a bucket; null when Redis did not answer. */
  async bucket(key: string, n: number, rate: number, burst: number): Promise<Lease | null> {
    try {
      const [granted, left] = await this.commands.bucketLease(key, n, rate / 1000, burst)
      this.changed(true, `${this.settings.url} answers`)
      return { granted, left: left / 1000, endsInMs: 0 }
    } catch (err) {
      return this.failed(err)
    }
  }

  /** A call decided without the store (it could not be asked). */
  skipped(): void {
    this.failures++
    this.changed(false, `${this.settings.url} is not connected`)
  }

  close(): void {
    this.redis.disconnect()
  }

  private failed(err: unknown): null {
    // Not a call decided without the store: the calls that waited for this lease are decided again,
    // and counted then, by skipped().
    this.resting = performance.now() + this.settings.retryMs
    this.changed(false, errorMessage(err))
    return null
  }

  private changed(up: boolean, detail: string): void {
    if (up === this.wasUp) return
    this.wasUp = up
    this.events(up, detail)
  }
}

/**
 * The shared counts a RATE_LIMITS config needs: null without cluster rules, the previous ones when
 * RATE_LIMITS.redis did not change (a reload keeps its connection), else a new connection.
 */
export function sharedCountsFor(
  config: RateLimitsSection,
  previous: SharedCounts | null,
  events: StoreEvents
): SharedCounts | null {
  const redis = config.redis
  if (redis === null || !config.rules.some((r) => r.scope === 'cluster')) {
    previous?.close()
    return null
  }
  if (previous !== null && isDeepStrictEqual(previous.settings, redis)) return previous
  previous?.close()
  return new SharedCounts(redis, events)
}

/** One log line each time Redis stops or starts answering for the cluster rules. */
export function storeLog(log: Logger, onFailure: () => 'local' | 'refuse'): StoreEvents {
  return (up, detail) =>
    up
      ? log.info({ event: 'store-up' }, `Redis counts the cluster rate limits again: ${detail}`)
      : log.warn(
          { event: 'store-down' },
          `Redis cannot count the cluster rate limits (${detail}); ${onFailure() === 'refuse' ? 'their calls are refused' : 'they are counted by each gateway'} until it answers`
        )
}
