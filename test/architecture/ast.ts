/**
 * The parser the architecture checks share: a real TypeScript parser (vite's, oxc), so comments
 * and strings never count as code, and the small walks over its ESTree nodes.
 */
import { parseSync } from 'vite';

/** An ESTree node from the parser (the walks set `parent` where they need it). */
export type Node = any;

/** The program of one file; throws, naming the file, when it does not parse. */
export function parseProgram(path: string, text: string): Node {
  const lang = path.endsWith('x') ? 'tsx' : path.endsWith('.ts') ? 'ts' : 'js';
  const result = parseSync(path, text, { lang, sourceType: 'module' });
  if (result.errors.length > 0)
    throw new Error(`${path} does not parse: ${result.errors.map((e) => e.message).join('; ')}`);
  return result.program;
}

/** The 1-based line of a character offset in `text`. */
export function lineIndex(text: string): (offset: number) => number {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  return (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** A node's child nodes, in source order of their keys (never `parent`). */
export function children(node: Node): Node[] {
  const out: Node[] = [];
  for (const key of Object.keys(node)) {
    if (key === 'parent') continue;
    const v = node[key];
    if (Array.isArray(v)) for (const x of v) if (x && typeof x.type === 'string') out.push(x);
    if (v && typeof v.type === 'string') out.push(v);
  }
  return out;
}
