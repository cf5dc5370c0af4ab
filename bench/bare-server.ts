// The control-plane baseline: a bare Fastify route answering a constant JSON body, in its own process.
import Fastify from 'fastify';

const body = { success: true, errors: [], messages: [], result: [{ id: 1, dataset: 'http_requests', enabled: true, name: 'job' }] };
const app = Fastify({ logger: false });
app.get('/constant', async () => body);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
console.log(`listening http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
