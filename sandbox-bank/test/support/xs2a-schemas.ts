import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { OBIE_DIR } from './ob-schemas.ts';

/**
 * The Berlin Group's official NextGenPSD2 1.3.11 document (`<repo>/../shared/berlin-group`) as
 * the yardstick for Sandbox Bank EU's answers, the way ob-schemas.ts uses the OB documents: Ajv,
 * strict off (OpenAPI keywords such as `example`), the document's components as one schema.
 */
export const BERLIN_GROUP_FILE = path.resolve(OBIE_DIR, '..', 'berlin-group', 'psd2-api-1.3.11.yaml');

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const format of ['int32', 'int64', 'double', 'float', 'byte', 'binary', 'url'])
  ajv.addFormat(format, true);
if (!existsSync(BERLIN_GROUP_FILE))
  throw new Error(`the Berlin Group document is expected at ${BERLIN_GROUP_FILE}`);
const document = parse(readFileSync(BERLIN_GROUP_FILE, 'utf8')) as { components: unknown };
ajv.addSchema({ $id: 'xs2a.json', components: document.components });

export type Xs2aSchema =
  | 'paymentInitiation_json'
  | 'paymentInitationRequestResponse-201'
  | 'paymentInitiationStatusResponse-200_json'
  | 'paymentInitiationWithStatusResponse'
  | 'scaStatusResponse'
  | 'authorisations'
  | 'Error400_NG_PIS'
  | 'Error401_NG_PIS'
  | 'Error403_NG_PIS'
  | 'Error404_NG_PIS'
  | 'Error405_NG_PIS_CANC'
  | 'Error406_NG_PIS';

const cache = new Map<string, ValidateFunction>();

/** Throws with Ajv's errors when `value` does not match the document's schema. */
export function assertXs2a(schema: Xs2aSchema, value: unknown): void {
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.getSchema(`xs2a.json#/components/schemas/${schema}`);
    if (!validate) throw new Error(`no schema ${schema}`);
    cache.set(schema, validate);
  }
  if (!validate(value))
    throw new Error(`${schema}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

/** The error body the document gives for a status (429, 500, 503, 415 have none: only our shape is checked). */
export function assertXs2aError(status: number, value: unknown, cancellation = false): void {
  const schemas: Record<number, Xs2aSchema> = {
    400: 'Error400_NG_PIS',
    401: 'Error401_NG_PIS',
    403: 'Error403_NG_PIS',
    404: 'Error404_NG_PIS',
    405: 'Error405_NG_PIS_CANC',
    406: 'Error406_NG_PIS',
  };
  const schema = schemas[status];
  if (schema && (status !== 405 || cancellation)) assertXs2a(schema, value);
  const messages = (value as { tppMessages?: { category?: string; code?: string }[] }).tppMessages;
  if (
    !Array.isArray(messages) ||
    messages.length === 0 ||
    messages[0]?.category !== 'ERROR' ||
    !messages[0].code
  )
    throw new Error(`not a tppMessages error body: ${JSON.stringify(value)}`);
}
