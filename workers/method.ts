// A thread of a microservice's method pool (the package's workerThreads), started by Piscina for
// src/microservice/host/method-pool.ts.
import { workerData } from 'node:worker_threads'
import { methodThread } from '../src/microservice/host/method-thread'
import type { MethodThreadStart } from '../src/microservice/host/method-pool'

export default methodThread(workerData as MethodThreadStart)
