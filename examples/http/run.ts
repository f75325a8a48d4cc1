import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

// Sends every request of a REST Client `.http` file in order and prints each status: a check that the
// collection still works against a running API.  npx tsx examples/http/run.ts .data/payorch.http
// It reads the subset payorch.http uses: `@var = value`, `###` between requests, `# @name`, headers, a
// body, {{var}}, {{$guid}} and {{<name>.response.body.$.<field>[.<field>...]}}.

export interface Sent {
  title: string;
  method: string;
  url: string;
  status: number;
  body: unknown;
}

function substitute(text: string, vars: Record<string, string>, answers: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    if (expr === '$guid') return randomUUID();
    const ref = /^(\w+)\.response\.body\.\$\.(.+)$/.exec(expr);
    if (ref) {
      if (!(ref[1] in answers)) throw new Error(`{{${expr}}}: request ${ref[1]} has not been sent`);
      const v = ref[2].split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null)?.[k], answers[ref[1]]);
      if (v === undefined) throw new Error(`{{${expr}}}: no such field in the answer of ${ref[1]}`);
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
    if (!(expr in vars)) throw new Error(`{{${expr}}} is not defined`);
    return vars[expr];
  });
}

export async function runCollection(text: string, opts: { fetch?: typeof fetch } = {}): Promise<Sent[]> {
  const doFetch = opts.fetch ?? fetch;
  const vars: Record<string, string> = {};
  for (const m of text.matchAll(/^@(\w+)\s*=\s*(.*)$/gm)) vars[m[1]] = m[2].trim();
  const answers: Record<string, unknown> = {};
  const sent: Sent[] = [];
  for (const block of text.split(/^###/m).slice(1)) {
    const lines = block.split('\n');
    const title = lines.shift()!.trim();
    let name: string | null = null;
    let i = 0;
    for (; i < lines.length && !/^[A-Z]+ /.test(lines[i]); i++) {
      const n = /^#\s*@name\s+(\w+)/.exec(lines[i]);
      if (n) name = n[1];
    }
    if (i === lines.length) continue;
    const [method, rawUrl] = lines[i].trim().split(/\s+/);
    const headers: Record<string, string> = {};
    for (i++; i < lines.length && lines[i].trim() !== ''; i++) {
      const at = lines[i].indexOf(':');
      headers[lines[i].slice(0, at).trim()] = substitute(lines[i].slice(at + 1).trim(), vars, answers);
    }
    const body = lines.slice(i).filter((l) => !/^\s*(#|\/\/)/.test(l)).join('\n').trim();
    const url = substitute(rawUrl, vars, answers);
    const res = await doFetch(url, { method, headers, body: body ? substitute(body, vars, answers) : undefined });
    const textBody = await res.text();
    let parsed: unknown = textBody;
    try {
      parsed = JSON.parse(textBody);
    } catch {
      /* not JSON */
    }
    if (name) answers[name] = parsed;
    sent.push({ title, method, url, status: res.status, body: parsed });
  }
  return sent;
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: npx tsx examples/http/run.ts <file.http>\n');
    process.exit(2);
  }
  runCollection(readFileSync(file, 'utf8')).then(
    (sent) => {
      for (const s of sent) process.stdout.write(`${s.status}  ${s.method} ${s.url}  (${s.title})\n`);
      process.exit(sent.every((s) => s.status < 400) ? 0 : 1);
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
