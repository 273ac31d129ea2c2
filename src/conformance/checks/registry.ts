/** The registry role (spec 6), checked when asked (`--registry`): search answers and their envelope. */
import { describeAnswer } from '../../client/index.js';
import { expectThat, type Check } from '../types.js';
import { expectRestSchema } from './support.js';

export const registryChecks: Check[] = [
  {
    id: 'registry.search-business',
    section: 'registry',
    clause: '6',
    level: 'MUST',
    title: 'POST /registry/search_business answers with the usp envelope, valid against the OpenAPI schema',
    async run(ctx) {
      const a = await ctx.rest.post('/registry/search_business', { query: 'conformance' });
      expectThat(a.status === 200 && a.body?.usp, `search_business: ${describeAnswer(a)}`);
      expectRestSchema(ctx, '/registry/search_business', 'post', a);
    },
  },
  {
    id: 'registry.search-services',
    section: 'registry',
    clause: '6',
    level: 'MUST',
    title: 'POST /registry/search_services answers with the usp envelope, valid against the OpenAPI schema',
    async run(ctx) {
      const a = await ctx.rest.post('/registry/search_services', { query: 'conformance' });
      expectThat(a.status === 200 && a.body?.usp, `search_services: ${describeAnswer(a)}`);
      expectRestSchema(ctx, '/registry/search_services', 'post', a);
    },
  },
];
