import type { RunningServer } from './server-process.ts';

export interface SuspendedMerchantLinks {
  /** A hosted payment page of a suspended organization's payment. */
  hosted: string;
  /** A Mock bank page of another of its payments. */
  mockBank: string;
}

/**
 * A merchant that created two payments and was then suspended by an operator
 * (`org:set-active --active false`): the links its customers still hold.
 */
export async function suspendedMerchantLinks(server: RunningServer): Promise<SuspendedMerchantLinks> {
  const { organizationId } = await server.admin(['org:create', '--name', 'E2E Suspended Shop']);
  const { apiKey } = await server.admin([
    'key:create',
    '--org',
    String(organizationId),
    '--permissions',
    'read,write',
  ]);
  const create = async (flowType: string) => {
    const response = await fetch(`${server.baseUrl}/api/payments`, {
      method: 'POST',
      headers: { 'x-api-key': String(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({
        toAccount: { accountName: 'Suspended Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
        amount: { value: '5.00', currency: 'GBP' },
        redirectUrl: 'https://merchant.example/return?order=9',
        flowType,
      }),
    });
    const envelope = (await response.json()) as { data?: { redirectUrl: string } };
    if (!envelope.data) throw new Error(`create failed: ${response.status}`);
    return envelope.data.redirectUrl;
  };
  const links = { hosted: await create('HOSTED_PAGES'), mockBank: await create('API_ONLY') };
  await server.admin(['org:set-active', '--org', String(organizationId), '--active', 'false']);
  return links;
}
