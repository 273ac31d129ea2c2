import { it } from 'vitest';
import { RawStdioSession, ensureBuilt } from './helpers.js';
it('probe', async () => {
  ensureBuilt();
  const s = new RawStdioSession();
  console.log(JSON.stringify(await s.initialize()).slice(0, 200));
  const lines = [
    '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[]}',
    '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":"x"}',
    '{"jsonrpc":"2.0","id":"c","method":"tools/call","params":null}',
    '{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"usp_services_list","arguments":[]}}',
    '{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":5}}',
  ];
  for (const l of lines) {
    const id = JSON.parse(l).id;
    try { console.log(id, JSON.stringify(await s.sendLine(l, id, 2000)).slice(0, 300)); } catch (e) { console.log(id, 'TIMEOUT'); }
  }
  await new Promise(r => setTimeout(r, 300));
  console.log('unparsable', s.unparsable, 'notes', JSON.stringify(s.notifications).slice(0, 500), s.stderr.slice(-1500));
  await s.close();
}, 60000);
