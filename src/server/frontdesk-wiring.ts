/**
 * The buyer's own data requests from the account page, run through the pipeline as the business's
 * export and erase operations (the rows the dashboard's buttons use) on the signed-in buyer's email (the OAuth door is composed before the
 * pipeline, so the port is bound to it once the pipeline exists, before the server listens).
 */
import { operationForDashboard, type CallScope, type DashboardAction, type Pipeline } from '../operations/index.js';
import type { BuyerDataPort } from '../oauth/index.js';

export function buyerDataWiring(): { port: BuyerDataPort; bind(pipeline: Pipeline, scope: CallScope): void } {
  let pipeline: Pipeline | undefined;
  let scope: CallScope | undefined;
  const run = async (action: DashboardAction, email: string) => {
    if (!pipeline || !scope) throw new Error('the buyer data port is used before the pipeline is composed');
    const res = await pipeline.execute(
      operationForDashboard(action),
      {
        input: { email },
        // The audit log names the buyer's own request, never the email.
        trustedCaller: { principal: 'business', profile: null, business: true, authenticated: true, actor: 'buyer_self_service' },
        door: 'account',
      },
      scope,
    );
    if (!res.ok) throw res.error;
    return res.data;
  };
  return {
    port: {
      exportOf: async (email) => (await run('buyer_export', email)).export,
      erase: async (email) => void (await run('buyer_erase', email)),
    },
    bind(p, s) {
      pipeline = p;
      scope = s;
    },
  };
}
