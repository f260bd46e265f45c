// A listener thread of the gateway (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads), started by
// src/platform/listeners/listener-threads.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { listenerThread } from '../src/platform/listeners/listener-thread'
import type { ListenerStart } from '../src/platform/listeners/listener-messages'

listenerThread(parentPort!, workerData as ListenerStart)
