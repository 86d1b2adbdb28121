import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { toPageError } from '../src/api/page-error.ts';
import { pagesApi } from '../src/api/pages-api.ts';
import { server } from './msw/server.ts';
import { failure, trpcQuery } from './msw/trpc-handlers.ts';

const kindOfFailedCall = async () => {
  try {
    await pagesApi.hostedSession('t');
  } catch (error) {
    return toPageError(error).kind;
  }
  throw new Error('call succeeded');
};

describe('toPageError', () => {
  it.each([
    ['LINK_INVALID', 400],
    ['LINK_EXPIRED', 410],
    ['PAYMENT_ALREADY_DECIDED', 409],
    ['PROVIDER_CALL_IN_PROGRESS', 409],
    ['MERCHANT_SUSPENDED', 403],
    ['NOT_FOUND', 404],
    ['VALIDATION_FAILED', 400],
  ])('reads the app kind %s from the error data', async (kind, status) => {
    server.use(trpcQuery('pages.hostedSession', () => failure(kind, status)));
    expect(await kindOfFailedCall()).toBe(kind);
  });

  it('treats an unknown kind as unexpected', async () => {
    server.use(trpcQuery('pages.hostedSession', () => failure('INTERNAL_ERROR', 500)));
    expect(await kindOfFailedCall()).toBe('UNEXPECTED');
  });

  it('reports a network failure as unreachable', async () => {
    server.use(http.get('*/trpc/pages.hostedSession', () => HttpResponse.error()));
    expect(await kindOfFailedCall()).toBe('UNREACHABLE');
  });

  it('reports a proxy error page (not our JSON) as unreachable', async () => {
    server.use(
      http.get(
        '*/trpc/pages.hostedSession',
        () => new HttpResponse('<html>Bad gateway</html>', { status: 502 }),
      ),
    );
    expect(await kindOfFailedCall()).toBe('UNREACHABLE');
  });
});

describe('toPageError with the first agreed shape', () => {
  it('also reads data.kind', async () => {
    server.use(
      http.get('*/trpc/pages.hostedSession', () =>
        HttpResponse.json(
          {
            error: {
              message: 'x',
              code: -32600,
              data: { code: 'BAD_REQUEST', httpStatus: 410, kind: 'LINK_EXPIRED' },
            },
          },
          { status: 410 },
        ),
      ),
    );
    expect(await kindOfFailedCall()).toBe('LINK_EXPIRED');
  });
});

describe('the page calls (api/page-call.ts)', () => {
  it('send a customer-controlled token through ?input= unchanged', async () => {
    const tokens: unknown[] = [];
    server.use(
      trpcQuery('pages.hostedSession', (input) => {
        tokens.push(input.token);
        return {};
      }),
    );
    const hostile = 'a+b c&input=x#frag%20%2B/..\\"\u{1F600}?';
    await pagesApi.hostedSession(hostile);
    expect(tokens).toEqual([hostile]);
  });
});
