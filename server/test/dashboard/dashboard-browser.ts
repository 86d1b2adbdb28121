import { DASHBOARD_CSRF_HEADER, DASHBOARD_SESSION_COOKIE, type DashboardSession } from '@pis/shared';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export interface TrpcFailure {
  status: number;
  message: string;
  code: string | undefined;
  details: { field: string; message: string }[] | undefined;
}

let counter = 0;
/** A unique, valid sign-up. */
export const signUpInput = (overrides: Record<string, unknown> = {}) => ({
  businessName: 'Acme Coffee Ltd',
  email: `owner${++counter}-${Date.now()}@acme.example`,
  password: 'correct horse battery staple',
  ...overrides,
});

/**
 * A browser on the dashboard: keeps the session cookie the server sets and sends the CSRF token
 * on mutations the way the web app does, over real HTTP handling (`app.inject`).
 */
export class DashboardBrowser {
  cookie: string | undefined;
  csrfToken: string | undefined;
  readonly app: FastifyInstance;
  readonly address: string;

  constructor(app: FastifyInstance, address = '203.0.113.10') {
    this.app = app;
    this.address = address;
  }

  async query(path: string, input?: unknown): Promise<LightMyRequestResponse> {
    const search = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return this.#remember(
      await this.app.inject({
        method: 'GET',
        url: `/trpc/dashboard.${path}${search}`,
        headers: this.#cookieHeader(),
        remoteAddress: this.address,
      }),
    );
  }

  /** `csrf`: the header to send; default the session's token (or a placeholder before sign-in). */
  async mutation(
    path: string,
    input?: unknown,
    options: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const csrf = options.csrf === undefined ? (this.csrfToken ?? '1') : options.csrf;
    return this.#remember(
      await this.app.inject({
        method: 'POST',
        url: `/trpc/dashboard.${path}`,
        headers: {
          ...this.#cookieHeader(),
          ...(csrf === null ? {} : { [DASHBOARD_CSRF_HEADER]: csrf }),
          // As the tRPC client sends it: always this content type, no body for a void input.
          'content-type': 'application/json',
        },
        ...(input === undefined ? {} : { payload: JSON.stringify(input) }),
        remoteAddress: this.address,
      }),
    );
  }

  async signUp(overrides: Record<string, unknown> = {}): Promise<DashboardSession & { password: string }> {
    const input = signUpInput(overrides);
    const session = data<DashboardSession>(await this.mutation('account.signUp', input));
    this.csrfToken = session.csrfToken;
    return { ...session, password: input.password };
  }

  async signIn(email: string, password: string): Promise<DashboardSession> {
    const session = data<DashboardSession>(await this.mutation('account.signIn', { email, password }));
    this.csrfToken = session.csrfToken;
    return session;
  }

  #cookieHeader(): Record<string, string> {
    return this.cookie ? { cookie: `${DASHBOARD_SESSION_COOKIE}=${this.cookie}` } : {};
  }

  #remember(response: LightMyRequestResponse): LightMyRequestResponse {
    const set = response.cookies.find((cookie) => cookie.name === DASHBOARD_SESSION_COOKIE);
    if (set) this.cookie = set.value === '' ? undefined : set.value;
    return response;
  }
}

export function data<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { result: { data: T } }).result.data;
}

export function failure(response: LightMyRequestResponse, status: number): TrpcFailure {
  expect(response.statusCode, response.body).toBe(status);
  const { error } = response.json() as {
    error: { message: string; data: { appError: { code?: string; details?: TrpcFailure['details'] } } };
  };
  expect(JSON.stringify(error)).not.toMatch(/node_modules|\.ts:\d+/);
  return {
    status,
    message: error.message,
    code: error.data.appError.code,
    details: error.data.appError.details,
  };
}
