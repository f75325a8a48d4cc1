// ESLint flat config. typescript-eslint's recommended rules without type information (fast: no program is
// built), plus an override that keeps workflow code deterministic and the domain core pure.
const { builtinModules } = require('node:module');
const { defineConfig } = require('eslint/config');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

// The globals of a CommonJS Node script, for the few .js files (configs, scripts/).
const nodeGlobals = Object.fromEntries(
  [
    'require', 'module', 'exports', '__dirname', '__filename', 'process', 'console', 'Buffer', 'URL',
    'URLSearchParams', 'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
    'clearImmediate', 'structuredClone', 'AbortController', 'TextEncoder', 'TextDecoder',
  ].map((name) => [name, 'readonly']),
);

// Workflow code runs in Temporal's deterministic sandbox and is replayed from history: it may not touch the
// network, files, the clock of the machine or anything else outside its history. Every restriction below
// allows `import type`, which is erased at compile time and never reaches the workflow bundle.
const NODE_BUILTIN = 'Node built-ins are not available in the workflow sandbox (and the domain core is pure): do I/O in an activity.';
const IO_MODULE = 'I/O belongs in activities (or the API): workflows and the domain core stay deterministic and pure.';
const ioModules = [
  'mongodb',
  'koa',
  'pino',
  'prom-client',
  'undici',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];
const pureRestrictions = {
  paths: [
    ...builtinModules.map((name) => ({ name, message: NODE_BUILTIN, allowTypeImports: true })),
    ...ioModules.map((name) => ({ name, message: IO_MODULE, allowTypeImports: true })),
  ],
  patterns: [
    { group: ['node:*'], message: NODE_BUILTIN, allowTypeImports: true },
    { group: [...ioModules.map((name) => `${name}/**`), '@koa/**'], message: IO_MODULE, allowTypeImports: true },
    {
      // Our own modules that do I/O or read the process environment.
      group: ['**/platform/mongo', '**/platform/logger', '**/platform/config', '**/api', '**/api/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**'],
      message: IO_MODULE,
      allowTypeImports: true,
    },
  ],
};

// The driver's collections (`mongo.c`, `deps.mongo.c`, `const { c } = mongo`): only data/ touches them.
const driverCollections = (message) => [
  { selector: "MemberExpression[object.name='mongo'][property.name='c']", message },
  { selector: "MemberExpression[object.property.name='mongo'][property.name='c']", message },
  { selector: "VariableDeclarator[init.name='mongo'] > ObjectPattern > Property[key.name='c']", message },
  { selector: "VariableDeclarator[init.property.name='mongo'] > ObjectPattern > Property[key.name='c']", message },
];

