import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * The official OB v4.0 OpenAPI documents (beside the repository, `<repo>/../shared/obie`) as
 * the yardstick for every request and answer in the tests: Ajv, strict off (the documents use
 * OpenAPI keywords such as `example`), with the formats they name.
 */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const OBIE_DIR = path.resolve(REPO, '..', 'shared', 'obie');

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const format of ['int32', 'int64', 'double', 'float', 'base64']) ajv.addFormat(format, true);

function load(file: string, id: string) {
  const full = path.join(OBIE_DIR, file);
  if (!existsSync(full)) throw new Error(`the official OB documents are expected at ${OBIE_DIR}`);
  const document = parse(readFileSync(full, 'utf8')) as { components: unknown };
  ajv.addSchema({ $id: id, components: document.components });
}
load('payment-initiation-openapi.yaml', 'pisp.json');
load('event-notifications-openapi.yaml', 'events.json');

const cache = new Map<string, ValidateFunction>();
function validator(ref: string): ValidateFunction {
  let validate = cache.get(ref);
  if (!validate) {
    validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema ${ref}`);
    cache.set(ref, validate);
  }
  return validate;
}

export type ObSchema =
  | 'OBWriteDomesticConsent4'
  | 'OBWriteDomesticConsentResponse5'
  | 'OBWriteFundsConfirmationResponse1'
  | 'OBWriteDomestic2'
  | 'OBWriteDomesticResponse5'
  | 'OBWritePaymentDetailsResponse1'
  | 'OBErrorResponse1';

/** Throws with Ajv's errors when `value` does not match the standard's schema. */
export function assertMatches(schema: ObSchema, value: unknown): void {
  const validate = validator(`pisp.json#/components/schemas/${schema}`);
  if (!validate(value))
    throw new Error(`${schema}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

export function assertEventNotification(value: unknown): void {
  const validate = validator('events.json#/components/schemas/OBEventNotification1');
  if (!validate(value)) throw new Error(`OBEventNotification1: ${ajv.errorsText(validate.errors)}`);
}
