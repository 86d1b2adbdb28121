import {
  InvitationWithdrawn,
  Invited,
  InviteInput,
  MemberIdInput,
  MemberRemoved,
  MemberRoleSet,
  SetRoleInput,
  TeamList,
  WithdrawInvitationInput,
} from '@pis/shared';
import { z } from 'zod';
import { accountDeps } from '../accounts/account-deps.ts';
import { invite, listTeam, removeMember, setMemberRole, withdrawInvitation } from '../accounts/team.ts';
import { audited } from '../observability/audit-log.ts';
import { accountMutation, sessionQuery, teamChange } from '../trpc/dashboard-procedures.ts';
import { router } from '../trpc/trpc.ts';

/**
 * The Team page (issue 24 item 5): members and open invitations for every role; inviting,
 * changing roles and removing members for Owners (accounts/roles.ts); leaving for anyone but the
 * last owner. Each change is in the audit log.
 */
export const teamRouter = router({
  list: sessionQuery
    .input(z.void())
    .output(TeamList)
    .query(({ ctx }) => listTeam(ctx.em, ctx.caller.organizationId, ctx.clock.now())),

  invite: teamChange
    .input(InviteInput)
    .output(Invited)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'team.invited', target: input.email, details: { role: input.role } }, () =>
        invite(
          accountDeps(ctx),
          {
            userId: ctx.session.userId,
            sessionId: ctx.session.id,
            email: ctx.session.email,
            emailVerified: ctx.session.emailVerified,
            organizationId: ctx.caller.organizationId,
          },
          input,
          ctx.setHeader,
        ),
      ),
    ),

  setRole: teamChange
    .input(SetRoleInput)
    .output(MemberRoleSet)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        (member) => ({ action: 'team.role_changed', target: member.email, details: { role: member.role } }),
        () => setMemberRole(ctx.em, ctx.caller.organizationId, input.userId, input.role),
      ),
    ),

  remove: teamChange
    .input(MemberIdInput)
    .output(MemberRemoved)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        (removed) => ({ action: 'team.member_removed', target: removed.email }),
        () => removeMember(ctx.em, ctx.caller.organizationId, input.userId),
      ),
    ),

  withdrawInvitation: teamChange
    .input(WithdrawInvitationInput)
    .output(InvitationWithdrawn)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'team.invitation_withdrawn', target: input.email }, () =>
        withdrawInvitation(ctx.em, ctx.caller.organizationId, input.email, ctx.clock.now()),
      ),
    ),

  /** Leaving the organization: the member's own account goes (and this session with it). */
  leave: accountMutation
    .input(z.void())
    .output(MemberRemoved)
    .mutation(async ({ ctx }) => {
      const removed = await audited(
        ctx,
        (left) => ({ action: 'team.member_removed', target: left.email, details: { left: true } }),
        () => removeMember(ctx.em, ctx.caller.organizationId, ctx.session.userId),
      );
      ctx.dashboard.clearSessionCookie();
      return removed;
    }),
});
