// The import boundaries of src/ (docs/architecture.md, "Import boundaries"), checked by `npm run lint:boundaries`.
// Type-only imports count as imports: a cycle through `import type` still ties the files' meanings together.

const AREA = '^src/modules/[^/]+/';
const AREA_INDEX = '^src/modules/[^/]+/index\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'No import cycle, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-area-cycle',
      severity: 'error',
      comment:
        'No import cycle between areas (a folder of src/modules/, or a top-level folder of src/: http, shared, ' +
        'db, jobs, seed), even when no file-level cycle exists: the folder graph (each folder with its ' +
        'subfolders) must have no cycle through two areas. Cycles among the subfolders of one area are left to ' +
        'no-cycle. Every import from another area lands on the root of src/modules/<area>/ (index.ts, ' +
        '<area>.handlers.ts, *.job.ts), so an area with subfolders is still one node here.',
      scope: 'folder',
      from: { path: '^src/(modules/[^/]+|[^/]+)' },
      to: { circular: true, pathNot: '^src/$1(/|$)' },
    },
    {
      name: 'area-through-index',
      severity: 'error',
      comment: "An area (src/modules/<area>/) imports another area only through that area's index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: AREA, pathNot: ['^src/modules/$1/', AREA_INDEX] },
    },
    {
      name: 'outside-through-index',
      severity: 'error',
      comment: 'Code outside the areas (http/, main, seed, demo, jobs/) reaches an area only through its index.ts.',
      from: {
        path: '^src/',
        pathNot: ['^src/modules/', '^src/http/handlers\\.ts$', '^src/jobs/registry\\.ts$', '^src/app-deps\\.ts$'],
      },
      to: { path: AREA, pathNot: AREA_INDEX },
    },
    {
      name: 'handler-maps',
      severity: 'error',
      comment: "src/http/handlers.ts takes each area's handler map from its <area>.handlers.ts (or index.ts).",
      from: { path: '^src/http/handlers\\.ts$' },
      to: { path: AREA, pathNot: [AREA_INDEX, '^src/modules/([^/]+)/\\1\\.handlers\\.ts$'] },
    },
    {
      name: 'job-definitions',
      severity: 'error',
      comment: "src/jobs/registry.ts takes each job's definition from its area's <name>.job.ts (or index.ts).",
      from: { path: '^src/jobs/registry\\.ts$' },
      to: { path: AREA, pathNot: [AREA_INDEX, '^src/modules/[^/]+/[^/]+\\.job\\.ts$'] },
    },
    {
      name: 'app-deps-types',
      severity: 'error',
      comment:
        "src/app-deps.ts names the types of a process's parts (rate limiter, carrier gateway, API-key cache) " +
        "from their own files, type-only: an area's index.ts pulls in services that take AppDeps (a cycle).",
      from: { path: '^src/app-deps\\.ts$' },
      to: { path: AREA, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'shared-and-db-below',
      severity: 'error',
      comment:
        'src/shared/ and src/db/ are the bottom layer: they never import the areas (src/modules/), the HTTP ' +
        'layer (src/http/) or the job machinery (src/jobs/). What areas need of those (the handler contract, ' +
        'the job definition and payload types) lives in src/shared/ (contract.ts, job-definition.ts, job-types.ts).',
      from: { path: '^src/(shared|db)/' },
      to: { path: '^src/(modules|http|jobs)/' },
    },
    {
      name: 'job-types-leaf',
      severity: 'error',
      comment: 'src/shared/job-types.ts (payloads, names, the sender interface) imports nothing of src/ but db/.',
      from: { path: '^src/shared/job-types\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(db|generated)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Generated files import only each other and packages.
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
