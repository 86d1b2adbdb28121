import { ApiKey } from './api-key.entity.ts';
import { IdempotencyKey } from './idempotency-key.entity.ts';
import { Organization } from './organization.entity.ts';
import { OrganizationProvider } from './organization-provider.entity.ts';
import { Payment } from './payment.entity.ts';
import { PaymentCount } from './payment-count.entity.ts';
import { PaymentHistory } from './payment-history.entity.ts';

/** Every entity the ORM knows. A new entity is one import and one entry here (plus its migration). */
export const ENTITIES = [
  Organization,
  OrganizationProvider,
  ApiKey,
  Payment,
  PaymentHistory,
  PaymentCount,
  IdempotencyKey,
];

export { ApiKey, IdempotencyKey, Organization, OrganizationProvider, Payment, PaymentCount, PaymentHistory };
