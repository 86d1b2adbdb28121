import type { CreatePaymentInput, PaymentsClient } from '../../src/index.ts';
import type { recorder } from './observe.ts';
import type { Target } from './targets.ts';

type Observe = ReturnType<typeof recorder>;
export type Scenario = (t: Target, client: PaymentsClient, observe: Observe) => Promise<void>;

export const order: CreatePaymentInput = {
  toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  fromAccount: { accountName: 'Jane Doe', iban: 'GB33 BUKB 2020 1555 5555 55' },
  amount: { value: 10.5, currency: 'GBP' },
  reference: { reference: 'Order 42', endToEndId: 'E2E-42' },
  redirectUrl: 'https://shop.example/return?cart=7',
};

const SECOND = 1_000;
const DAY = 24 * 60 * 60 * SECOND;

/**
 * The same calls, run against the real server and the MSW kit; everything observed must match.
 * Each covers a piece of the contract: create and read shapes, validation, the provider and
 * idempotency rules, the Mock bank timelines, cancel, expiry, lists, banks, errors.
 */
export const scenarios: Record<string, Scenario> = {
  'create, read, sync (API_ONLY)': async (_t, client, observe) => {
    const created = await observe('create', client.payments.create(order));
    await observe('get', client.payments.get(created!.paymentId));
    await observe('sync', client.payments.sync(created!.paymentId));
    await observe(
      'create minimal',
      client.payments.create({
        toAccount: { accountName: 'A', iban: 'DE89370400440532013000' },
        amount: { value: '0.01', currency: 'EUR' },
        reference: 'Plain',
      }),
    );
  },

  'validation failures': async (_t, client, observe) => {
    await observe(
      'bad amount',
      client.payments.create({ ...order, amount: { value: '1.23456', currency: 'GBP' } }),
    );
    await observe(
      'bad currency and iban',
      client.payments.create({
        ...order,
        toAccount: { accountName: 'A', iban: 'GB00' },
        amount: { value: 1, currency: 'XXY' },
      }),
    );
    await observe(
      'no account routing',
      client.payments.create({ ...order, toAccount: { accountName: 'A' } }),
    );
    await observe(
      'sort code without number',
      client.payments.create({ ...order, toAccount: { accountName: 'A', sortCode: '040004' } }),
    );
    await observe(
      'embedded without bank',
      client.payments.create({ ...order, flowType: 'EMBEDDED_HOSTED_PAGES' }),
    );
    await observe('bad return url', client.payments.create({ ...order, redirectUrl: 'ftp://x' }));
    await observe('long reference', client.payments.create({ ...order, reference: 'x'.repeat(141) }));
    await observe(
      'bad mockBank',
      client.payments.create({ ...order, mockBank: { completeAfterSeconds: 3601 } }),
    );
    await observe('empty body', client.payments.create({} as CreatePaymentInput));
    await observe('NUL in a name', client.payments.create({ ...order, reference: 'a\u0000b' }));
    await observe('NUL in a filter', client.payments.list({ provider: 'a\u0000b' }));
    await observe('bad idempotency key', client.payments.create(order, { idempotencyKey: 'é' }));
    await observe('list limit', client.payments.list({ limit: 101 }));
    await observe('list offset', client.payments.list({ offset: -1 }));
    await observe('list status', client.payments.list({ status: 'DONE' as never }));
    await observe('banks country', client.banks.list({ country: 'GBR' }));
  },

  'provider rules and unknown banks': async (_t, client, observe) => {
    await observe(
      'mockBank with another provider',
      client.payments.create({ ...order, provider: 'acme', mockBank: { preset: 'slow' } }),
    );
    await observe('provider not approved', client.payments.create({ ...order, provider: 'acme' }));
    await observe('bad provider code', client.payments.create({ ...order, provider: 'Acme!' }));
    await observe('unknown bank', client.payments.create({ ...order, bankId: 'mock-gb-nope' }));
    await observe('inactive bank', client.payments.create({ ...order, bankId: 'mock-gb-heritage' }));
    await observe('known bank', client.payments.create({ ...order, bankId: 'mock-gb-albion' }));
  },

  idempotency: async (_t, client, observe) => {
    const first = await observe('first', client.payments.create(order, { idempotencyKey: 'order-42' }));
    await observe(
      'replay, keys reordered and amount as a string',
      client.payments.create(
        {
          redirectUrl: order.redirectUrl,
          reference: order.reference,
          amount: { currency: 'GBP', value: '10.5' },
          fromAccount: order.fromAccount,
          toAccount: order.toAccount,
          flowType: 'API_ONLY',
        },
        { idempotencyKey: 'order-42' },
      ),
    );
    await observe(
      'reuse with another body',
      client.payments.create({ ...order, reference: 'Other' }, { idempotencyKey: 'order-42' }),
    );
    await observe('list has one', client.payments.list());
    await observe('read', client.payments.get(first!.paymentId));
  },

  'Mock bank realistic timeline': async (t, client, observe) => {
    const { paymentId } = (await observe('create', client.payments.create(order)))!;
    await observe('approve realistic', client.sandbox.approve(paymentId, { preset: 'realistic' }));
    for (const [label, ms] of [
      ['+5 s', 5],
      ['+10 s', 10],
      ['+44 s', 44],
      ['+1 s', 1],
    ] as const) {
      t.advance(ms * SECOND);
      await observe(label, client.payments.get(paymentId));
    }
    await observe('approve again', client.sandbox.approve(paymentId));
    await observe('cancel completed', client.payments.cancel(paymentId));
  },

  'Mock bank completeAfterSeconds from creation, and slow': async (t, client, observe) => {
    const a = (await observe(
      'create N=20',
      client.payments.create({ ...order, mockBank: { completeAfterSeconds: 20 } }),
    ))!;
    // The service orders equal creation times by (random) id: keep them apart so the list compares.
    t.advance(1);
    const b = (await observe(
      'create slow',
      client.payments.create({ ...order, mockBank: { preset: 'slow' } }),
    ))!;
    await observe('approve a (scenario from creation)', client.sandbox.approve(a.paymentId));
    await observe(
      'approve b overriding to N=3',
      client.sandbox.approve(b.paymentId, { completeAfterSeconds: 3 }),
    );
    t.advance(2 * SECOND);
    await observe('a at 2 s', client.payments.get(a.paymentId));
    await observe('b at 2 s', client.payments.get(b.paymentId));
    t.advance(18 * SECOND);
    await observe('list at 20 s', client.payments.list());
  },

  rejections: async (_t, client, observe) => {
    const a = (await observe('create', client.payments.create(order)))!;
    const b = (await observe(
      'create with rejectReason',
      client.payments.create({ ...order, mockBank: { rejectReason: 'AC04' } }),
    ))!;
    await observe('reject AM04', client.sandbox.reject(a.paymentId, 'AM04'));
    await observe('reject default', client.sandbox.reject(b.paymentId));
    await observe('reject again', client.sandbox.reject(b.paymentId));
    await observe('bad reason', client.sandbox.reject(a.paymentId, 'XXXX' as never));
    await observe('bad timing', client.sandbox.approve(a.paymentId, { completeAfterSeconds: 0 }));
    await observe('approve unknown', client.sandbox.approve('pay_000000000000000000000000'));
  },

  'cancel and expiry': async (t, client, observe) => {
    const a = (await observe('create a', client.payments.create(order)))!;
    const b = (await observe('create b', client.payments.create(order)))!;
    await observe('cancel a', client.payments.cancel(a.paymentId));
    await observe('cancel a again', client.payments.cancel(a.paymentId));
    t.advance(DAY - 1);
    await observe('b just before expiry', client.payments.get(b.paymentId));
    t.advance(1);
    await observe('b expired', client.payments.get(b.paymentId));
    await observe('approve expired', client.sandbox.approve(b.paymentId));
    await observe('cancel unknown', client.payments.cancel('pay_000000000000000000000000'));
  },

  'hosted flows': async (_t, client, observe) => {
    const hosted = (await observe('hosted', client.payments.create({ ...order, flowType: 'HOSTED_PAGES' })))!;
    await observe(
      'embedded',
      client.payments.create({ ...order, flowType: 'EMBEDDED_HOSTED_PAGES', bankId: 'mock-gb-thames' }),
    );
    await observe('approve before a bank is chosen', client.sandbox.approve(hosted.paymentId));
    await observe('read', client.payments.get(hosted.paymentId));
    await observe('cancel pending', client.payments.cancel(hosted.paymentId));
  },

  'lists and pages': async (t, client, observe) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.payments.create({ ...order, reference: `Order ${i}` })).paymentId);
      t.advance(SECOND);
    }
    await client.sandbox.reject(ids[1]!);
    await client.sandbox.approve(ids[3]!);
    await observe('page 2 of 2-sized pages', client.payments.list({ limit: 2, offset: 2 }));
    await observe('completed', client.payments.list({ status: 'COMPLETED' }));
    await observe('provider mock, past the end', client.payments.list({ provider: 'mock', offset: 10 }));
    await observe('provider other', client.payments.list({ provider: 'acme' }));
    const all = [];
    for await (const payment of client.payments.listAll({ limit: 2 })) all.push(payment);
    await observe('listAll', Promise.resolve(all));
  },

  'find, export and re-send (issue 23)': async (t, client, observe) => {
    const first = await client.payments.create({
      ...order,
      reference: { reference: 'INV 100%', endToEndId: 'E2E-F1' },
    });
    t.advance(SECOND);
    const second = await client.payments.create({
      ...order,
      flowType: 'HOSTED_PAGES',
      reference: 'inv_2',
      amount: { value: '3', currency: 'EUR' },
      toAccount: { accountName: 'Bolt & Sons', iban: 'DE89370400440532013000' },
    });
    await observe('search part', client.payments.list({ search: 'inv' }));
    await observe('search literal %', client.payments.list({ search: '100%' }));
    await observe('search literal _', client.payments.list({ search: 'INV_' }));
    await observe('search end-to-end id', client.payments.list({ search: 'E2E-F1' }));
    await observe('search payee', client.payments.list({ search: 'BOLT &' }));
    await observe('currency', client.payments.list({ currency: 'EUR' }));
    await observe(
      'created range',
      client.payments.list({ createdFrom: second.createdAt, createdTo: second.createdAt }),
    );
    await observe(
      'created range reversed',
      client.payments.list({ createdFrom: second.createdAt, createdTo: first.createdAt }),
    );
    await observe('search too long', client.payments.list({ search: 'x'.repeat(101) }));
    const csv = await new Response(await client.payments.exportCsv({ currency: 'GBP' })).text();
    const lines = csv.trimEnd().split('\n');
    await observe('export header and rows', Promise.resolve({ header: lines[0], rows: lines.length - 1 }));
    await observe(
      'export bad filter',
      client.payments.exportCsv({ currency: 'XXX' }).then(() => 'stream'),
    );
    const link = await client.payments.newLink(second.paymentId);
    await observe(
      'new link',
      Promise.resolve({ page: new URL(link.redirectUrl).pathname.split('/')[1], expiresAt: link.expiresAt }),
    );
    await client.payments.cancel(second.paymentId);
    await observe('new link, finished', client.payments.newLink(second.paymentId));
  },

  'test clocks': async (t, client, observe) => {
    const a = (await observe('create a', client.payments.create(order)))!;
    t.advance(1);
    const b = (await observe('create b', client.payments.create(order)))!;
    await observe('approve a realistic', client.sandbox.approve(a.paymentId, { preset: 'realistic' }));
    await observe('advance a 20 s', client.sandbox.advance(a.paymentId, 20));
    t.advance(40 * SECOND);
    await observe('a 40 s later: completed on its clock', client.payments.get(a.paymentId));
    await observe('advance a finished', client.sandbox.advance(a.paymentId, 1));
    await observe('advance b 23 h', client.sandbox.advance(b.paymentId, 23 * 60 * 60));
    t.advance(DAY / 24);
    await observe('b an hour later: expired', client.payments.get(b.paymentId));
    const c = (await observe('create c', client.payments.create(order)))!;
    await observe('advance c a day', client.sandbox.advance(c.paymentId, 86_400));
    for (const [label, seconds] of [
      ['zero', 0],
      ['negative', -5],
      ['fractional', 1.5],
      ['huge', 1e12],
    ] as const) {
      await observe(`advance ${label}`, client.sandbox.advance(b.paymentId, seconds));
    }
    await observe('advance unknown', client.sandbox.advance('pay_000000000000000000000000', 5));
  },

  'banks and providers': async (_t, client, observe) => {
    await observe('banks default', client.banks.list());
    await observe('banks DE page 2', client.banks.list({ country: 'de', limit: 1, page: 2 }));
    await observe(
      'banks search and method',
      client.banks.list({ country: 'IE', search: 'LIFFEY', paymentMethod: 'sepa_instant' }),
    );
    await observe('banks other provider', client.banks.list({ provider: 'acme' }));
    await observe('bank', client.banks.get('mock-gb-albion'));
    await observe('bank unknown', client.banks.get('mock-gb-nope'));
    await observe('bank providers', client.banks.providers());
    await observe('payment providers', client.providers.list());
  },

  'authentication and not found': async (t, client, observe) => {
    await observe('stranger lists', t.stranger.payments.list());
    await observe('stranger creates', t.stranger.payments.create(order));
    await observe('unknown payment', client.payments.get('pay_000000000000000000000000'));
  },
};
