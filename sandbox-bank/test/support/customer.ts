import { TEST_CUSTOMER } from '../../src/bank/accounts.ts';

/**
 * The customer at the bank's pages without a browser: follows redirects by hand with a cookie
 * jar, signs in, then approves (choosing an account) or rejects. Returns the URL the bank
 * finally sends the customer to (the client's redirect URI with the JARM `response`).
 */
export async function customerAt(
  authorizationUrl: URL,
  redirectUri: string,
  decision: { action: 'approve' | 'reject'; account?: string },
): Promise<string> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair?.indexOf('=') ?? -1;
      if (pair && index > 0) jar.set(pair.slice(0, index), pair.slice(index + 1));
    }
  };
  let url = authorizationUrl.href;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(redirectUri)) return url;
    const origin = new URL(url).origin;
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        cookie: cookieHeader(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded', origin } : {}),
      },
      body,
    });
    remember(response);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      url = new URL(response.headers.get('location') ?? '', url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200)
      throw new Error(`bank page ${url} answered ${response.status}: ${page.slice(0, 300)}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`no form on ${url}: ${page.slice(0, 300)}`);
    url = new URL(action, url).href;
    method = 'POST';
    body = action.endsWith('/login')
      ? new URLSearchParams({ username: TEST_CUSTOMER.username, password: TEST_CUSTOMER.password }).toString()
      : new URLSearchParams({
          action: decision.action,
          account: decision.account ?? 'acc-current',
        }).toString();
  }
  throw new Error('too many redirects at the bank');
}
