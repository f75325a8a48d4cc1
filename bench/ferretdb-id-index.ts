import { execFileSync } from 'node:child_process';
import path from 'node:path';

// FerretDB 1.24's PostgreSQL handler pushes a filter on `_id` down as `_jsonb -> '_id' @> '"pi_..."'`
// (containment), which its own unique btree index on `_jsonb -> '_id'` cannot serve: every lookup of one
// record by id that names another field too (`{_id, tenant_id}`, a versioned write's `{_id, version: {$lt}}`)
// read the whole table. A GIN index on the same expression serves containment. An event trigger adds one to
// every table FerretDB creates, and the DO block to the tables already there (a kept cluster's data dir).
// Measured on a 20,000-row table: 9.1 ms per lookup without it, 0.03 ms with it (bench/RESULTS.md, run 8).
// `FERRETDB_PG_ID_INDEX=0` leaves it out, to measure without it.

const ID_INDEX_SQL = `
CREATE OR REPLACE FUNCTION payorch_index_id(s text, t text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
  IF t LIKE '\\_ferretdb\\_%' THEN RETURN; END IF;
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin ((_jsonb -> %L) jsonb_path_ops)', left(t, 50) || '__id_gin', s, t, '_id');
END $f$;

CREATE OR REPLACE FUNCTION payorch_index_new_table() RETURNS event_trigger LANGUAGE plpgsql AS $f$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT n.nspname AS s, c.relname AS t
    FROM pg_event_trigger_ddl_commands() d
    JOIN pg_class c ON c.oid = d.objid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE d.command_tag = 'CREATE TABLE' AND d.object_type = 'table'
      AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = '_jsonb')
  LOOP
    PERFORM payorch_index_id(r.s, r.t);
  END LOOP;
END $f$;

DROP EVENT TRIGGER IF EXISTS payorch_index_new_table;
CREATE EVENT TRIGGER payorch_index_new_table ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION payorch_index_new_table();

DO $d$
DECLARE r record;
BEGIN
  FOR r IN SELECT table_schema AS s, table_name AS t FROM information_schema.columns WHERE column_name = '_jsonb' LOOP
    PERFORM payorch_index_id(r.s, r.t);
  END LOOP;
END $d$;
`;

/**
 * Installs the trigger (and the indexes of the tables already there) in database `db`, before FerretDB starts
 * on it, unless `FERRETDB_PG_ID_INDEX=0`; answers whether it did.
 */
export function installIdIndex(pg: { bin: string; port: number; user: string; db: string }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FERRETDB_PG_ID_INDEX === '0') return false;
  execFileSync(path.join(pg.bin, 'psql'), ['-h', '127.0.0.1', '-p', String(pg.port), '-U', pg.user, '-d', pg.db, '-v', 'ON_ERROR_STOP=1', '-qc', ID_INDEX_SQL], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return true;
}
