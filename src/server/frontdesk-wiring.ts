/**
 * The buyer's own data requests from the account page, run through the pipeline as the business's
 * export and erase operations (the rows the dashboard's buttons use) on the signed-in buyer's email.
 * The OAuth door that holds this port is composed before the business's scope (the scope's policy
 * takes the door's token verifier), so the port reads the scope when a request comes, not before.
 */
import { operationForDashboard, type CallScope, type DashboardAction, type Pipeline } from '../operations/index.js';
import type { BuyerDataPort } from '../oauth/index.js';

export function buyerDataPort(pipeline: Pipeline, scope: () => CallScope): BuyerDataPort {
  const run = async (action: DashboardAction, email: string) => {
    const res = await pipeline.execute(
      operationForDashboard(action),
      {
        input: { email },
        // The audit log names the buyer's own request, never the email.
        trustedCaller: {
          principal: 'business',
          profile: null,
          business: true,
          authenticated: true,
          actor: 'buyer_self_service',
        },
        door: 'account',
      },
      scope(),
    );
    if (!res.ok) throw res.error;
    return res.data;
  };
  return {
    exportOf: async (email) => (await run('buyer_export', email)).export,
    erase: async (email) => void (await run('buyer_erase', email)),
  };
}
