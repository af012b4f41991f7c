import { createChdbConnection } from 'chdb/connection';
import { createClient } from '@clickhouse/client';
const path = '/tmp/robust/chdbdata';
const mk = () => createClient({ connection: createChdbConnection({ path }) as any });
const a = mk(); const b = mk();
await b.command({query: 'SELECT 1'});
const t0 = Date.now();
const q = process.argv[2] ?? 'SELECT count() FROM numbers(100000) AS x, numbers(100000) AS y WHERE x.number + y.number = 7';
const heavy = a.query({ query: q, clickhouse_settings: { max_execution_time: 8, timeout_overflow_mode: 'throw', ...(process.argv[3] ? {max_threads: Number(process.argv[3])} : {}) } as any, format: 'JSONEachRow' }).then(r => r.json()).then(x => console.log('heavy done', Date.now()-t0, JSON.stringify(x)), e => console.log('heavy err', Date.now()-t0, String(e).slice(0,100)));
await new Promise(r => setTimeout(r, 500));
for (let i = 0; i < 6; i++) { let s = Date.now(); await b.query({query: 'SELECT 1', format: 'JSONEachRow'}).then(r=>r.json()); const p1 = Date.now()-s; s = Date.now(); await b.query({query: 'SELECT {x:UInt32} AS v', query_params: {x: i}, format: 'JSONEachRow'}).then(r=>r.json()); console.log('select1', p1, 'param', Date.now()-s, 'ms at', Date.now()-t0); await new Promise(r => setTimeout(r, 300)); }
await heavy;
