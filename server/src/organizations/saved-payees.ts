import { AppError, randomId, type SavedPayee as SavedPayeeView, type SavePayeeInput } from '@pis/shared';
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import { SavedPayee } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/** Enough for a merchant's own accounts (a currency each, a shop each), and a bound on the table. */
export const MAX_SAVED_PAYEES = 20;

type SavePayee = z.output<typeof import('@pis/shared').SavePayeeInput>;

const view = (row: SavedPayee): SavedPayeeView => ({
  id: row.id,
  label: row.label,
  account: {
    accountName: row.account.accountName,
    ...(row.account.sortCode ? { sortCode: row.account.sortCode } : {}),
    ...(row.account.accountNumber ? { accountNumber: row.account.accountNumber } : {}),
    ...(row.account.iban ? { iban: row.account.iban } : {}),
  },
  createdAt: row.createdAt.toISOString(),
});

/** The organization's saved payee accounts, by label. */
export async function listSavedPayees(em: EntityManager, organizationId: string): Promise<SavedPayeeView[]> {
  const rows = await em
    .fork()
    .find(SavedPayee, { organization: organizationId }, { orderBy: { label: 'asc', id: 'asc' } });
  return rows.map(view);
}

/**
 * Saves a payee account the create contract's `toAccount` schema already took (the procedure's
 * input is shared `SavePayeeInput`): an invalid sort code or IBAN never reaches this function.
 */
export async function savePayee(
  em: EntityManager,
  organizationId: string,
  input: SavePayee,
  clock: Clock,
): Promise<SavedPayeeView> {
  const fork = em.fork();
  return fork.transactional(async (tx) => {
    // Counted under the organization's row lock, so two racing saves cannot both be the 21st.
    await tx
      .getConnection()
      .execute(
        'select id from organization where id = ? for update',
        [organizationId],
        'all',
        tx.getTransactionContext(),
      );
    if ((await tx.count(SavedPayee, { organization: organizationId })) >= MAX_SAVED_PAYEES) {
      throw new AppError(
        'FORBIDDEN',
        `You already have ${MAX_SAVED_PAYEES} saved payee accounts, the most you may keep: remove one first`,
      );
    }
    const { accountName, sortCode, accountNumber, iban } = input.account;
    const row = tx.create(SavedPayee, {
      id: randomId('payee'),
      organization: organizationId,
      label: input.label,
      account: iban ? { accountName, iban } : { accountName, sortCode, accountNumber },
      createdAt: clock.now(),
    });
    await tx.persist(row).flush();
    return view(row);
  });
}

/** Removes one of the organization's saved payees; another organization's id is "not found". */
export async function removeSavedPayee(
  em: EntityManager,
  organizationId: string,
  payeeId: string,
): Promise<void> {
  const removed = await em.fork().nativeDelete(SavedPayee, { id: payeeId, organization: organizationId });
  if (removed === 0) throw new AppError('NOT_FOUND', 'No such saved payee');
}

export type { SavePayeeInput };
