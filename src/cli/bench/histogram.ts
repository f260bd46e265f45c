/**
 * Latencies in a log-linear histogram (HdrHistogram's layout, 64 sub-buckets per power of two): any
 * count of samples in a fixed array, each within 1/64 of its value; the maximum kept exactly.
 * Values are recorded in tenths of a microsecond, up to 2^31 of them (three and a half minutes).
 */
const SUB_BITS = 6
const SUB = 1 << SUB_BITS
const UNIT_NS = 100
const BUCKETS = (31 - SUB_BITS) * SUB + 2 * SUB

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS)
  count = 0
  maxNs = 0
  private sumNs = 0

  record(ns: number): void {
    const units = Math.min(Math.max(Math.round(ns / UNIT_NS), 0), 2 ** 31 - 1)
    this.counts[indexOf(units)]!++
    this.count++
    this.sumNs += ns
    if (ns > this.maxNs) this.maxNs = ns
  }

  add(other: LatencyHistogram): void {
    for (let k = 0; k < BUCKETS; k++) this.counts[k]! += other.counts[k]!
    this.count += other.count
    this.sumNs += other.sumNs
    this.maxNs = Math.max(this.maxNs, other.maxNs)
  }

  clear(): void {
    this.counts.fill(0)
    this.count = 0
    this.maxNs = 0
    this.sumNs = 0
  }

  meanNs(): number {
    return this.count === 0 ? 0 : this.sumNs / this.count
  }

  /** The value below which a share `q` (0–1) of the samples lie: a bucket's middle, never above the max. */
  quantileNs(q: number): number {
    if (this.count === 0) return 0
    const rank = Math.max(1, Math.ceil(q * this.count))
    let seen = 0
    for (let k = 0; k < BUCKETS; k++) {
      seen += this.counts[k]!
      if (seen >= rank) return Math.min(middleOf(k) * UNIT_NS, this.maxNs)
    }
    return this.maxNs
  }

  /** The filled buckets as [upper bound ns, count], for plotting the distribution. */
  buckets(): Array<[number, number]> {
    const out: Array<[number, number]> = []
    for (let k = 0; k < BUCKETS; k++) if (this.counts[k]! > 0) out.push([upperOf(k) * UNIT_NS, this.counts[k]!])
    return out
  }
}

function indexOf(units: number): number {
  if (units < 2 * SUB) return units
  const exponent = 31 - Math.clz32(units) - SUB_BITS
  return (exponent + 1) * SUB + ((units >>> exponent) - SUB)
}

function lowerOf(index: number): number {
  if (index < 2 * SUB) return index
  const exponent = Math.floor(index / SUB) - 1
  return (SUB + (index % SUB)) * 2 ** exponent
}

function upperOf(index: number): number {
  return index + 1 < BUCKETS ? lowerOf(index + 1) : lowerOf(index) * 2
}

function middleOf(index: number): number {
  return (lowerOf(index) + upperOf(index) - 1) / 2
}
