import { AccountToken } from './account-token.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { DashboardSession } from './dashboard-session.entity.ts';
import { DashboardUser } from './dashboard-user.entity.ts';
import { IdempotencyKey } from './idempotency-key.entity.ts';
import { Invitation } from './invitation.entity.ts';
import { MailDelivery } from './mail-delivery.entity.ts';
import { ObieAuthorization, ObieAuthorizationRequest } from './obie-authorization.entity.ts';
import { Organization } from './organization.entity.ts';
import { OrganizationBrand } from './organization-brand.entity.ts';
import { OrganizationProvider } from './organization-provider.entity.ts';
import { Payment } from './payment.entity.ts';
import { PaymentCount } from './payment-count.entity.ts';
import { PaymentDayOutcome } from './payment-day-outcome.entity.ts';
import { PaymentDayVolume } from './payment-day-volume.entity.ts';
import { PaymentHistory } from './payment-history.entity.ts';
import { ProviderClaim } from './provider-claim.entity.ts';
import { RateLimitWindow } from './rate-limit-window.entity.ts';
import { SavedPayee } from './saved-payee.entity.ts';

/** Every entity the ORM knows. A new entity is one import and one entry here (plus its migration). */
export const ENTITIES = [
  Organization,
  OrganizationProvider,
  OrganizationBrand,
  ApiKey,
  Payment,
  PaymentHistory,
  IdempotencyKey,
  ProviderClaim,
  RateLimitWindow,
  DashboardUser,
  DashboardSession,
  PaymentCount,
  PaymentDayOutcome,
  PaymentDayVolume,
  ObieAuthorization,
  ObieAuthorizationRequest,
  AccountToken,
  MailDelivery,
  Invitation,
  SavedPayee,
];

export {
  AccountToken,
  ApiKey,
  DashboardSession,
  DashboardUser,
  IdempotencyKey,
  Invitation,
  MailDelivery,
  ObieAuthorization,
  ObieAuthorizationRequest,
  Organization,
  OrganizationBrand,
  OrganizationProvider,
  Payment,
  PaymentCount,
  PaymentDayOutcome,
  PaymentDayVolume,
  PaymentHistory,
  ProviderClaim,
  RateLimitWindow,
  SavedPayee,
};
