import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs } from '@trpc/server';
import { dashboardTrpc } from '../api/dashboard-client.ts';

type Inputs = inferRouterInputs<AppRouter>['dashboard'];

/** The Team page's and the invitation page's calls (issue 24 item 5). */
export const teamApi = {
  list: (signal: AbortSignal) => dashboardTrpc.dashboard.team.list.query(undefined, { signal }),
  invite: (input: Inputs['team']['invite']) => dashboardTrpc.dashboard.team.invite.mutate(input),
  setRole: (input: Inputs['team']['setRole']) => dashboardTrpc.dashboard.team.setRole.mutate(input),
  remove: (userId: string) => dashboardTrpc.dashboard.team.remove.mutate({ userId }),
  withdrawInvitation: (email: string) => dashboardTrpc.dashboard.team.withdrawInvitation.mutate({ email }),
  invitation: (token: string, signal: AbortSignal) =>
    dashboardTrpc.dashboard.account.invitation.query({ token }, { signal }),
  acceptInvitation: (input: Inputs['account']['acceptInvitation']) =>
    dashboardTrpc.dashboard.account.acceptInvitation.mutate(input),
};

export type TeamRole = Inputs['team']['invite']['role'];

export const ROLES: { value: TeamRole; label: string; can: string }[] = [
  { value: 'owner', label: 'Owner', can: 'everything, and the team' },
  { value: 'developer', label: 'Developer', can: 'API keys, payments, settings' },
  { value: 'support', label: 'Support', can: 'payments: view, cancel, re-send links' },
  { value: 'viewer', label: 'Viewer', can: 'read only' },
];

export const roleLabel = (role: TeamRole) => ROLES.find((entry) => entry.value === role)?.label ?? role;
