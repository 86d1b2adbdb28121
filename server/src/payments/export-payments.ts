import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXPORT_COLUMNS, type PaymentFilters } from '@pis/shared';
import { stringify } from 'csv-stringify';
import { catchUpOverdue } from './catch-up-payments.ts';
import { type ExportCursor, exportPaymentPage } from './payment-store.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';

/** Rows read per query: big enough that a million rows is a thousand short queries. */
export const EXPORT_PAGE_SIZE = 1000;

export interface ExportOptions {
  pageSize?: number;
  /** Told each page read (tests: that a cancelled export stops reading). */
  onPage?: (rows: number) => void;
}

/**
 * GET /payments/export: every payment matching the filters as CSV, newest first, as a stream.
 * Memory stays flat at a million rows: keyset pages of EXPORT_PAGE_SIZE are read only as fast
 * as the client takes the bytes (Readable.from pulls the next page when csv-stringify's buffer
 * drains), and nothing is held between pages. When the client goes away, Fastify destroys the
 * stream, the pipeline destroys the source, and the generator's loop ends before its next query.
 * Cells a spreadsheet would run as a formula (=, +, -, @, tab, CR first) get a leading `'`
 * (csv-stringify's escape_formulas).
 */
export async function exportPayments(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  filters: PaymentFilters,
  options: ExportOptions = {},
): Promise<Readable> {
  const organization = caller.organizationId;
  const inMode = { ...filters, mode: modeOf(caller) };
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  // Statuses as of now, like the list (the worker may lag).
  await catchUpOverdue(deps, organization);
  async function* rows() {
    let after: ExportCursor | null = null;
    for (;;) {
      const page = await exportPaymentPage(deps.em.fork(), organization, inMode, after, pageSize);
      options.onPage?.(page.length);
      for (const { record } of page) yield EXPORT_COLUMNS.map((column) => column.cell(record));
      const last = page.at(-1);
      if (page.length < pageSize || !last) return;
      after = last.cursor;
    }
  }
  const csv = stringify({
    header: true,
    columns: EXPORT_COLUMNS.map((column) => column.header),
    escape_formulas: true,
  });
  pipeline(Readable.from(rows()), csv).catch((error: unknown) => {
    // A client that left early is routine; anything else is worth a line (the answer is cut short).
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      deps.logger.error({ err: error }, 'payment export failed');
    }
  });
  return csv;
}
