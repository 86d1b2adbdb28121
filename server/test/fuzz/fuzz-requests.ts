import fc from 'fast-check';

/**
 * Request generators for the fuzz tests: the OpenAPI document's operations and the customer
 * pages' procedures, called with mutated valid inputs, deep nesting, odd content types, huge
 * and unicode values, raw number literals and broken JSON. Pure: the test supplies the seeds
 * (valid bodies, ids, tokens) and sends what comes out through `app.inject`.
 */

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** encodeURIComponent throws on a lone surrogate; such text is sent as its well-formed twin. */
const encode = (text: string): string => encodeURIComponent(text.toWellFormed());

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Number literals JSON.stringify never writes, spliced into the text in place of a marker. */
const NUMBER_LITERALS = [
  '10.00000000000000001',
  '99999999999999.99999',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.0',
  '1E2',
  '123456789012345678901234567890',
  '0.1e1',
  '5e-324',
  '1.7976931348623157e308',
];
const LITERAL_MARKER = '~~number-literal-';

/** Text a store or a parser may choke on: NUL, lone surrogates, RTL marks, emoji, long runs. */
const awkwardString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'a\udc00b',
    '\u202e\u202d',
    '😀'.repeat(50),
    '%00',
    '%',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "'; drop table payment; --",
    '__proto__',
    'constructor',
    'NaN',
    '1e3',
    'GB33BUKB20201555555555',
  ),
  fc.integer({ min: 100, max: 120_000 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 1, max: 3_000 }).map((length) => 'é😀'.repeat(length)),
);

const awkwardNumber: fc.Arbitrary<number | string> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 0.1, 1e21, Number.MAX_SAFE_INTEGER + 2, 3600, 3601),
  fc.nat({ max: NUMBER_LITERALS.length - 1 }).map((index) => `${LITERAL_MARKER}${index}`),
);

/**
 * Arrays or objects nested `depth` levels, written into the text where this marker stands
 * (a value that deep would overflow JSON.stringify's own stack before the server saw it).
 */
const NESTED_MARKER = '~~nested-';
const nestedText = (depth: number, asObject: boolean): string =>
  asObject
    ? `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

const awkwardValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: awkwardString },
  { weight: 2, arbitrary: awkwardNumber as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 20, max: 5_000 }), fc.boolean())
      .map(([depth, asObject]) => `${NESTED_MARKER}${depth}-${asObject ? 'o' : 'a'}`),
  },
);

type Mutation = (value: Json) => Json;

const pathsOf = (value: Json, prefix: string[] = [], out: string[][] = []): string[][] => {
  out.push(prefix);
  if (value && typeof value === 'object' && prefix.length < 4) {
    for (const [key, item] of Object.entries(value)) pathsOf(item as Json, [...prefix, key], out);
  }
  return out;
};

const setAt = (value: Json, path: string[], replacement: Json | undefined): Json => {
  if (path.length === 0) return replacement === undefined ? null : replacement;
  const [head = '', ...rest] = path;
  const copy: Record<string, Json> | Json[] = Array.isArray(value)
    ? [...value]
    : value && typeof value === 'object'
      ? { ...value }
      : {};
  const current = (copy as Record<string, Json>)[head] ?? null;
  const next = rest.length === 0 ? replacement : setAt(current, rest, replacement);
  if (next === undefined) delete (copy as Record<string, Json>)[head];
  else (copy as Record<string, Json>)[head] = next;
  return copy;
};

/** One mutation of a valid input: a field replaced, removed, added, or the whole value swapped. */
const mutation = (seed: Json): fc.Arbitrary<Mutation> => {
  const paths = pathsOf(seed);
  const path = fc.constantFrom(...paths);
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(path, awkwardValue).map(
        ([at, v]) =>
          (x: Json) =>
            setAt(x, at, v),
      ),
    },
    { weight: 2, arbitrary: path.map((at) => (x: Json) => setAt(x, at, undefined)) },
    {
      weight: 2,
      arbitrary: fc.tuple(path, awkwardString, awkwardValue).map(
        ([at, key, v]) =>
          (x: Json) =>
            setAt(x, [...at, key.slice(0, 30)], v),
      ),
    },
    { weight: 1, arbitrary: awkwardValue.map((v) => () => v) },
  );
};

/** A valid input, unchanged (about one in five) or with one to three mutations. */
export const mutatedInput = (seeds: readonly Json[]): fc.Arbitrary<Json> =>
  fc.constantFrom(...seeds).chain((seed) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(seed) },
      {
        weight: 4,
        arbitrary: fc
          .array(mutation(seed), { minLength: 1, maxLength: 3 })
          .map((mutations) => mutations.reduce((value, apply) => apply(value), seed)),
      },
    ),
  );

/** JSON text, with number literals spliced in, sometimes broken on purpose. */
export const bodyText = (input: fc.Arbitrary<Json>): fc.Arbitrary<string> =>
  fc
    .tuple(
      input,
      fc.oneof(
        { weight: 8, arbitrary: fc.constant((text: string) => text) },
        {
          weight: 1,
          arbitrary: fc.nat().map((cut) => (text: string) => text.slice(0, cut % (text.length + 1))),
        },
        { weight: 1, arbitrary: fc.constant((text: string) => `\ufeff${text}`) },
        { weight: 1, arbitrary: awkwardString.map((junk) => (text: string) => `${text}${junk}`) },
        { weight: 1, arbitrary: fc.constant(() => `{"a":${'['.repeat(3000)}${']'.repeat(3000)}}`) },
      ),
    )
    .map(([value, damage]) => {
      const text = JSON.stringify(value)
        .replace(
          new RegExp(`"${LITERAL_MARKER}(\\d+)"`, 'g'),
          (_match, index: string) => NUMBER_LITERALS[Number(index)] ?? '0',
        )
        .replace(new RegExp(`"${NESTED_MARKER}(\\d+)-([ao])"`, 'g'), (_match, depth: string, kind: string) =>
          nestedText(Number(depth), kind === 'o'),
        );
      return damage(text);
    });

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=utf-16',
      'application/json;;;',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
      'application/jsonx',
      '*/*',
      '',
      'a/b/c',
    ),
  },
);

/** A query string from the parameters' valid values, mutated: odd values, unknown and repeated keys. */
export const queryString = (valid: Record<string, readonly string[]>): fc.Arbitrary<string> => {
  const names = Object.keys(valid);
  const known = names.length > 0 ? fc.constantFrom(...names) : fc.constant('limit');
  const pair = fc.oneof(
    {
      weight: 4,
      arbitrary: known.chain((name) =>
        fc
          .oneof(fc.constantFrom(...(valid[name] ?? ['1'])), awkwardString)
          .map((value) => [name, value] as const),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        known.map((name) => `${name}[]`),
        awkwardString,
      ),
    },
    { weight: 1, arbitrary: fc.tuple(awkwardString, awkwardString) },
  );
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([name, value]) => `${encode(name.slice(0, 200))}=${encode(value.slice(0, 2000))}`).join('&')}`,
    );
};

/** A path parameter: a real id, or something hostile (encoded, long, unicode, traversal). */
export const pathParameter = (real: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real).map(encode) },
    { weight: 2, arbitrary: awkwardString.map((text) => encode(text.slice(0, 3000))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%c0%ae', '..', '%2e%2e%2f', 'a%00b', '%ED%A0%80') },
  );

export const methodNoise: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'GET', 'POST') },
);
