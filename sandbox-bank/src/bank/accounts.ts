import type pg from 'pg';

/** The test customer every sign-in page offers, and the accounts the bank seeds for them. */
export const TEST_CUSTOMER = { username: 'mia.jones', password: 'sandbox-bank', name: 'Mia Jones' } as const;

export interface Account {
  id: string;
  customer: string;
  name: string;
  schemeName: string;
  identification: string;
  balance: string;
}

const SEED: Account[] = [
  {
    id: 'acc-current',
    customer: TEST_CUSTOMER.username,
    name: 'Current account',
    schemeName: 'UK.OBIE.SortCodeAccountNumber',
    identification: '60161331926819',
    balance: '10000.00',
  },
  {
    id: 'acc-savings',
    customer: TEST_CUSTOMER.username,
    name: 'Savings account',
    schemeName: 'UK.OBIE.SortCodeAccountNumber',
    identification: '60161331926820',
    balance: '250.00',
  },
];

/** First start only: later runs keep the balances the payments left. */
export async function seedAccounts(pool: pg.Pool): Promise<void> {
  for (const account of SEED) {
    await pool.query(
      `insert into accounts (id, customer, name, scheme_name, identification, balance)
       values ($1, $2, $3, $4, $5, $6) on conflict (id) do nothing`,
      [
        account.id,
        account.customer,
        account.name,
        account.schemeName,
        account.identification,
        account.balance,
      ],
    );
  }
}

interface AccountRow {
  id: string;
  customer: string;
  name: string;
  scheme_name: string;
  identification: string;
  balance: string;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  customer: row.customer,
  name: row.name,
  schemeName: row.scheme_name,
  identification: row.identification,
  balance: row.balance,
});

export async function accountsOf(pool: pg.Pool, customer: string): Promise<Account[]> {
  const { rows } = await pool.query<AccountRow>('select * from accounts where customer = $1 order by id', [
    customer,
  ]);
  return rows.map(toAccount);
}

export async function findAccount(db: pg.Pool | pg.PoolClient, id: string): Promise<Account | undefined> {
  const { rows } = await db.query<AccountRow>('select * from accounts where id = $1', [id]);
  return rows[0] ? toAccount(rows[0]) : undefined;
}

/** Test hook and demo reset: set a balance (a decimal string). */
export async function setBalance(pool: pg.Pool, id: string, balance: string): Promise<void> {
  await pool.query('update accounts set balance = $2 where id = $1', [id, balance]);
}
