import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster } from './cluster';
import { ROOT } from './stack';

// `npm run bench:cluster`: the Temporal dev server against the Temporal server in cluster mode on
// PostgreSQL, with the same workload: `npm run bench` (bench/create-vs-start.ts) run once against each, in
// alternation, on this machine. Only Temporal differs: both runs use the bench's own FerretDB on
// PostgreSQL, worker, API and sandbox. Prints each run's summary, then the figures side by side.
//
// Knobs: BENCH_ROUNDS=1 (dev, cluster pairs); every BENCH_* knob of bench/create-vs-start.ts passes through
// (BENCH_BREAKDOWN and BENCH_RATIOS default to 0 here: the API's breakdown does not depend on Temporal, and
// the ratios take 19 minutes a run; set BENCH_RATIOS=1 to compare them too).

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

interface Figures {
  rawMax: number;
  apiMax: number;
  rawSustained: number;
  apiSustained: number;
  rawP99: number;
}

function runBench(label: string, extraEnv: Record<string, string>): Promise<{ figures: Figures; summary: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', process.execPath, '--import', 'tsx', path.join(ROOT, 'bench', 'create-vs-start.ts')], {
      cwd: ROOT,
      env: { ...process.env, BENCH_BREAKDOWN: process.env.BENCH_BREAKDOWN ?? '0', BENCH_RATIOS: process.env.BENCH_RATIOS ?? '0', ...extraEnv },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      process.stdout.write(c.toString().split('\n').map((l) => (l ? `[${label}] ${l}` : l)).join('\n'));
    });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench against ${label} exited with ${code}`));
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
      resolve({
        figures: {
          rawMax: num(/raw start max: ([\d.]+)\/s/),
          apiMax: num(/API create max: ([\d.]+)\/s/),
          rawSustained: num(/sustained incl\. drain \(best level\): raw ([\d.]+)\/s/),
          apiSustained: num(/sustained incl\. drain \(best level\): raw [\d.]+\/s, API ([\d.]+)\/s/),
          rawP99: num(/half load: raw p50 [\d.]+ \/ p99 ([\d.]+) ms/),
        },
        summary: out.slice(out.indexOf('== summary')),
      });
    });
  });
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-cluster-bench-'));
  chmodSync(dir, 0o711); // PostgreSQL runs as `postgres` when we are root
  const t0 = Date.now();
  const cluster = await startCluster({ dataDir: path.join(dir, 'cluster'), logDir: path.join(dir, 'logs'), fast: true });
  console.log(`cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${cluster.describe}`);
  const stop = async () => {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  const results: { dev: Figures[]; cluster: Figures[] } = { dev: [], cluster: [] };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // The idle cluster keeps running during the dev server's run (a few % of one core, measured by the bench as "machine busy").
      results.dev.push((await runBench(`dev server #${round}`, {})).figures);
      results.cluster.push((await runBench(`cluster #${round}`, { TEMPORAL_ADDRESS: cluster.temporalAddress })).figures);
    }
  } finally {
    await stop();
  }
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
  const row = (name: string, pick: (x: Figures) => number, unit: string) =>
    console.log(`  ${name.padEnd(40)} ${results.dev.map((x) => f(pick(x)) + unit).join(', ').padStart(18)}   ${results.cluster.map((x) => f(pick(x)) + unit).join(', ').padStart(18)}`);
  console.log('\n== Temporal dev server vs cluster on PostgreSQL (same workload, same machine, alternating runs)');
  console.log(`  cluster: ${cluster.describe}`);
  console.log(`  ${''.padEnd(40)} ${'dev server'.padStart(18)}   ${'cluster'.padStart(18)}`);
  row('raw workflow starts, max (closed loop)', (x) => x.rawMax, '/s');
  row('API creates, max (closed loop)', (x) => x.apiMax, '/s');
  row('raw starts sustained incl. drain', (x) => x.rawSustained, '/s');
  row('API creates sustained incl. drain', (x) => x.apiSustained, '/s');
  row('raw start p99 at half load', (x) => x.rawP99, ' ms');
}

main().catch((err) => {
  process.stderr.write(`bench:cluster failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
