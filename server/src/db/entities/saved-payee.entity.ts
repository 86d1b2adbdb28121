import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

/** A saved payee's account, as the create contract normalised it (`toAccount` of POST /payments). */
export interface SavedPayeeAccount {
  accountName: string;
  sortCode?: string | undefined;
  accountNumber?: string | undefined;
  iban?: string | undefined;
}

/**
 * One of a merchant's own receiving accounts, saved once in Settings and chosen in New payment
 * (issue 34 item 10). Written only through organizations/saved-payees.ts, after the create
 * contract's `toAccount` schema took it: nothing here the API would refuse.
 */
export const SavedPayee = defineEntity({
  name: 'SavedPayee',
  tableName: 'saved_payee',
  properties: {
    id: p.string().primary().length(40),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    label: p.string().length(60),
    account: p.json<SavedPayeeAccount>(),
    createdAt: p.datetime(),
  },
});
export type SavedPayee = InferEntity<typeof SavedPayee>;
