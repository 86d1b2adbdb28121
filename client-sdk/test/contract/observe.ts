import { PaymentsApiError } from '../../src/index.ts';

/** What one call did, comparable across targets: the data (normalized) or the error. */
export type Observation =
  | { step: string; ok: unknown }
  | { step: string; error: { status: number; code: string | undefined; message: string; details: unknown } };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Turns target-specific values into placeholders: ids become `<id:1>`, `<id:2>`... in order of
 * first appearance (so ordering and identity still compare), times `<time>`, the target's base
 * address `<base>`, and the customer link's signed token `<token>`.
 */
export const normalizer = (baseUrls: readonly string[]) => {
  const aliases = new Map<string, string>();
  const alias = (kind: string, value: string) => {
    const key = `${kind}:${value}`;
    if (!aliases.has(key))
      aliases.set(key, `<${kind}:${[...aliases.keys()].filter((k) => k.startsWith(`${kind}:`)).length + 1}>`);
    return aliases.get(key);
  };
  const normalize = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => normalize(item));
    if (value && typeof value === 'object') {
      // The targets' keys differ; that an entry names the key does not.
      if (key === 'actor' && (value as { type?: string }).type === 'api_key')
        return { type: 'api_key', name: '<key>' };
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, k)]));
    }
    if (typeof value !== 'string') return value;
    if (key === 'paymentId') return alias('id', value);
    if (key === 'endToEndId') return alias('e2e', value);
    if (key === 'reference' && /^[0-9A-F]{32}$/.test(value)) return alias('e2e', value);
    if (ISO_TIME.test(value)) return '<time>';
    let text = baseUrls.reduce((result, base) => result.split(base).join('<base>'), value);
    text = text.replace(/^<base>\/(mock-bank|pay)\/[^/?#]+$/, '<base>/$1/<token>');
    text = text.replace(/pay_[A-Za-z0-9]{24}/g, (id) => alias('id', id) ?? id);
    return text;
  };
  return normalize;
};

/** Records each step's outcome into `log`, normalized. */
export const recorder = (baseUrls: readonly string[], log: Observation[]) => {
  const normalize = normalizer(baseUrls);
  return async <T>(step: string, call: Promise<T>): Promise<T | undefined> => {
    try {
      const data = await call;
      log.push({ step, ok: normalize(data) });
      return data;
    } catch (error) {
      if (!(error instanceof PaymentsApiError)) throw error;
      log.push({
        step,
        error: {
          status: error.status,
          code: error.code,
          message: normalize(error.message) as string,
          details: normalize(error.details),
        },
      });
      return undefined;
    }
  };
};
