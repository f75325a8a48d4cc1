// docker-compose.yml is checked against the code it runs: `docker-compose config` must accept it (no engine is
// needed for that), the api, worker and sandbox environments must hold only what platform/config.ts and
// sandbox/config.ts read and must pass their validation in production mode, and the Temporal init must
// register exactly SEARCH_ATTRIBUTES.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { configSchema, DEV_DEFAULTS, GATEWAY_CALLBACK_SECRETS, loadConfig } from '../../../platform/config';
import { loadCodecConfig } from '../../../codec/config';
import { SEARCH_ATTRIBUTES } from '../../../platform/search-attributes';
import { loadSandboxConfig, sandboxEnvSchema } from '../../../sandbox/config';
import { SA } from '../../../workflows/search-attributes';
import { planWorkers } from '../../../worker/worker-options';

const root = path.resolve(__dirname, '../../..');
const composeFile = path.join(root, 'docker-compose.yml');

// Every secret the stack needs; each must be given (compose's `${VAR:?...}`), none has a default.
const secrets = {
  ADMIN_API_TOKEN: 'test-admin-token-0123456789abcdef',
  KEY_HASH_SECRET: 'test-key-hash-secret-0123456789',
  SANDBOX_CALLBACK_SECRET: 'test-sandbox-callback-secret-0123',
  TEMPORAL_DB_PASSWORD: 'test-temporal-db-password',
  PAYLOAD_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  CODEC_OPERATORS: 'ops:test-codec-operator-token-0123456789:*',
};
const composeText = fs.readFileSync(composeFile, 'utf8');

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: Array<string | number | { target: number | string; published?: number | string; host_ip?: string }>;
  container_name?: string;
  deploy?: { replicas?: number };
  volumes?: Array<string | { type?: string; source?: string; target?: string }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
}

function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, cmd);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * `docker-compose config`, isolated from the caller's shell and any .env file: only PATH, HOME and the
 * variables given reach the interpolation.
 */
function composeConfig(vars: Record<string, string>) {
  const bin = which('docker-compose');
  if (!bin) {
    throw new Error(
      'docker-compose is not installed: `apt-get install docker-compose` (or PROVISION_TEST_TOOLS=1 bash scripts/provision.sh)',
    );
  }
  const emptyEnvFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payorch-compose-')), 'empty.env');
  fs.writeFileSync(emptyEnvFile, '');
  const result = spawnSync(bin, ['--env-file', emptyEnvFile, '-f', composeFile, 'config'], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? os.tmpdir(), ...vars },
    timeout: 30_000,
  });
  fs.rmSync(path.dirname(emptyEnvFile), { recursive: true, force: true });
  return result;
}

function envOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

function commandOf(service: ComposeService): string {
  const parts = [service.entrypoint ?? [], service.command ?? []].flat();
  return parts.join(' ');
}

/** Host-side ports, whatever syntax compose printed them in ("8233:8080", "127.0.0.1:7233:7233/tcp", {published, target}). */
function publishedPorts(service: ComposeService): Array<{ published: string; target: string; host: string }> {
  return (service.ports ?? []).map((p) => {
    if (typeof p === 'object') return { published: String(p.published ?? ''), target: String(p.target), host: p.host_ip ?? '' };
    const parts = String(p).replace(/\/(tcp|udp)$/, '').split(':');
    return { published: parts.length > 1 ? parts[parts.length - 2]! : '', target: parts[parts.length - 1]!, host: parts.length > 2 ? parts[0]! : '' };
  });
}

