import type pg from 'pg';

/**
 * Sandbox Bank EU's customer and euro accounts (in the bank's one `accounts` table, with
 * `currency` EUR and the IBAN as identification). The UK face lists its own customer's accounts
 * only, so neither face ever offers the other's.
 */
export const EU_BANK = {
  id: 'sandbox-bank-eu',
  name: 'Sandbox Bank EU',
  country: 'DE',
  bic: 'SNDBDEB1XXX',
} as const;

export const EU_CUSTOMER = {
  username: 'lena.schmidt',
  password: 'sandbox-bank',
  name: 'Lena Schmidt',
} as const;

export interface EuAccount {
  id: string;
  name: string;
  iban: string;
  balance: string;
}

export const EU_ACCOUNTS: readonly EuAccount[] = [
  {
    id: 'eu-current',
    name: 'Current account',
    iban: 'DE44999999990000010001',
    balance: '10000.00',
  },
  { id: 'eu-pocket', name: 'Pocket account', iban: 'DE17999999990000010002', balance: '50.00' },
];

/** First start only: later runs keep the balances the payments left. */
export async function seedEuAccounts(pool: pg.Pool): Promise<void> {
  for (const account of EU_ACCOUNTS) {
    await pool.query(
      `insert into accounts (id, customer, name, scheme_name, identification, balance, currency)
       values ($1, $2, $3, 'IBAN', $4, $5, 'EUR') on conflict (id) do nothing`,
      [account.id, EU_CUSTOMER.username, account.name, account.iban, account.balance],
    );
  }
}

export async function euAccounts(db: pg.Pool | pg.PoolClient): Promise<EuAccount[]> {
  const { rows } = await db.query<{ id: string; name: string; identification: string; balance: string }>(
    `select id, name, identification, balance from accounts
     where customer = $1 and currency = 'EUR' order by id`,
    [EU_CUSTOMER.username],
  );
  return rows.map((row) => ({ id: row.id, name: row.name, iban: row.identification, balance: row.balance }));
}

/** ISO 13616: the check digits (mod 97 = 1) over the country's length-free shape. */
export function validIban(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return BigInt(digits) % 97n === 1n;
}
