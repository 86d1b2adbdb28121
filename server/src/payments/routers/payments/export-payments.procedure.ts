import { EXPORT_COLUMNS, ExportPaymentsQuery } from '@pis/shared';
import { StreamedAnswer, StreamedAnswerOutput } from '../../../http/streamed-answer.ts';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { readProcedure } from '../../../trpc/trpc.ts';
import { exportPayments } from '../../export-payments.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

const EXAMPLE = [
  EXPORT_COLUMNS.map((column) => column.header).join(','),
  'pay_01JD3Z6W3R9Q2M7X4T5V8N1KCE,2026-11-24T09:15:02.123Z,2026-11-24T09:16:40.511Z,2026-11-24T09:16:40.511Z,' +
    '2026-11-25T09:15:02.123Z,COMPLETED,ACSC,,10.50,GBP,INV-2026-001,E2E-INV-2026-001,Acme Ltd,12-34-56 12345678,mock,mock-bank',
  "pay_01JD3Z9B7K2F6H8J1M4P0Q3RST,2026-11-24T08:02:11.004Z,2026-11-24T08:32:11.004Z,,2026-11-25T08:02:11.004Z,FAILED,RJCT,AM04,25.00,EUR,'=HYPERLINK(...),E2E-2,Bolt & Sons,DE89370400440532013000,mock,mock-bank",
].join('\n');

/** GET /payments/export: the list's filters, every match as CSV (export-payments.ts). */
export const exportPaymentsProcedure = readProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/payments/export',
      tags: ['Payments'],
      summary: 'Export payments as CSV',
      description:
        'Every payment matching the filters of `GET /payments` (no pages), newest first, as CSV with a ' +
        'header row: id, times (UTC, ISO 8601), status, ISO status and reason, amount as written, ' +
        'currency, reference, end-to-end id, payee name and account, provider and bank. Streamed: a ' +
        'million rows start arriving at once. A cell that a spreadsheet would run as a formula ' +
        "(starting with `=`, `+`, `-`, `@`, tab or CR) is written with a leading `'`.",
    },
    streamed: {
      contentType: 'text/csv; charset=utf-8',
      description: 'The payments as CSV (RFC 4180, header row first).',
      example: EXAMPLE,
    },
    errors: paymentErrorResponses(400, 401, 403),
  })
  .input(ExportPaymentsQuery)
  .output(StreamedAnswerOutput)
  .query(
    async ({ ctx, input }) =>
      new StreamedAnswer(
        'text/csv; charset=utf-8',
        await exportPayments(paymentsDeps(ctx), ctx.caller, input),
        { 'content-disposition': 'attachment; filename="payments.csv"', 'cache-control': 'no-store' },
      ),
  );