describe('docker-compose.yml', () => {
  let compose: ComposeFile;

  beforeAll(() => {
    const result = composeConfig(secrets);
    if (result.status !== 0) throw new Error(`docker-compose config failed (${result.status}):\n${result.stderr}${result.error ?? ''}`);
    compose = parse(result.stdout) as ComposeFile;
  });

  it('is accepted by `docker-compose config` when the required secrets are set', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'api-lb', 'codec-server', 'mongodb', 'postgresql', 'sandbox', 'temporal', 'temporal-schema', 'temporal-setup', 'temporal-ui', 'worker', 'webhook-worker'].sort(),
    );
  });

  it.each(Object.keys(secrets))('refuses to render without %s, naming it', (name) => {
    const rest: Record<string, string> = { ...secrets };
    delete rest[name];
    const result = composeConfig(rest);
    expect(result.status).not.toBe(0);
    // the message given in the file; docker-compose v1 also prints the environment it was interpolating, templates and all
    const message = result.stderr.replace(/\$\{[^}]*\}/g, '');
    expect(message).toContain(`set ${name} (`);
    for (const other of Object.keys(rest)) expect(message).not.toContain(`set ${other} (`);
  });

  it('takes every secret the code requires in production from a required variable, never a default', () => {
    for (const name of ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', ...GATEWAY_CALLBACK_SECRETS]) expect(Object.keys(secrets)).toContain(name);
    for (const name of Object.keys(secrets)) {
      const uses = [...composeText.matchAll(new RegExp(`\\$\\{${name}(\\W)`, 'g'))].map((m) => m[1]);
      expect([name, uses.length > 0]).toEqual([name, true]);
      expect([name, uses.every((op) => op === ':')]).toEqual([name, true]); // ${NAME:?...}, not ${NAME:-...} or ${NAME}
      expect(composeText).toMatch(new RegExp(`\\$\\{${name}:\\?`));
    }
    expect(composeText).not.toContain(DEV_DEFAULTS.SANDBOX_CALLBACK_SECRET);
    expect(composeText).not.toContain(DEV_DEFAULTS.KEY_HASH_SECRET);
  });

  it('names every required variable in its header comment', () => {
    const header = composeText.slice(0, composeText.search(/^[^#\s]/m));
    const body = composeText.replace(/^\s*#.*$/gm, '');
    const required = [...new Set([...body.matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]!))];
    expect(required.sort()).toEqual(Object.keys(secrets).sort());
    for (const name of required) expect(header).toMatch(new RegExp(`^#\\s+${name}\\s`, 'm'));
  });

  it.each(['api', 'worker', 'webhook-worker'])('%s sets only variables that platform/config.ts reads', (name) => {
    const known = new Set(Object.keys(configSchema.shape));
    const unknown = Object.keys(envOf(compose.services[name]!)).filter((key) => !known.has(key));
    expect(unknown).toEqual([]);
  });

  it.each(['api', 'worker', 'webhook-worker'])('%s environment passes loadConfig() in production mode', (name) => {
    const env = envOf(compose.services[name]!);
    expect(env.NODE_ENV).toBe('production');
    for (const required of ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL']) expect(env[required]).toBeTruthy();
    const config = loadConfig(env);
    expect(config.NODE_ENV).toBe('production');
    expect(config.WEBHOOK_ALLOW_PRIVATE_HOSTS).toBe(false);
    expect(config.ADMIN_API_TOKEN).toBe(secrets.ADMIN_API_TOKEN);
    expect(config.KEY_HASH_SECRET).toBe(secrets.KEY_HASH_SECRET);
    expect(config.SANDBOX_CALLBACK_SECRET).toBe(secrets.SANDBOX_CALLBACK_SECRET);
    expect(config.MONGODB_URI).toMatch(/replicaSet=/);
  });

  it('sets only variables that sandbox/config.ts reads for the sandbox, and they pass its validation', () => {
    const env = envOf(compose.services.sandbox!);
    const known = new Set(Object.keys(sandboxEnvSchema.shape));
    expect(Object.keys(env).filter((key) => !known.has(key))).toEqual([]);
    const config = loadSandboxConfig(env);
    expect(config.host).toBe('0.0.0.0'); // reachable from the other containers
    expect(publishedPorts(compose.services.sandbox!)).toContainEqual({ published: String(config.port), target: String(config.port), host: '127.0.0.1' });
    expect(envOf(compose.services.api!).SANDBOX_URL).toBe(`http://sandbox:${config.port}`);
    expect(config.callbackSecret).toBe(secrets.SANDBOX_CALLBACK_SECRET);
    expect(envOf(compose.services.api!).SANDBOX_CALLBACK_SECRET).toBe(secrets.SANDBOX_CALLBACK_SECRET);
  });

  it('gives the api and the worker the same Temporal, MongoDB and sandbox settings', () => {
    const api = envOf(compose.services.api!);
    const worker = envOf(compose.services.worker!);
    // HOST, PORT and the rate limits are the api's alone
    const shared = Object.keys(api).filter((key) => !['HOST', 'PORT'].includes(key) && !key.startsWith('RATE_LIMIT_'));
    for (const key of shared) expect([key, worker[key]]).toEqual([key, api[key]]);
  });

  it('runs api, worker and sandbox from the one image built from the Dockerfile, by command', () => {
    const expected: Record<string, string> = {
      api: 'dist/api/main.js',
      worker: 'dist/worker/main.js',
      sandbox: 'dist/sandbox/main.js',
    };
    const images = new Set<string | undefined>();
    for (const [name, script] of Object.entries(expected)) {
      const service = compose.services[name]!;
      expect(commandOf(service)).toBe(`node ${script}`);
      const context = typeof service.build === 'string' ? service.build : service.build?.context;
      expect(context && path.resolve(root, context)).toBe(root);
      images.add(service.image);
    }
    expect(images.size).toBe(1);
  });

  it('keeps the worker scalable: no container_name, no published ports', () => {
    const worker = compose.services.worker!;
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports ?? []).toEqual([]);
    const env = envOf(worker);
    expect(env.WORKFLOW_BUNDLE_PATH).toBe('/app/dist/workflow-bundle.js');
    expect(env.WORKER_METRICS_PORT).toBeTruthy();
  });

  it('scales payments and webhook sends apart: worker polls payments and the gateway queues, webhook-worker only webhooks, same knobs', () => {
    const [worker, hooks] = ['worker', 'webhook-worker'].map((name) => envOf(compose.services[name]!));
    const queues = (env: Record<string, string>) => planWorkers(loadConfig(env), ['sandbox']).map((q) => q.options.taskQueue);
    expect(queues(worker!)).toEqual(['payments', 'payments-gateway-sandbox']);
    expect(queues(hooks!)).toEqual(['webhooks']);
    for (const key of Object.keys(worker!).filter((k) => k !== 'WORKER_QUEUES')) expect([key, hooks![key]]).toEqual([key, worker![key]]);
    expect(commandOf(compose.services['webhook-worker']!)).toBe('node dist/worker/main.js');
    expect(compose.services['webhook-worker']!.ports ?? []).toEqual([]);
  });

  it('runs 2 api processes behind one published port (api-lb), 3 workers and 1 webhook worker by default', () => {
    expect(compose.services.api!.deploy?.replicas).toBe(2);
    expect(compose.services.worker!.deploy?.replicas).toBe(3);
    expect(compose.services['webhook-worker']!.deploy?.replicas).toBe(1);
    for (const name of ['api', 'worker', 'webhook-worker']) expect([name, compose.services[name]!.container_name]).toEqual([name, undefined]);
    // Only the balancer publishes 3000: replicas publishing it would collide.
    expect(publishedPorts(compose.services.api!)).toEqual([]);
    const publishers = Object.entries(compose.services).filter(([, svc]) => publishedPorts(svc).some((p) => p.published === '3000'));
    expect(publishers.map(([name]) => name)).toEqual(['api-lb']);
  });

  it('replica counts follow API_REPLICAS, WORKER_REPLICAS and WEBHOOK_WORKER_REPLICAS', () => {
    const result = composeConfig({ ...secrets, API_REPLICAS: '4', WORKER_REPLICAS: '6', WEBHOOK_WORKER_REPLICAS: '2' });
    expect(result.status).toBe(0);
    const scaled = parse(result.stdout) as ComposeFile;
    expect([scaled.services.api!.deploy?.replicas, scaled.services.worker!.deploy?.replicas, scaled.services['webhook-worker']!.deploy?.replicas]).toEqual([4, 6, 2]);
  });

  it("api-lb mounts a config that exists and proxies to the api service's port, resolving replicas through Docker's DNS", () => {
    const lb = compose.services['api-lb']!;
    const mount = (lb.volumes ?? []).map((v) => (typeof v === 'string' ? { source: v.split(':')[0]!, target: v.split(':')[1]! } : { source: v.source!, target: v.target! }))[0]!;
    expect(mount.target).toBe('/etc/nginx/nginx.conf');
    const conf = fs.readFileSync(path.resolve(root, mount.source), 'utf8');
    const apiPort = envOf(compose.services.api!).PORT;
    expect(conf).toMatch(new RegExp(`set \\$api http://api:${apiPort};`));
    expect(conf).toContain('proxy_pass $api;');
    expect(conf).toMatch(/resolver 127\.0\.0\.11 /);
    expect(conf).toMatch(/listen 3000;/);
    expect((lb.depends_on as Record<string, { condition?: string }>).api?.condition).toBe('service_healthy');
  });

  it('seals workflow payloads in every process that talks to Temporal, and points the UI at the codec server', () => {
    for (const name of ['api', 'worker', 'webhook-worker', 'codec-server']) {
      const env = envOf(compose.services[name]!);
      expect([name, env.PAYLOAD_CODEC, env.PAYLOAD_CODEC_KEYS]).toEqual([name, 'aes-256-gcm', secrets.PAYLOAD_CODEC_KEYS]);
    }
    const codecEnv = envOf(compose.services['codec-server']!);
    expect(loadCodecConfig(codecEnv).CODEC_OPERATORS).toBe(secrets.CODEC_OPERATORS);
    expect(commandOf(compose.services['codec-server']!)).toBe('node dist/codec/main.js');
    expect(publishedPorts(compose.services['codec-server']!)).toContainEqual({ published: codecEnv.CODEC_SERVER_PORT, target: codecEnv.CODEC_SERVER_PORT, host: '127.0.0.1' });
    const ui = envOf(compose.services['temporal-ui']!);
    expect(ui.TEMPORAL_CODEC_ENDPOINT).toBe(`http://localhost:${codecEnv.CODEC_SERVER_PORT}`);
    expect(codecEnv.CODEC_CORS_ORIGINS).toBe('http://localhost:8233');
  });

  it('publishes the api (through api-lb) on 3000, and the Temporal UI on 8233 on loopback only', () => {
    expect(publishedPorts(compose.services['api-lb']!)).toContainEqual({ published: '3000', target: '3000', host: '' });
    expect(publishedPorts(compose.services['temporal-ui']!)).toContainEqual({ published: '8233', target: '8080', host: '127.0.0.1' });
  });

  it("passes the README's tunables to the api and the workers: setting one in .env reaches them", () => {
    const tunables = ['API_MAX_IN_FLIGHT', 'MONGODB_MAX_POOL_SIZE', 'WEBHOOK_DISABLE_AFTER', 'WEBHOOK_ENDPOINT_MAX_IN_FLIGHT', 'WEBHOOK_TENANT_MAX_IN_FLIGHT', 'RECONCILIATION_SCHEDULE', 'RECONCILIATION_WINDOW_SECONDS', 'RECONCILIATION_GRACE_SECONDS', 'STRANDED_SWEEP_SCHEDULE', 'STRANDED_AFTER_SECONDS', 'TEST_CLOCK_ADVANCE_WAIT_MS', 'GATEWAY_TIMEOUT_MS'];
    for (const service of ['api', 'worker', 'webhook-worker']) expect(tunables.filter((v) => !(v in envOf(compose.services[service]!)))).toEqual([]);
  });

  it('publishes nothing but the api beyond loopback: the UI, the codec server, the sandbox and Temporal have no login of their own', () => {
    const open = Object.entries(compose.services).flatMap(([name, s]) => publishedPorts(s).filter((p) => p.host !== '127.0.0.1').map((p) => `${name}:${p.published}`));
    expect(open).toEqual(['api-lb:3000']);
  });

  it('starts the api and worker only after MongoDB is healthy and Temporal is set up', () => {
    for (const name of ['api', 'worker']) {
      const deps = compose.services[name]!.depends_on as Record<string, { condition?: string }>;
      expect(deps.mongodb?.condition).toBe('service_healthy');
      expect(deps['temporal-setup']?.condition).toBe('service_completed_successfully');
    }
  });

  it('registers exactly the search attributes in platform/search-attributes.ts', () => {
    const setup = compose.services['temporal-setup']!;
    const registered = Object.fromEntries(
      envOf(setup)
        .SEARCH_ATTRIBUTES!.split(/\s+/)
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    );
    expect(registered).toEqual(SEARCH_ATTRIBUTES);
    const script = commandOf(setup);
    expect(script).toContain('search-attribute create');
    expect(script).toMatch(/\$\$?SEARCH_ATTRIBUTES/);
  });

  it('registers the search attributes the workflows set (workflows/search-attributes.ts SA)', () => {
    const sdkName = (type: string) => type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase(); // KeywordList -> KEYWORD_LIST
    const fromWorkflows = Object.fromEntries(Object.values(SA).map((key) => [key.name, key.type]));
    const fromList = Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, sdkName(type)]));
    expect(fromWorkflows).toEqual(fromList);
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

  it('installs from the lockfile, builds, and runs production dependencies as a non-root user', () => {
    expect(dockerfile).toMatch(/COPY package\.json package-lock\.json/);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/RUN npm run build\b/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER (?!root)\S+/m);
    expect(runtime).toMatch(/NODE_ENV=production/);
    expect(runtime).toMatch(/WORKFLOW_BUNDLE_PATH=\/app\/dist\/workflow-bundle\.js/);
    expect(runtime).not.toMatch(/COPY (--\S+ )*\. /); // sources stay in the build stage
  });
});
