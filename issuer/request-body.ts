/**
 * Limits on the shape of a JSON body, checked before anything reads it
 * (docs/issuer.md "Threats handled"). The byte limit (app.ts BODY_LIMIT_BYTES)
 * bounds its size; this bounds its depth: 16 KB of `[` is 16,000 levels, and
 * code that walks a body recursively (the idempotency fingerprint's canonical
 * JSON, schema validation) must never meet that. No request of the protocol
 * nests deeper than 3 levels, so 32 leaves room for any extension.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests arrays/objects deeper than `maxDepth` levels. Iterative: never overflows the stack itself. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
