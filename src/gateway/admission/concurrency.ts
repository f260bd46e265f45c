import type { AdmissionSection } from '../../common/config/config'
import type { MethodInfo } from '../dispatch/catalog'

/**
 * Adaptive admission (ADMISSION, docs/rate-limits.md "Adaptive admission"): per method of a
 * microservice, a limit on the calls it has at once that follows the latency they take, as Envoy's adaptive
 * concurrency filter and Netflix's concurrency-limits do. Each window, the round trips are compared
 * with the unloaded latency (the least round trip of the last two baseline periods): when most are
 * above `tolerance` times it plus `slackMs`, calls are queueing in the microservice, and the limit is
 * cut in proportion to the window's mean; otherwise, with the limit in use, the limit grows by half
 * its square root. The median judges, not the mean: a pause (a GC, a JIT compile, the scheduler on a
 * busy machine) slows the few calls in flight at that moment, queueing slows most of a window's
 * (docs/rate-limits.md, "How the limit moves", has what the mean did to a Java microservice). A call
 * past the limit is refused at once (503 OVERLOADED), so a slow microservice's queue does not grow
 * until calls time out; priority calls may use the last `priorityShare` of the limit.
 */
export class AdaptiveLimit {
  /** Calls allowed at once (a fraction between updates). */
  limit: number
  inFlight = 0
  /** The most calls in flight this window (whether the limit was in use). */
  private peak = 0
  private sum = 0
  private samples = 0
  /** This window's round trips above the threshold. */
  private over = 0
  /** tolerance × the unloaded latency + slackMs: a round trip above it waited. */
  private threshold = Infinity
  private windowEnds = 0
  /** The least round trip of this baseline period and of the one before it. */
  private least = Infinity
  private leastBefore = Infinity
  private periodEnds = 0

  /** The share of the limit others leave to priority callers: none when no priority caller is configured. */
  private readonly kept: number

  constructor(private readonly s: AdmissionSection) {
    this.limit = s.initialLimit
    this.kept = s.priority.users.length > 0 || s.priority.privilegeNames.length > 0 ? s.priorityShare : 0
  }

  /** The unloaded latency now (ms; Infinity before the first round trip). */
  get unloadedMs(): number {
    return Math.min(this.least, this.leastBefore)
  }

  /** Counts a call when the limit has room for it (priority calls may use the whole limit). */
  tryAcquire(priority: boolean): boolean {
    const room = priority ? this.limit : this.limit * (1 - this.kept)
    if (this.inFlight >= Math.max(1, Math.floor(room))) return false
    if (++this.inFlight > this.peak) this.peak = this.inFlight
    return true
  }

  release(): void {
    this.inFlight--
  }

  /**
   * A call's round trip to the microservice took `ms`, ending at `now` (ms, performance.now()). One on a
   * connection still `warming` up counts only within the threshold: a new instance may grow the limit,
   * never cut it (docs/rate-limits.md, "How the limit moves").
   */
  sample(ms: number, now: number, warming = false): void {
    if (warming && ms > this.threshold) return
    this.sum += ms
    this.samples++
    if (ms > this.threshold) this.over++
    if (ms < this.least) {
      this.least = ms
      this.moveThreshold()
    }
    if (now >= this.periodEnds) {
      this.leastBefore = this.least
      this.least = ms
      this.periodEnds = now + this.s.baselineMs
      this.moveThreshold()
    }
    if (now < this.windowEnds) return
    this.windowEnds = now + this.s.windowMs
    this.update()
  }

  /** The threshold follows the unloaded round trip, each time that moves. */
  private moveThreshold(): void {
    this.threshold = this.s.tolerance * this.unloadedMs + this.s.slackMs
  }

  private update(): void {
    const s = this.s
    if (this.over * 2 > this.samples) {
      const cut = Math.min(1, Math.max(0.5, this.threshold / (this.sum / this.samples)))
      this.limit = Math.max(s.minLimit, this.limit * cut)
    } else if (this.peak >= this.limit / 2) this.limit = Math.min(s.maxLimit, this.limit + Math.sqrt(this.limit) / 2)
    this.sum = 0
    this.samples = 0
    this.over = 0
    this.peak = this.inFlight
  }
}

/**
 * Each method's AdaptiveLimit, made on its first call (one listener thread's). By method, not by
 * microservice: methods take different times, and one's unloaded latency is no measure of another's.
 * Found by the catalog's MethodInfo (no key to build per call); a new catalog (a new version) starts
 * its methods' limits again.
 */
export class Admission {
  private readonly limits = new WeakMap<MethodInfo, AdaptiveLimit>()
  /** The same limits by route, for the metrics: the newest catalog's. */
  private readonly routes = new Map<string, { microservice: string; method: MethodInfo; limit: AdaptiveLimit }>()

  constructor(readonly settings: AdmissionSection) {}

  of(microservice: string, method: MethodInfo): AdaptiveLimit {
    let l = this.limits.get(method)
    if (l === undefined) {
      l = new AdaptiveLimit(this.settings)
      this.limits.set(method, l)
      this.routes.set(`${microservice}/${method.service}/${method.name}`, { microservice, method, limit: l })
    }
    return l
  }

  /** Every method's limit now, for the metrics. */
  entries(): IterableIterator<{ microservice: string; method: MethodInfo; limit: AdaptiveLimit }> {
    return this.routes.values()
  }

  /** Whether a call with this trusted identity is shed last (ADMISSION.priority). */
  isPriority(user: string, privilegeNames: readonly string[]): boolean {
    const p = this.settings.priority
    if (user !== '' && p.users.includes(user)) return true
    for (const name of privilegeNames) if (p.privilegeNames.includes(name)) return true
    return false
  }
}
