// Baselines in their own process: a bare Fastify route answering a constant JSON body (control plane),
// and a bare ingest-shaped route that parses NDJSON and answers, with no checks, capture or durability.
import Fastify from 'fastify';

const body = { success: true, errors: [], messages: [], result: [{ id: 1, dataset: 'http_requests', enabled: true, name: 'job' }] };
const app = Fastify({ logger: false });
app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_request, raw, done) => done(null, raw));
app.get('/constant', async () => body);
app.post('/ingest/zones/:zone/http_requests', async (request) => {
  let accepted = 0;
  for (const line of (request.body as Buffer).toString('utf8').split('\n')) {
    if (line !== '' && JSON.parse(line) !== null) accepted++;
  }
  return { success: true, errors: [], messages: [], result: { accepted } };
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
console.log(`listening http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
