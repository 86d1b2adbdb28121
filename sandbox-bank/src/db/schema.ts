/**
 * The bank's tables (schema `sandbox_bank`, set as the search path). Version 1: created with
 * `if not exists`, so every start may run it; a later change adds statements below.
 */
export const SCHEMA_SQL = `
create table if not exists oidc_payloads (
  type text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (type, id)
);
create index if not exists oidc_payloads_grant on oidc_payloads (grant_id);
create index if not exists oidc_payloads_uid on oidc_payloads (uid);
create index if not exists oidc_payloads_expires on oidc_payloads (expires_at);

create table if not exists accounts (
  id text primary key,
  customer text not null,
  name text not null,
  scheme_name text not null,
  identification text not null,
  balance numeric(18, 2) not null check (balance >= 0)
);

create table if not exists consents (
  id text primary key,
  client_id text not null,
  status text not null,
  created_at timestamptz not null,
  status_updated_at timestamptz not null,
  data jsonb not null,
  risk jsonb not null,
  debtor_account_id text references accounts (id),
  grant_id text
);
create index if not exists consents_grant on consents (grant_id);

create table if not exists payments (
  id text primary key,
  consent_id text not null unique references consents (id),
  client_id text not null,
  status text not null,
  status_reason text,
  created_at timestamptz not null,
  status_updated_at timestamptz not null,
  next_step_at timestamptz,
  history jsonb not null default '[]',
  data jsonb not null
);
create index if not exists payments_next_step on payments (next_step_at) where next_step_at is not null;

create table if not exists idempotency_keys (
  client_id text not null,
  kind text not null,
  key text not null,
  body_hash text not null,
  resource_id text not null,
  created_at timestamptz not null default now(),
  primary key (client_id, kind, key)
);

create table if not exists event_notifications (
  id bigserial primary key,
  client_id text not null,
  resource_id text not null,
  resource_type text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  delivered_at timestamptz,
  given_up_at timestamptz,
  last_error text
);
create index if not exists event_notifications_due on event_notifications (next_attempt_at)
  where delivered_at is null and given_up_at is null;

-- Sandbox Bank EU (Berlin Group NextGenPSD2, src/xs2a): euro accounts beside the pound ones, and
-- its payments. A payment holds its own SCA (one authorisation: the redirect approach).
alter table accounts add column if not exists currency text not null default 'GBP';

create table if not exists xs2a_payments (
  id text primary key,
  tpp_id text not null,
  product text not null,
  status text not null,
  created_at timestamptz not null,
  status_updated_at timestamptz not null,
  next_step_at timestamptz,
  history jsonb not null default '[]',
  data jsonb not null,
  debtor_account_id text references accounts (id),
  funds_available boolean,
  authorisation_id text not null unique,
  sca_status text not null,
  sca_session_hash text,
  redirect_uri text not null,
  nok_redirect_uri text
);
create index if not exists xs2a_payments_next_step on xs2a_payments (next_step_at) where next_step_at is not null;
-- The customer's address as the TPP gave it (PSU-IP-Address), kept as a bank keeps it for its fraud checks.
alter table xs2a_payments add column if not exists psu_ip_address text;
`;
