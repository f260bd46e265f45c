// Layers of src/, bottom first. A module may import its own layer or lower ones, never a higher one,
// and the two sides of the wire (gateway: pool, dispatch, invoke, http; microservice: runtime) never
// import each other. Checked by `npm test` (npm run lint:deps).
const layers = [
  ['core', 'errors'],
  ['descriptors', 'json', 'xml', 'protocol', 'config'],
  ['args', 'serializers'],
  ['pool', 'dispatch', 'runtime'],
  ['invoke'],
  ['http'],
  ['platform', 'cli'],
  ['main.ts']
]
const path = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})`
const upward = layers.slice(0, -1).map((own, k) => ({
  name: `layer-${k}-imports-upward`,
  comment: `${own.join(', ')} may not import ${layers.slice(k + 1).flat().join(', ')}`,
  severity: 'error',
  from: { path: path(own) },
  to: { path: path(layers.slice(k + 1).flat()) }
}))

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    ...upward,
    {
      name: 'gateway-imports-microservice-side',
      severity: 'error',
      from: { path: path(['pool', 'dispatch', 'invoke', 'http']) },
      to: { path: path(['runtime']) }
    },
    {
      name: 'microservice-side-imports-gateway',
      severity: 'error',
      from: { path: path(['runtime']) },
      to: { path: path(['pool', 'dispatch', 'invoke', 'http', 'config']) }
    },
    {
      name: 'workers-are-thin',
      comment: 'workers/ holds Piscina task files that import their logic from src/pool only',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/', pathNot: '^src/(pool|args|core|errors|json|xml|protocol)/' }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/protocol/generated/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true
  }
}
