import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import type pg from 'pg';
import { type Account, accountsOf, TEST_CUSTOMER } from '../bank/accounts.ts';
import { authoriseConsent, type Consent, findConsent, rejectConsent } from '../bank/consents.ts';
import { ID_SHAPE } from '../bank/ids.ts';
import { ACR_SCA, INTENT_CLAIM } from '../oidc/provider.ts';
import { html, page, payFromAndDecide, STYLESHEET, spacedIban } from './html.ts';

/**
 * The customer's side of an authorization (oidc-provider "interactions"): sign in, then see
 * the payment, choose the account to pay from, and approve or reject. The consent named by the
 * request's essential `openbanking_intent_id` claim must be this client's and still AWAU.
 */
export interface PagesContext {
  pool: pg.Pool;
  provider: Provider;
  pagesOrigin: string;
}

interface Details {
  uid: string;
  prompt: { name: string };
  params: Record<string, unknown>;
  session?: { accountId?: string };
}

export function registerPages(app: FastifyInstance, context: PagesContext): void {
  const { pool, provider } = context;

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.get('/assets/bank.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );

  app.get('/', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          'Welcome',
          html`<h1>Sandbox Bank</h1><p>This bank plays a UK bank for the Payment Initiation Service. You arrive here from a payment: the service sends you to sign in and approve it.</p>`,
        ),
      ),
  );

  app.get<{ Params: { uid: string } }>('/interaction/:uid', async (request, reply) => {
    const details = await interaction(provider, request, reply);
    if (!details) return;
    const consent = await intendedConsent(pool, details);
    if (typeof consent === 'string') return finish(provider, request, reply, invalid(consent));

    if (details.prompt.name === 'login') {
      return sendPage(
        reply,
        page(
          'Sign in',
          html`<h1>Sign in to Sandbox Bank</h1>
<p>To pay ${amountText(consent)} to ${payeeName(consent)}.</p>
<form method="post" action="/interaction/${details.uid}/login">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" value="${TEST_CUSTOMER.username}" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" value="${TEST_CUSTOMER.password}" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
        ),
      );
    }

    const customer = details.session?.accountId ?? '';
    const accounts = payableFrom(consent, await accountsOf(pool, customer));
    if (accounts.length === 0)
      return finish(provider, request, reply, invalid("the consent's debtor account is not one of yours"));
    const initiation = consent.data.Initiation as InitiationView;
    const reference =
      initiation.RemittanceInformation?.Unstructured?.[0] ?? initiation.EndToEndIdentification;
    return sendPage(
      reply,
      page(
        'Approve payment',
        html`<h1>Approve this payment</h1>
<dl>
<dt>Payee</dt><dd>${payeeName(consent)}</dd>
<dt>Account</dt><dd>${accountText(initiation.CreditorAccount)}</dd>
<dt>Amount</dt><dd>${amountText(consent)}</dd>
<dt>Reference</dt><dd>${reference}</dd>
</dl>
<form method="post" action="/interaction/${details.uid}/confirm">
${payFromAndDecide(accounts.map((account) => ({ id: account.id, label: `${account.name} (${account.identification.slice(-4).padStart(8, '•')}), balance £${grouped(account.balance)}` })))}
</form>`,
      ),
    );
  });

  app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
    '/interaction/:uid/login',
    async (request, reply) => {
      if (!sameOrigin(request, context.pagesOrigin)) return reply.code(403).send('Forbidden');
      const details = await interaction(provider, request, reply);
      if (!details) return;
      if (details.prompt.name !== 'login') return reply.redirect(`/interaction/${details.uid}`, 303);
      const { username, password } = request.body ?? {};
      if (username !== TEST_CUSTOMER.username || password !== TEST_CUSTOMER.password) {
        return sendPage(
          reply.code(401),
          page(
            'Sign in',
            html`<h1>Sign in to Sandbox Bank</h1><p class="error" role="alert">That username and password do not match. The test customer is ${TEST_CUSTOMER.username} / ${TEST_CUSTOMER.password}.</p><p><a href="/interaction/${details.uid}">Try again</a></p>`,
          ),
        );
      }
      return finish(provider, request, reply, {
        login: { accountId: username, acr: ACR_SCA, amr: ['pwd'], remember: false },
      });
    },
  );

  app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
    '/interaction/:uid/confirm',
    async (request, reply) => {
      if (!sameOrigin(request, context.pagesOrigin)) return reply.code(403).send('Forbidden');
      const details = await interaction(provider, request, reply);
      if (!details) return;
      if (details.prompt.name !== 'consent') return reply.redirect(`/interaction/${details.uid}`, 303);
      const consent = await intendedConsent(pool, details);
      if (typeof consent === 'string') return finish(provider, request, reply, invalid(consent));

      if (request.body?.action === 'reject') {
        await rejectConsent(pool, consent.id);
        return finish(provider, request, reply, {
          error: 'access_denied',
          error_description: 'The customer rejected the payment',
        });
      }
      const customer = details.session?.accountId ?? '';
      const account = payableFrom(consent, await accountsOf(pool, customer)).find(
        (item) => item.id === request.body?.account,
      );
      if (request.body?.action !== 'approve' || !account)
        return reply.redirect(`/interaction/${details.uid}`, 303);

      const grant = new provider.Grant({ accountId: customer, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid payments');
      grant.addOIDCClaims([INTENT_CLAIM]);
      const grantId = await grant.save();
      if (!(await authoriseConsent(pool, consent.id, account.id, grantId))) {
        return finish(
          provider,
          request,
          reply,
          invalid('the payment consent is no longer awaiting authorisation'),
        );
      }
      return finish(provider, request, reply, { consent: { grantId } });
    },
  );
}

interface InitiationView {
  EndToEndIdentification: string;
  DebtorAccount?: { SchemeName: string; Identification: string };
  InstructedAmount: { Amount: string; Currency: string };
  CreditorAccount: { Name: string; SchemeName?: string; Identification: string };
  RemittanceInformation?: { Unstructured?: string[] };
}

/** A consent that names its debtor account is paid from that account only: the customer cannot switch. */
function payableFrom(consent: Consent, accounts: Account[]): Account[] {
  const debtor = (consent.data.Initiation as InitiationView).DebtorAccount;
  if (!debtor) return accounts;
  return accounts.filter(
    (account) => account.schemeName === debtor.SchemeName && account.identification === debtor.Identification,
  );
}

const payeeName = (consent: Consent) => (consent.data.Initiation as InitiationView).CreditorAccount.Name;
function amountText(consent: Consent): string {
  const { Amount, Currency } = (consent.data.Initiation as InitiationView).InstructedAmount;
  return Currency === 'GBP' ? `£${grouped(Amount)}` : `${grouped(Amount)} ${Currency}`;
}

/** `10000.00` -> `10,000.00`, on the decimal string (no float in between). */
function grouped(amount: string): string {
  const [whole = '0', fraction] = amount.split('.');
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? withCommas : `${withCommas}.${fraction}`;
}

const invalid = (description: string): InteractionResults => ({
  error: 'invalid_request',
  error_description: description,
});

/** The interaction of this browser (its cookie), or an error page when it has none or it expired. */
async function interaction(provider: Provider, request: FastifyRequest, reply: FastifyReply) {
  try {
    const details = (await provider.interactionDetails(request.raw, reply.raw)) as unknown as Details;
    if (details.uid !== (request.params as { uid: string }).uid) throw new Error('another interaction');
    return details;
  } catch {
    sendPage(
      reply.code(400),
      page(
        'Session expired',
        html`<h1>This sign-in has expired</h1><p>Go back to the shop and start the payment again.</p>`,
      ),
    );
    return undefined;
  }
}

/** The consent named by the request's essential `openbanking_intent_id`, or why it cannot be used. */
async function intendedConsent(pool: pg.Pool, details: Details): Promise<Consent | string> {
  let requested: { value?: unknown; essential?: unknown } | undefined;
  try {
    const claims = JSON.parse(String(details.params.claims ?? '{}')) as Record<
      string,
      Record<string, unknown>
    >;
    requested = (claims.id_token?.[INTENT_CLAIM] ?? claims.userinfo?.[INTENT_CLAIM]) as typeof requested;
  } catch {
    return 'the claims parameter is not JSON';
  }
  if (requested?.essential !== true || typeof requested.value !== 'string')
    return `the request must ask for ${INTENT_CLAIM} as an essential claim with the consent id as its value`;
  const consent = ID_SHAPE.test(requested.value) ? await findConsent(pool, requested.value) : undefined;
  if (!consent || consent.clientId !== details.params.client_id) return 'unknown payment consent';
  if (consent.status !== 'AWAU')
    return `the payment consent is ${consent.status}, not awaiting authorisation`;
  return consent;
}

/**
 * Ends this step. The sign-in's result is kept with the consent's (merged): the authorization
 * server asks for a sign-in in every authorization unless one was submitted in it.
 */
async function finish(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  result: InteractionResults,
) {
  const target = await provider.interactionResult(request.raw, reply.raw, result, {
    mergeWithLastSubmission: true,
  });
  return reply.redirect(target, 303);
}

function sendPage(reply: FastifyReply, body: string) {
  return reply.type('text/html; charset=utf-8').send(body);
}

/** The forms post to this origin only: a missing Origin (older browsers) is allowed, another is not. */
function sameOrigin(request: FastifyRequest, origin: string): boolean {
  const header = request.headers.origin;
  return header === undefined || header === origin;
}

/**
 * An account as a bank shows it to its customer: a UK sort code and number as `04-00-04 12345678`,
 * an IBAN in groups of four; anything else as the TPP sent it.
 */
export function accountText(account: { SchemeName?: string; Identification: string }): string {
  const id = account.Identification.replace(/\s+/g, '');
  if (account.SchemeName === 'UK.OBIE.SortCodeAccountNumber' && /^\d{14}$/.test(id)) {
    return `${id.slice(0, 2)}-${id.slice(2, 4)}-${id.slice(4, 6)} ${id.slice(6)}`;
  }
  if (account.SchemeName === 'UK.OBIE.IBAN') return spacedIban(id);
  return account.Identification;
}
