import { z } from 'zod';

/**
 * A procedure's answer already serialised (a payment's stored answer, payments/read-payment.ts):
 * the REST edge sends its text as the envelope's `data` as it is, never parsed and serialised
 * again; tRPC's own serialisation (/trpc) gets the value through `toJSON`.
 */
export class JsonText<Value = unknown> {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** As tRPC's serialisation and its clients' types see it: the value the text is. */
  toJSON(): Value {
    return JSON.parse(this.text) as Value;
  }
}

/**
 * The output schema of a procedure answering JsonText: checks the instance at run time (the text
 * was made from a value of `documented`'s type); the OpenAPI document shows `documented`'s
 * component, as if the procedure returned it.
 */
export const jsonTextOf = <Value>(documented: z.ZodType<Value>) => {
  const id = documented.meta()?.id;
  if (typeof id !== 'string') throw new Error('a JsonText output documents a schema with an id');
  return z
    .custom<JsonText<Value>>((value) => value instanceof JsonText)
    .meta({ override: { $ref: `#/components/schemas/${id}` } });
};
