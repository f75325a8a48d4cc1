import { accessDrill } from './access';
import { crashDrill } from './crash';
import { say } from './lib';
import { logsDrill } from './logs';
import { outageDrill } from './outage';
import { scaleDrill } from './scale';
import { ssrfDrill } from './ssrf';

// `npm run drill -- <access|ssrf|logs|crash|outage|scale>`: fault drills against a throwaway real stack. Each prints what
// it tried and what it found, and exits 1 on a finding (docs/reliability.md records the runs).

const DRILLS: Record<string, () => Promise<number>> = {
  access: accessDrill,
  ssrf: ssrfDrill,
  logs: logsDrill,
  crash: crashDrill,
  outage: outageDrill,
  scale: scaleDrill,
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (names.length === 0 || names.some((n) => !DRILLS[n])) {
    say(`usage: npm run drill -- <${Object.keys(DRILLS).join('|')}> [...]`);
    process.exit(2);
  }
  let code = 0;
  for (const name of names) {
    const started = Date.now();
    say(`== drill ${name} (${new Date().toISOString()})`);
    const c = await DRILLS[name]!();
    say(`== drill ${name}: ${c === 0 ? 'no finding' : 'FINDINGS'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    code ||= c;
  }
  process.exit(code);
}

main().catch((err: unknown) => {
  process.stderr.write(`drill failed to run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(3);
});
