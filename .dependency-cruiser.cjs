// src/ holds four programs and what they share:
//   common/        the contract of a call, errors, logging, bytes, JSON/XML scanning, the wire protocol,
//                  the config every program reads
//   gateway/       the HTTP front: preparing calls and dispatch, admission, the invocation pipeline, HTTP adapters
//   microservice/  descriptors/ (the types of values), serializers/, sdk/ (what an author imports),
//                  host/ (the process that runs a package)
//   platform/      deploys, watches and serves the other two; main.ts starts it
//   cli/           the `microservice` command, one file per command, and its bench/ load generator
// The two sides of the wire never import each other and common/ imports neither, so a wrong import is
// caught by the folder it crosses. Inside common/, gateway/ and microservice/ a module imports its own layer or lower
// ones. workers/ holds each worker thread's entry file, thin (what src/ exports for that thread).
// Checked by `npm test` (npm run lint:deps).
const under = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})(/|$)`
const layered = (program, layers) =>
  layers.slice(0, -1).map((own, k) => ({
    name: `${program}-layer-${k}-imports-upward`,
    comment: `${own.join(', ')} may not import ${layers
      .slice(k + 1)
      .flat()
      .join(', ')}`,
    severity: 'error',
    from: { path: under(own.map((n) => `${program}/${n}`)) },
    to: {
      path: under(
        layers
          .slice(k + 1)
          .flat()
          .map((n) => `${program}/${n}`)
      )
    }
  }))
/** A worker's entry file imports only what its thread runs, from the folders named. */
const thin = (worker, folders) => [
  {
    name: `worker-${worker}-is-thin`,
    comment: `workers/${worker}.ts runs what src/${folders.join(', src/')} exports for its thread`,
    severity: 'error',
    from: { path: `^workers/${worker}\\.ts$` },
    to: { pathNot: `^(src/(${folders.join('|')})/|node_modules/|worker_threads$)` }
  }
]
const crossing = (name, from, to) => ({ name, severity: 'error', from: { path: under(from) }, to: { path: under(to) } })

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    crossing('common-imports-a-program', ['common'], ['gateway', 'microservice', 'platform', 'cli', 'main.ts']),
    crossing('gateway-imports-microservice-or-platform', ['gateway'], ['microservice', 'platform', 'cli', 'main.ts']),
    crossing('microservice-imports-gateway-or-platform', ['microservice'], ['gateway', 'platform', 'cli', 'main.ts']),
    crossing('platform-imports-the-cli-or-main', ['platform'], ['cli', 'main.ts']),
    crossing('cli-imports-main', ['cli'], ['main.ts']),
    crossing('sdk-imports-the-host', ['microservice/sdk'], ['microservice/host']),
    crossing(
      'java-rules-import-a-family',
      ['microservice/serializers/java'],
      ['microservice/serializers/alpha', 'microservice/serializers/beta']
    ),
    {
      name: 'bench-imports-the-platform',
      comment:
        'bench/ measures the gateway, the microservice host and the CLI; what it starts of the platform it starts as a process',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^src/platform/' }
    },
    ...layered('common', [
      ['contract', 'errors', 'observability', 'bytes', 'process'],
      ['json', 'xml', 'protocol'],
      ['config']
    ]),
    ...layered('gateway', [['prepare', 'dispatch', 'admission'], ['invoke'], ['http', 'tls'], ['edge']]),
    {
      name: 'serializers-stand-alone',
      comment: 'serializers read and write values from descriptors; they know nothing of the host around them',
      severity: 'error',
      from: { path: '^src/microservice/serializers/' },
      to: { path: '^src/microservice/', pathNot: '^src/microservice/(serializers|descriptors)/' }
    },
    // Inside microservice/: the descriptors of values under the serializers that read them, under the
    // SDK that hands both to authors, under the host that runs what the SDK defines.
    ...layered('microservice', [['descriptors'], ['serializers'], ['sdk'], ['host']]),
    {
      name: 'platform-parts-import-upward',
      comment:
        "platform/'s folders (listeners/, package/) are the parts its top level puts together: they never import it",
      severity: 'error',
      from: { path: '^src/platform/[^/]+/' },
      to: { path: '^src/platform/[^/]+\\.ts$' }
    },
    {
      name: 'prepare-thread-is-lean',
      comment:
        "what the gateway's worker pool threads run imports its logic from src/gateway/prepare and src/common only",
      severity: 'error',
      from: { path: '^src/gateway/prepare/prepare-thread\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(gateway/prepare|common)/' }
    },
    {
      name: 'src-imports-a-worker',
      comment:
        'workers/ holds the entry file of each worker thread; src/ names them by path (worker-entries.ts), never imports them',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^workers/' }
    },
    ...thin('prepare', ['gateway/prepare']),
    ...thin('method', ['microservice/host']),
    ...thin('listener', ['platform/listeners'])
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/common/protocol/generated/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true
  }
}
