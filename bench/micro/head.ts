// Head stage: negotiation of Content-Type/Accept and the route out of the URL, against the
// simplest code that could decide the same thing for the common case.
import { negotiate, negotiateCached } from '../../src/gateway/invoke/negotiate'
import { parseRoute } from '../../src/gateway/invoke/route'
import { pair, type Pair } from './common'

export async function run(): Promise<Pair[]> {
  const ct = 'application/json; charset=utf-8'
  const accept = 'application/json, text/plain;q=0.5, */*;q=0.1'
  if (!('format' in negotiate(ct, accept)) || parseRoute('/example/calculator/multiply')?.[2] !== 'multiply')
    throw new Error('head stage gives a wrong answer')
  return [
    await pair(
      'negotiate',
      'typical',
      ['negotiate (parsed)', () => negotiate(ct, accept)],
      ['startsWith check', () => ct.startsWith('application/json')]
    ),
    await pair(
      'negotiate',
      'typical',
      ['negotiateCached', () => negotiateCached(ct, accept)],
      ['startsWith check', () => ct.startsWith('application/json')]
    ),
    await pair(
      'route',
      'url',
      ['parseRoute', () => parseRoute('/example/calculator/multiply')],
      ['url.split("/")', () => '/example/calculator/multiply'.split('/')]
    )
  ]
}
