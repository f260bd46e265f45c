// A thread of the gateway's worker pool (WORKER_POOL), started by Piscina for src/gateway/pool/pool.ts.
import { poolThread } from '../src/gateway/pool/pool-thread'

export default poolThread()
