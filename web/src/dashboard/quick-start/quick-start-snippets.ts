/**
 * The quick start's examples, filled in with the merchant's own values. A key appears only as
 * an environment variable and the prefix of one of theirs: the full key exists once, at creation.
 */
export interface SnippetValues {
  /** Origin of the service, e.g. https://payments.example.com: what the SDK takes. */
  baseUrl: string;
  /** Where the REST API lives (`${baseUrl}/api`), for curl. */
  apiBaseUrl: string;
  businessName: string;
  /** Non-secret prefix of one of the merchant's active keys, if any. */
  keyPrefix: string | null;
}

/** Text inside the single-quoted `-d '...'` body: a quote ends it, so it is written as '\''. */
const shellQuoted = (text: string) => text.replaceAll("'", "'\\''");

const keyLine = ({ keyPrefix }: SnippetValues) =>
  keyPrefix
    ? `export PIS_API_KEY=...   # your key that starts with ${keyPrefix} (shown once, when you created it)`
    : 'export PIS_API_KEY=...   # create a key on the API keys page; it is shown once';

export const curlSnippet = (values: SnippetValues): string => `${keyLine(values)}
BASE=${values.apiBaseUrl}

curl -s -X POST "$BASE/payments" \\
  -H "x-api-key: $PIS_API_KEY" \\
  -H 'content-type: application/json' \\
  -H "Idempotency-Key: order-$(date +%s)" \\
  -d '{
    "amount": { "value": "12.50", "currency": "GBP" },
    "toAccount": { "accountName": ${shellQuoted(JSON.stringify(values.businessName))}, "sortCode": "04-00-04", "accountNumber": "12345678" },
    "reference": "Order 1",
    "redirectUrl": "https://shop.example/checkout/return"
  }'
# -> 201 {"success":true,"data":{"paymentId":"pay_...","status":"AUTHORIZING","redirectUrl":"..."}}

curl -s -H "x-api-key: $PIS_API_KEY" "$BASE/payments/pay_..."`;

export const sdkSnippet = (
  values: SnippetValues,
): string => `import { isTerminal, PaymentsClient } from '@pis/client-sdk';

// Server side only: never ship a key to a browser.
const client = new PaymentsClient({ apiKey: process.env.PIS_API_KEY!, baseUrl: '${values.baseUrl}' });

// 1. Create the payment and store its id with the order before sending the customer away.
const created = await client.payments.create(
  {
    amount: { value: '12.50', currency: 'GBP' },
    toAccount: { accountName: ${JSON.stringify(values.businessName)}, sortCode: '04-00-04', accountNumber: '12345678' },
    reference: \`Order \${order.id}\`,
    redirectUrl: 'https://shop.example/checkout/return',
  },
  { idempotencyKey: \`order-\${order.id}\` },
);
await orders.save({ ...order, paymentId: created.paymentId });
res.redirect(303, created.redirectUrl!);

// 2. On the return, trust only the payment you stored for this order, never the URL's status.
app.get('/checkout/return', async (req, res) => {
  const order = await orders.forCustomer(req);
  let payment = await client.payments.verifyReturn(req.url, { expectedPaymentId: order.paymentId });
  if (!isTerminal(payment.status)) payment = await client.payments.waitForFinalStatus(payment.paymentId);
  res.send(payment.status === 'COMPLETED' ? 'Thank you!' : \`Payment \${payment.status.toLowerCase()}\`);
});`;