module.exports = defineConfig(
  { ignores: ['dist/', 'node_modules/', '.tools/', '.data/', 'coverage/', 'test/artifacts/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: nodeGlobals },
  },
  {
    // The pure domain core is imported by workflows, so it obeys the same import rules (docs/architecture.md:
    // no imports from Node, MongoDB or Koa). Activities are not its business either way.
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', pureRestrictions],
    },
  },
  // Import directions (docs/architecture.md): api -> gateways, domain, platform and the workflows' messages;
  // workflows -> domain and activity types; activities -> gateways, platform; gateways -> domain only;
  // sandbox -> nothing of ours but the logger. Type-only imports are erased and allowed where noted.
  ...[
    {
      files: ['api/**/*.ts'],
      patterns: [
        { group: ['**/activities', '**/activities/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**'], message: 'The API reaches gateways and storage directly, never through activities, the worker or the sandbox.' },
        {
          regex: '(^|/)workflows/(?!([^/]+/messages|events|search-attributes|task-queues)$)',
          message: "The API talks to workflows through their messages modules (workflows/<name>/messages), never their code.",
          allowTypeImports: true,
        },
      ],
    },
    {
      files: ['activities/**/*.ts'],
      patterns: [{ group: ['**/workflows', '**/workflows/**', '**/api', '**/api/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**'], message: 'Activities import gateways and platform; workflows import them, never the other way round.' }],
    },
    {
      files: ['gateways/**/*.ts'],
      patterns: [{ group: ['**/activities', '**/activities/**', '**/workflows', '**/workflows/**', '**/api', '**/api/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**', '**/platform', '**/platform/**'], message: 'Gateways are a part of their own: the API, the activities and the worker import them; they import neither.' }],
    },
    {
      files: ['sandbox/**/*.ts'],
      patterns: [{ group: ['../*', '!../platform', '../platform/*', '!../platform/logger'], message: 'The sandbox stands in for an outside gateway: it imports nothing of ours but the logger.' }],
    },
    {
      files: ['platform/**/*.ts'],
      patterns: [{ group: ['**/api', '**/api/**', '**/activities', '**/activities/**', '**/workflows', '**/workflows/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**'], message: 'platform/ is shared infrastructure: it imports nothing above it.' }],
    },
    {
      files: ['data/**/*.ts'],
      patterns: [{ group: ['**/api', '**/api/**', '**/activities', '**/activities/**', '**/workflows', '**/workflows/**', '**/worker', '**/worker/**', '**/sandbox', '**/sandbox/**', '**/gateways', '**/gateways/**'], message: 'The data layer imports platform/ and domain/ only.' }],
    },
  ].map(({ files, patterns }) => ({
    files,
    rules: { 'no-restricted-imports': 'off', '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  })),
  {
    // Routes and services reach MongoDB through the data layer (data/), which scopes every query by tenant.
    files: ['api/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...driverCollections('Use the data layer (data/<collection>.ts), not the driver.')] },
  },
  {
    // So do activities: the workflows' writes go through data/workflow-records.ts. The webhook activities
    // still write delivery attempts directly (secrets are read through data/): exempt until those move too.
    files: ['activities/**/*.ts'],
    ignores: ['activities/webhooks/**'],
    rules: { 'no-restricted-syntax': ['error', ...driverCollections('Use the data layer (data/workflow-records.ts or data/<collection>.ts), not the driver.')] },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: pureRestrictions.paths,
          patterns: [
            ...pureRestrictions.patterns,
            {
              // Activities run on the worker, outside the sandbox: a value import would drag their code
              // (MongoDB, HTTP clients) into the workflow bundle. Use proxyActivities<Activities>() with
              // `import type { Activities } from '../activities'`.
              group: ['**/activities', '**/activities/**'],
              message:
                "Workflows import activities only as types (`import type { Activities } from '../activities'`) and call them through proxyActivities().",
              allowTypeImports: true,
            },
          ],
        },
      ],
      // Randomness: Math.random() is seeded per workflow and replay-safe, but we want the explicit API, so a
      // reader sees at once that a value comes from the workflow's seeded stream: uuid4() for ids,
      // workflowRandom.random() for anything else (both from @temporalio/workflow). Web Crypto is not seeded.
      //
      // Time: Date.now() and new Date() are NOT banned, on purpose. In the TypeScript SDK they are the
      // workflow clock itself (the time of the current workflow task, identical on replay) and the SDK has
      // no other "now" to point to; banning them would only push people to eslint-disable or to a wrapper
      // around the same call. What to remember instead: the value does not advance within one workflow
      // task, so measure durations with timers (sleep, condition with a timeout), not by subtracting two
      // Date.now() calls.
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use uuid4() or workflowRandom.random() from @temporalio/workflow.' },
        { object: 'crypto', property: 'randomUUID', message: 'Use uuid4() from @temporalio/workflow (replay-safe).' },
        { object: 'crypto', property: 'getRandomValues', message: 'Use workflowRandom.fill() from @temporalio/workflow (replay-safe).' },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Workflows cannot read the process (environment, argv): pass values in as workflow input.' },
        { name: 'Buffer', message: 'Buffer is not available in the workflow sandbox: use Uint8Array and TextEncoder.' },
      ],
    },
  },
);
