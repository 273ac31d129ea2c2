#!/usr/bin/env node
// The server's V8 heap growing factor first (src/server/heap.ts), then the command line.
import { tuneHeap } from '../dist/server/heap.js';

tuneHeap();
const { main } = await import('../dist/server/cli.js');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
