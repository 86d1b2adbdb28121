import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { type Html, html, page, payFromAndDecide, spacedIban } from '../pages/html.ts';
import { EU_BANK, EU_CUSTOMER, type EuAccount, euAccounts } from './accounts.ts';
import {
  approve,
  authenticatePsu,
  findByAuthorisation,
  refuse,
  sessionHash,
  type Xs2aPayment,
} from './payments.ts';

/**
 * Sandbox Bank EU's pages for the customer (the redirect SCA approach), on the bank's customer
 * host under `/xs2a/sca/{authorisationId}` (the `scaRedirect` link): sign in (prefilled), then
 * see the payment, choose the account, "Approve payment" or "Reject", and go back to the TPP's
 * `TPP-Redirect-URI` (or `TPP-Nok-Redirect-URI` after a refusal). The sign-in is kept in a
 * cookie for this one authorisation (only its hash is stored), so the link alone cannot approve.
 */
export interface Xs2aPagesContext {
  pool: pg.Pool;
  pagesOrigin: string;
  stepMs: number;
}

const AUTHORISATION_ID = /^sca-[0-9a-f]{32}$/;
const COOKIE = 'xs2a_sca';
const brand = EU_BANK.name;

export function registerXs2aPages(app: FastifyInstance, context: Xs2aPagesContext): void {
  const { pool } = context;
  const base = (id: string) => `/xs2a/sca/${id}`;

  app.get<{ Params: { id: string } }>('/xs2a/sca/:id', async (request, reply) => {
    const payment = await waiting(pool, request, reply);
    if (!payment) return;
    if (!signedIn(request, payment)) {
      return send(
        reply,
        'Sign in',
        html`<h1>Sign in to ${brand}</h1>
<p>To pay ${euros(payment.data.instructedAmount.amount)} to ${payment.data.creditorName}.</p>
<form method="post" action="${base(payment.authorisationId)}/login">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" value="${EU_CUSTOMER.username}" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" value="${EU_CUSTOMER.password}" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
      );
    }
    const accounts = payableFrom(payment, await euAccounts(pool));
    // The decision's form ends in a redirect to the TPP: the page's form-action must allow its origins.
    const targets = [payment.redirectUri, payment.nokRedirectUri].filter(
      (uri): uri is string => uri !== null,
    );
    reply.header('content-security-policy', pagesCsp(targets.map((uri) => new URL(uri).origin)));
    return send(
      reply,
      'Approve payment',
      html`<h1>Approve this payment</h1>
<dl>
<dt>Payee</dt><dd>${payment.data.creditorName}</dd>
<dt>IBAN</dt><dd>${spacedIban(payment.data.creditorAccount.iban)}</dd>
<dt>Amount</dt><dd>${euros(payment.data.instructedAmount.amount)}</dd>
<dt>Reference</dt><dd>${payment.data.remittanceInformationUnstructured ?? payment.data.endToEndIdentification ?? '-'}</dd>
</dl>
<form method="post" action="${base(payment.authorisationId)}/decision">
${payFromAndDecide(accounts.map((account) => ({ id: account.id, label: `${account.name} (${spacedIban(account.iban)}), balance ${euros(account.balance)}` })))}
</form>`,
    );
  });

  app.post<{ Params: { id: string }; Body: Record<string, string> }>(
    '/xs2a/sca/:id/login',
    async (request, reply) => {
      if (!sameOrigin(request, context.pagesOrigin)) return reply.code(403).send('Forbidden');
      const payment = await waiting(pool, request, reply);
      if (!payment) return;
      const { username, password } = request.body ?? {};
      if (username !== EU_CUSTOMER.username || password !== EU_CUSTOMER.password) {
        return send(
          reply.code(401),
          'Sign in',
          html`<h1>Sign in to ${brand}</h1><p class="error" role="alert">That username and password do not match. The test customer is ${EU_CUSTOMER.username} / ${EU_CUSTOMER.password}.</p><p><a href="${base(payment.authorisationId)}">Try again</a></p>`,
        );
      }
      const secret = await authenticatePsu(pool, payment.id);
      if (!secret) return reply.redirect(base(payment.authorisationId), 303);
      reply.header(
        'set-cookie',
        `${COOKIE}=${secret}; Path=${base(payment.authorisationId)}; HttpOnly; SameSite=Lax; Max-Age=1800`,
      );
      return reply.redirect(base(payment.authorisationId), 303);
    },
  );

  app.post<{ Params: { id: string }; Body: Record<string, string> }>(
    '/xs2a/sca/:id/decision',
    async (request, reply) => {
      if (!sameOrigin(request, context.pagesOrigin)) return reply.code(403).send('Forbidden');
      const payment = await waiting(pool, request, reply);
      if (!payment) return;
      if (!signedIn(request, payment)) return reply.redirect(base(payment.authorisationId), 303);
      if (request.body?.action === 'reject') {
        if (!(await refuse(pool, payment.id))) return reply.redirect(base(payment.authorisationId), 303);
        return reply.redirect(payment.nokRedirectUri ?? payment.redirectUri, 303);
      }
      const account = payableFrom(payment, await euAccounts(pool)).find(
        (item) => item.id === request.body?.account,
      );
      if (request.body?.action !== 'approve' || !account)
        return reply.redirect(base(payment.authorisationId), 303);
      if (!(await approve(pool, payment.id, account.id, context.stepMs)))
        return reply.redirect(base(payment.authorisationId), 303);
      return reply.redirect(payment.redirectUri, 303);
    },
  );
}

/** The payment this link is for, still awaiting the customer; else a page that says why not. */
async function waiting(
  pool: pg.Pool,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<Xs2aPayment | undefined> {
  const { id } = request.params;
  const payment = AUTHORISATION_ID.test(id) ? await findByAuthorisation(pool, id) : undefined;
  if (!payment) {
    send(
      reply.code(404),
      'Unknown payment',
      html`<h1>We cannot find this payment</h1><p>Go back to the shop and start the payment again.</p>`,
    );
    return undefined;
  }
  if (payment.status !== 'RCVD') {
    const why =
      payment.status === 'CANC'
        ? 'The shop cancelled this payment.'
        : payment.status === 'RJCT'
          ? 'This payment was rejected.'
          : 'This payment is already approved.';
    send(
      reply.code(409),
      'Payment closed',
      html`<h1>This payment is closed</h1><p>${why} Go back to the shop.</p>`,
    );
    return undefined;
  }
  return payment;
}

function signedIn(request: FastifyRequest, payment: Xs2aPayment): boolean {
  if (payment.scaStatus !== 'psuAuthenticated' || !payment.scaSessionHash) return false;
  const cookie = request.headers.cookie ?? '';
  const secret = cookie
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
  return secret !== undefined && sessionHash(secret) === payment.scaSessionHash;
}

function payableFrom(payment: Xs2aPayment, accounts: EuAccount[]): EuAccount[] {
  const named = payment.debtorAccountId;
  return named ? accounts.filter((account) => account.id === named) : accounts;
}

function pagesCsp(formTargets: string[]): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self' ${[...new Set(formTargets)].join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function send(reply: FastifyReply, title: string, body: Html) {
  return reply.type('text/html; charset=utf-8').send(page(title, body, brand));
}

/** `10000.00` -> `€10,000.00`, on the decimal string. */
export function euros(amount: string): string {
  const [whole = '0', fraction = '00'] = amount.split('.');
  return `€${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction.padEnd(2, '0')}`;
}

function sameOrigin(request: FastifyRequest, origin: string): boolean {
  const header = request.headers.origin;
  return header === undefined || header === origin;
}
