/**
 * What counts as a line break and as a control character in text people write (names, notes), and
 * the one check the business's names share. Written as code points, not regular expressions, so the
 * list reads as the standard's: every line-break form Unicode knows (CR LF, LF, CR, vertical tab,
 * form feed, NEL U+0085, LINE and PARAGRAPH SEPARATOR U+2028/U+2029) and the other C0 and C1
 * controls (tab excepted) and DEL.
 */

const LINE_BREAKS = new Set([0x0a, 0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]);

/** A line break of any form (a CR LF pair is two code units, each of them a break). */
export const isLineBreak = (code: number): boolean => LINE_BREAKS.has(code);

/** A control character that is not a line break: C0 but tab, DEL, C1 but NEL. */
export const isOtherControl = (code: number): boolean =>
  !isLineBreak(code) && ((code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f));

/** Whether `s` holds a line break or another control character (tab included: a name is one line of words). */
export function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x09 || isLineBreak(c) || isOtherControl(c)) return true;
  }
  return false;
}
