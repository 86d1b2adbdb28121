import { describe, expect, test } from 'vitest';
import { createTestApp } from './helpers/test-app.ts';

const { app, factories } = await createTestApp();

type Document = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ name: string; in: string; example?: unknown; schema?: { example?: unknown } }>;
        requestBody?: { content: Record<string, { example?: unknown }> };
      }
    >
  >;
};

describe('/docs for this service, offline (issue 23 item 11)', () => {
  test('the page loads its script from here, with no fonts, telemetry, proxy, AI or MCP, and the key scheme chosen but empty', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    // Nothing that points off this server: no CDN, no font host, no proxy.
    expect(page.body).not.toMatch(/https?:\/\//);
    const config = JSON.parse(
      /createApiReference\('#app', (\{[\s\S]*?\})\)\s*<\/script>/.exec(page.body)?.[1] ?? '{}',
    );
    expect(config).toMatchObject({
      url: '/api/openapi.json',
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      proxyUrl: '',
      authentication: { preferredSecurityScheme: 'ApiKeyAuth' },
    });
    // Nothing secret in the page: the merchant pastes their own key.
    expect(JSON.stringify(config.authentication)).not.toMatch(/pis_|value|token/i);
    expect(page.body).toContain('<title>API reference · Payment Initiation Service</title>');
    const script = await app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
  });

  test('every path parameter has an example, and the create example, sent as its curl sample sends it, makes a payment', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Document;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of (operation.parameters ?? []).filter((p) => p.in === 'path')) {
          expect(
            parameter.example ?? parameter.schema?.example,
            `${method} ${path} ${parameter.name}`,
          ).toBeDefined();
        }
      }
    }
    const create = document.paths['/payments']?.post;
    const body = create?.requestBody?.content['application/json']?.example;
    expect(body).toMatchObject({ amount: { value: '12.50', currency: 'GBP' } });

    const organizationId = await factories.createOrg();
    const { apiKey } = await factories.createKey(organizationId);
    const idempotencyKey = create?.parameters?.find((p) => p.name === 'idempotency-key');
    const created = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: {
        'x-api-key': apiKey,
        'content-type': 'application/json',
        'idempotency-key': String(idempotencyKey?.example ?? idempotencyKey?.schema?.example),
      },
      payload: JSON.stringify(body),
    });
    expect(created.statusCode, created.body).toBe(201);
  });
});
