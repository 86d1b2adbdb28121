/**
 * What the request log may keep of a body: secrets and account numbers masked before anything
 * is stored. Keys that name a secret lose their value; account numbers keep their last 4
 * digits (what a bank statement shows); anything shaped like one of our API keys or a customer
 * link token is cut wherever it appears (a merchant may paste one into a reference).
 */

const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|authori[sz]ation|cookie|session|signature/i;
const ACCOUNT_KEY = /account[-_]?number|^iban$|^pan$|card[-_]?number/i;
// `pis_` then, since live and test modes, `test_` or `live_`; the first 8 characters after are the
// prefix. An underscore may come URL-encoded (`%5F`): a key inside a query string is still a key.
const API_KEY = /(pis(?:_|%5[Ff])(?:(?:test|live)(?:_|%5[Ff]))?[0-9A-Za-z]{8})[0-9A-Za-z]+/g;
/**
 * `/pay/<token>`, `/mock-bank/<token>`, `/providers/<code>/authorize/<token>`: customer links carry
 * a bearer token in the path; the slashes may come URL-encoded (`%2F`, a link inside another
 * URL's query string).
 */
const LINK_TOKEN = /(\/|%2[Ff])(pay|mock-bank|[A-Za-z0-9_-]+(?:\/|%2[Ff])authorize)(\/|%2[Ff])[^/?#\s"&]+/g;

export const MASK = '[masked]';
/** Stored bodies are cut here: the log is for reading what happened, not a second database. */
export const MAX_BODY_CHARS = 16_384;

export function maskText(text: string): string {
  return text
    .replace(API_KEY, (_key, prefix: string) => `${prefix}${MASK}`)
    .replace(LINK_TOKEN, `$1$2$3${MASK}`);
}

function maskAccount(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > 4 ? `****${text.slice(-4)}` : '****';
}

export function maskValue(value: unknown, depth = 0): unknown {
  return maskFields(value, depth, maskText);
}

/** Secret keys' values and account numbers masked; `text` applied to every other string. */
function maskFields(value: unknown, depth: number, text: (value: string) => string): unknown {
  if (depth > 20) return MASK;
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((item) => maskFields(item, depth + 1, text));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEY.test(key)) out[key] = item === null ? null : MASK;
      else if (ACCOUNT_KEY.test(key)) out[key] = item === null ? null : maskAccount(item);
      else out[key] = maskFields(item, depth + 1, text);
    }
    return out;
  }
  return value;
}

/**
 * For maskedBody, whose last pass masks the whole JSON text: only a string with a control
 * character is masked on its own first. JSON writes those as `\n`, `\t`, `\u000b`...: a
 * whitespace that ended a link token becomes two token characters, so over the text a token
 * would run on into the next link and leave that one's token in clear (review, 2026-11-27). In
 * every other string JSON only puts a `\` before `"` and `\`, which ends or continues a token as
 * the character itself did.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f]/;
const controlled = (value: string) => (CONTROL.test(value) ? maskText(value) : value);

/**
 * A body as stored: JSON masked field by field, anything else masked as text; cut to
 * MAX_BODY_CHARS. Undefined/empty stays null.
 */
export function maskedBody(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  let parsed: unknown = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    try {
      parsed = JSON.parse(text);
    } catch {
      return cut(maskText(text));
    }
  }
  // Strings are masked over the whole text (a key or link used as a property name too).
  return cut(maskText(JSON.stringify(maskFields(parsed, 0, controlled))));
}

const cut = (text: string) =>
  text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…(truncated)` : text;
