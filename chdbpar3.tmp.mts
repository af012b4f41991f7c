import { openClickHouse } from './src/stores/clickhouse.js';
const ch = await openClickHouse({ mode: 'embedded', path: '/tmp/robust/chdbdata2', database: 'alertmon' });
await ch.client.command({ query: 'CREATE TABLE IF NOT EXISTS t (x UInt64) ENGINE = MergeTree ORDER BY x' });
await ch.client.command({ query: 'INSERT INTO t SELECT number FROM numbers(200000)' });
const t0 = Date.now();
const q = 'SELECT count() FROM t AS a, t AS b WHERE a.x + b.x = 7';
const heavy = Promise.all(Array.from({length: Number(process.env.N ?? 1)}, () => ch.analystQuery(q))).then(x => console.log("heavy done", Date.now()-t0), e => console.log("heavy err", Date.now()-t0, String(e).slice(0,100)));
const _h = 0 && ch.analystQuery(q).then(x => console.log('heavy done', Date.now()-t0, JSON.stringify(x)), e => console.log('heavy err', Date.now()-t0, String(e).slice(0,100)));
await new Promise(r => setTimeout(r, 500));
for (let i = 0; i < 12; i++) { let s = Date.now(); await ch.client.query({query: 'SELECT 1', format: 'JSONEachRow'}).then(r=>r.json()); const p1 = Date.now()-s; s = Date.now(); await ch.client.query({query: 'SELECT count() FROM t WHERE x > {x:UInt32}', query_params: {x: i}, format: 'JSONEachRow'}).then(r=>r.json()); console.log('select1', p1, 'param', Date.now()-s, 'ms at', Date.now()-t0); await new Promise(r => setTimeout(r, 1000)); }
await heavy; await ch.close();
