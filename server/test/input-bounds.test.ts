import { MAX_INPUT_DEPTH } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { expectValidationFailed } from './helpers/expect-envelope.ts';
import { createTestApp } from './helpers/test-app.ts';
import { created, paymentBody, tokenOf, trpcFailure } from './payments/payment-fixtures.ts';

const { app, factories } = await createTestApp();
const { headers } = await factories.createMerchant();
const json = { ...headers, 'content-type': 'application/json' };

const TOO_DEEP = `must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`;
/** The issue's reproduction: about 6 KB of brackets, 3,000 deep. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const createText = (reference: string) =>
  JSON.stringify(paymentBody({ reference: '__R__' })).replace('"__R__"', reference);

describe('deep JSON never reaches a walker (once a 500 and a stack overflow)', () => {
  test('POST /api/payments with 3,000 levels inside reference: 400 VALIDATION_FAILED on body', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: json,
      payload: createText(nested(3000)),
    });
    expect(await expectValidationFailed(response)).toEqual([{ field: 'body', message: TOO_DEEP }]);
  });

  test('the limit is exact: one level under it is an ordinary validation failure', async () => {
    // reference is level 2 of the body; MAX_INPUT_DEPTH - 1 arrays there make the body exactly MAX deep.
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: json,
      payload: createText(nested(MAX_INPUT_DEPTH - 1)),
    });
    expect(await expectValidationFailed(response)).toEqual([
      { field: 'reference', message: expect.stringMatching(/^must be a string/) },
    ]);
  });

  test('before the key is checked, too: no key and a deep body is still a 400, not a 500', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { 'content-type': 'application/json' },
      payload: createText(nested(3000)),
    });
    expect(response.statusCode).toBe(400);
  });

  test('/trpc/pages.approve with a 3,000-deep scenario: the page procedures own 400, no stack overflow', async () => {
    const { paymentId: _id, redirectUrl } = await created(app, headers);
    const response = await app.inject({
      method: 'POST',
      url: '/trpc/pages.approve',
      headers: { 'content-type': 'application/json' },
      payload: `{"token":${JSON.stringify(tokenOf(redirectUrl))},"scenario":${nested(3000)}}`,
    });
    expect(trpcFailure(response, 400)).toMatchObject({
      kind: 'VALIDATION_FAILED',
      code: 'VALIDATION_FAILED',
    });
    expect(response.json().error.data.appError.details).toEqual([{ field: 'scenario', message: TOO_DEEP }]);
  });

  test('/trpc query input in the URL and a merchant mutation over /trpc are bounded the same way', async () => {
    const query = await app.inject({
      method: 'GET',
      url: `/trpc/pages.mockBankSession?input=${encodeURIComponent(`{"token":${nested(3000)}}`)}`,
    });
    expect(trpcFailure(query, 400).kind).toBe('VALIDATION_FAILED');
    const mutation = await app.inject({
      method: 'POST',
      url: '/trpc/payments.create',
      headers: json,
      payload: createText(nested(3000)),
    });
    expect(trpcFailure(mutation, 400).kind).toBe('VALIDATION_FAILED');
  });

  test('a wide body within the size limit is walked without trouble', async () => {
    const wide = `[${Array.from({ length: 20_000 }, () => '"x"').join(',')}]`;
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: json,
      payload: createText(wide),
    });
    expect((await expectValidationFailed(response))[0]?.field).toBe('reference');
  });

  test('multipart/form-data on /trpc is a 415, not the adapter 500 the fuzz test found', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/trpc/pages.approve',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc\r\n--x--\r\n',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
