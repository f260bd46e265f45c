// A thread of the gateway's worker pool (WORKER_POOL), started by Piscina for src/gateway/prepare/prepare-pool.ts.
import { prepareThread } from '../src/gateway/prepare/prepare-thread'

export default prepareThread()
