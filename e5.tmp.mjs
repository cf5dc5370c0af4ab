import { DuckDBInstance } from '@duckdb/node-api';
const dir = '/tmp/x12/big/';
const files = Array.from({ length: 6 }, (_, f) => `'${dir}s${f}.parquet'`).join(', ');
const q = (from) => `SELECT EdgeResponseStatus, ClientCountry, count(*) AS requests, sum(EdgeResponseBytes) AS bytes FROM ${from} GROUP BY EdgeResponseStatus, ClientCountry ORDER BY requests DESC`;
const cols = ['"EdgeResponseStatus"', '"ClientCountry"', '"EdgeResponseBytes"', ...Array.from({ length: 100 }, (_, k) => `c${k}`)].join(', ');
const view = `CREATE TEMP VIEW v AS SELECT ${cols} FROM (SELECT * FROM read_parquet([${files}]))`;
async function make(name, opts, sets) {
  const i = await DuckDBInstance.create(':memory:', { threads: '2', ...opts }); const c = await i.connect();
  for (const s of sets) await c.run(s);
  await c.run(view);
  return { name, c, t: { direct: [], view: [] } };
}
const sb = { memory_limit: '1048576KiB', autoload_known_extensions: 'false', autoinstall_known_extensions: 'false', temp_directory: '' };
const confs = [
  await make('plain', {}, []),
  await make('sandbox opts', sb, []),
  await make('sandbox opts+ext off', sb, [`SET allowed_directories = ['${dir}']`, 'SET enable_external_access = false']),
  await make('sandbox full+mdcache', sb, [`SET allowed_directories = ['${dir}']`, 'SET enable_external_access = false', 'SET parquet_metadata_cache = true', 'SET lock_configuration = true']),
  await make('plain+mdcache', {}, ['SET parquet_metadata_cache = true']),
];
for (let r = 0; r < 12; r++) for (const k of confs) for (const [kind, sql] of [['direct', q(`read_parquet([${files}])`)], ['view', q('v')]]) {
  const s = process.cpuUsage(); (await k.c.runAndReadAll(sql)).getRowObjectsJS(); const d = process.cpuUsage(s); k.t[kind].push((d.user + d.system) / 1000);
}
const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(1);
for (const k of confs) console.log(k.name.padEnd(30), 'direct', med(k.t.direct), 'view', med(k.t.view));
