import { spawn } from 'node:child_process';

/**
 * Takes SQLite's one write lock of a database file (FerretDB's `<dir>/ferretdb/payorch.sqlite`) from another
 * connection, as a second writer would, until `release()`: FerretDB's writes then wait out their busy timeout.
 * Reads go on (WAL).
 */
export async function holdSqliteWriteLock(file: string): Promise<{ release: () => Promise<void> }> {
  const script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\nsys.stdin.read()\n";
  const py = spawn('python3', ['-c', script, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    py.stdout.once('data', resolve);
    py.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return {
    release: async () => {
      const exited = new Promise((r) => py.once('exit', r));
      py.stdin.end();
      await exited;
    },
  };
}
