/**
 * What one booking costs an assistant in characters: the tool list it reads first, then the
 * one-booking flow (find the service, one day of availability, book), each result as text
 * (content[].text, what a text-only host passes on) and as structuredContent (JSON), against the
 * stdio server on the demo business (`usp-server mcp --demo --db :memory:`), through the SDK client.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ROOT, liveDate } from './lib.mjs';

const TOOLS_TARGET = 30_000;
const FLOW_TEXT_TARGET = 8_000;

export async function run() {
  const client = new Client({ name: 'usp-bench-assistant', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin/usp-server.js'), 'mcp', '--demo', '--db', ':memory:'],
      cwd: ROOT,
      env: process.env,
      stderr: 'ignore',
    }),
  );
  try {
    const list = await client.listTools();
    const toolsChars = JSON.stringify(list).length;
    const rows = [];
    const step = async (label, name, args) => {
      const r = await client.callTool({ name, arguments: args });
      const text = r.content.map((c) => c.text).join('\n').length;
      const structured = JSON.stringify(r.structuredContent ?? {}).length;
      rows.push({ label, text, structured });
      return r;
    };
    await step('usp_services_list', 'usp_services_list', { query: 'haircut' });
    const day = liveDate(3);
    const slots = await step(`usp_availability_query (one day, ${day})`, 'usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day,
      end_date: day,
    });
    const slot = slots.structuredContent.slots[0];
    await step('usp_bookings_create', 'usp_bookings_create', {
      service_id: 'svc_haircut',
      slot_id: slot.id,
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      _meta: { usp: { idempotency_key: randomUUID() } },
    });
    const text = rows.reduce((n, r) => n + r.text, 0);
    const structured = rows.reduce((n, r) => n + r.structured, 0);
    const n = (v) => v.toLocaleString('en-US');
    return {
      id: 'flow',
      title: '9. What one booking costs an assistant (characters read)',
      sections: [
        {
          caption:
            'The one-booking flow over stdio (demo business): text is content[].text, structured is structuredContent as JSON',
          header: ['step', 'text', 'structured'],
          rows: [
            ['tools/list (the whole answer)', n(toolsChars), ''],
            ...rows.map((r) => [r.label, n(r.text), n(r.structured)]),
            ['flow in all (without tools/list)', n(text), n(structured)],
          ],
        },
      ],
      notes: [
        'A host that passes only the text gives the model the text column; one that passes structuredContent too gives it both. The availability step is one full day of haircut slots (three stylists, every 15 minutes). Characters, not tokens: independent of any tokenizer.',
      ],
      targets: [
        {
          name: 'tools/list',
          target: `< ${n(TOOLS_TARGET)} characters`,
          value: `${n(toolsChars)} characters`,
          ok: toolsChars < TOOLS_TARGET,
        },
        {
          name: 'One-booking flow, text',
          target: `< ${n(FLOW_TEXT_TARGET)} characters`,
          value: `${n(text)} characters (structured ${n(structured)})`,
          ok: text < FLOW_TEXT_TARGET,
        },
      ],
    };
  } finally {
    await client.close();
  }
}
