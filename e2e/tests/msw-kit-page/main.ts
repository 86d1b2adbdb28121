// A frontend developer's page, prototyped against the SDK's MSW kit with no server: the kit's
// handlers run in the browser through MSW's service worker (issue 10 item 7).
import { setupWorker } from 'msw/browser';
import { PaymentsClient } from '../../../client-sdk/src/index.ts';
import { createMockApi } from '../../../client-sdk/src/msw/index.ts';

const baseUrl = 'https://pis.test';
const { handlers, controls } = createMockApi({ baseUrl });
const client = new PaymentsClient({ apiKey: 'pis_prototype_key', baseUrl });
const byId = (id: string) => document.getElementById(id) as HTMLElement;
let paymentId: string | undefined;

const show = (status: string) => {
  byId('status').textContent = status;
  const item = document.createElement('li');
  item.textContent = status;
  byId('seen').append(item);
};

byId('pay').addEventListener('click', async () => {
  const created = await client.payments.create({
    toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    amount: { value: 10.5, currency: 'GBP' },
    reference: 'Order 42',
  });
  paymentId = created.paymentId;
  (byId('approve') as HTMLButtonElement).disabled = false;
  // The SDK waits on the kit (Prefer: wait), so each change shows the moment it happens.
  void client.payments.waitForFinalStatus(paymentId, { onUpdate: (payment) => show(payment.status) });
});

byId('approve').addEventListener('click', () => {
  // The kit's control plays the customer; SUBMITTED, ACCEPTED and COMPLETED follow at 0.5, 2 and 5 s.
  if (paymentId) controls.approve(paymentId, { completeAfterSeconds: 5 });
});

await setupWorker(...handlers).start({ serviceWorker: { url: '/mockServiceWorker.js' }, quiet: true });
byId('kit').textContent = 'Mock API ready';
(byId('pay') as HTMLButtonElement).disabled = false;
