import { fieldOf, type ValidationDetail, validationFailed } from './errors.ts';

/**
 * How deep a client's JSON may nest. Our deepest valid input (a tRPC batch of a create) is 4
 * levels; 32 leaves room for any honest client. Nothing walks client data deeper than this:
 * a 3,000-deep body once overflowed the stack of a recursive check and answered 500.
 */
export const MAX_INPUT_DEPTH = 32;

const tooDeepMessage = `must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`;

/**
 * A JSON number whose exact value no float holds (`10.00000000000000001`,
 * `99999999999999.9999`), kept as its source text. Schemas that accept numbers see an object,
 * not a rounded float, so they refuse it; the amount schema reads `text` and holds it to the
 * rule for amount strings. Numbers a float holds exactly (`10.5`, `1e2`) stay numbers.
 */
export class InexactNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): string {
    return this.text;
  }
}

/**
 * One pass over a JSON text's characters, no parse: whether it nests deeper than `limit`, and
 * whether it holds a number at all (a digit or minus outside a string), so a body without one
 * (a create's amount is a string) is parsed without the exact-number reviver, which JSON.parse
 * calls on every value.
 */
export const scanJson = (text: string, limit: number): { tooDeep: boolean; numbers: boolean } => {
  let depth = 0;
  let inString = false;
  let numbers = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > limit) return { tooDeep: true, numbers };
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    } else if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      numbers = true;
    }
  }
  return { tooDeep: false, numbers };
};

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `-12.50e1` -> `-125e0`: digits without leading or trailing zeros, and a power of ten. */
const normalDecimal = (text: string): string | undefined => {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  power += trailing;
  return `${sign}${digits}e${power}`;
};

/**
 * JSON.parse's reviver (Node 24, current browsers) gives each number's source text: a number
 * the float changed becomes an InexactNumber. Without `context` (an older browser running the
 * MSW kit) numbers pass as parsed.
 */
function keepExactNumbers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  const source = context.source;
  return normalDecimal(source) === normalDecimal(String(value)) ? value : new InexactNumber(source);
}

/**
 * A request body as the API reads it: empty means "no body" (a bodyless POST from a generic
 * client), otherwise it must be JSON, an object, nested at most MAX_INPUT_DEPTH levels (checked
 * on the text before anything parses or walks it); anything else is VALIDATION_FAILED on `body`.
 * Numbers are read exactly (see InexactNumber).
 */
export const parseJsonObjectBody = (text: string): Record<string, unknown> | undefined => {
  if (text.trim() === '') return undefined;
  const scanned = scanJson(text, MAX_INPUT_DEPTH);
  if (scanned.tooDeep) {
    throw validationFailed([{ field: 'body', message: tooDeepMessage }]);
  }
  let value: unknown;
  try {
    value = scanned.numbers
      ? JSON.parse(text, keepExactNumbers as (key: string, value: unknown) => unknown)
      : JSON.parse(text);
  } catch (error) {
    throw validationFailed([{ field: 'body', message: `must be valid JSON (${(error as Error).message})` }]);
  }
  // An array or a scalar would be spread into the input and produce misleading errors.
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof InexactNumber) {
    throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
};

/** NUL, and UTF-16 halves without their partner: Postgres cannot store them as text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point of this pattern.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorableMessage = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * What no part of the service may take from a client, anywhere in an input (body, query or
 * path values), as one detail per offending field: text no store can keep, and nesting deeper
 * than MAX_INPUT_DEPTH (reported on the top-level field that holds it). Checked before any
 * schema, by an explicit stack: client data never drives recursion.
 */
export const unusableInputDetails = (input: unknown): ValidationDetail[] => {
  const details: ValidationDetail[] = [];
  const tooDeep = new Set<string>();
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) details.push({ field: fieldOf(path), message: unstorableMessage });
      continue;
    }
    if (typeof value !== 'object' || value === null || value instanceof InexactNumber) continue;
    if (path.length >= MAX_INPUT_DEPTH) {
      const field = fieldOf(path.slice(0, 1));
      if (!tooDeep.has(field)) details.push({ field, message: tooDeepMessage });
      tooDeep.add(field);
      continue;
    }
    const children: { value: unknown; path: PropertyKey[] }[] = [];
    const entries: [PropertyKey, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      if (typeof key === 'string' && UNSTORABLE.test(key)) {
        details.push({
          field: fieldOf([...path, key.replace(UNSTORABLE, '?')]),
          message: 'must not contain NUL characters',
        });
      } else {
        children.push({ value: item, path: [...path, key] });
      }
    }
    // Reversed onto the stack, so fields are reported in the order the client wrote them.
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index] as never);
  }
  return details;
};
