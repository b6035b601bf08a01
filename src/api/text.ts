// Small checks shared by the request body schemas (schemas.ts, off-chain.ts) on untrusted JSON text.

/** Keys refused in client-supplied objects, so no consumer can be tricked into prototype pollution. */
export const FORBIDDEN_METADATA_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Number of Unicode code points (what SPEC.md's "characters" count), computed without allocating. */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}
