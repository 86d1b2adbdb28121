import { MOCK_BANK_CATALOGUE, type MockBankDefinition, REAL_PROVIDER_BANKS } from '@pis/shared';
import escapeHtml from 'escape-html';
import type { FastifyInstance } from 'fastify';
import { sendFailure } from '../http/fastify-failure.ts';

const FILLER = new Set([
  'sandbox',
  'bank',
  'test',
  'practice',
  'de',
  'la',
  'del',
  'the',
  '(sandbox)',
  'banque',
  'banco',
]);

/** Two letters that identify the bank: "Thames Mutual" -> "TM", "Albion" -> "Al". */
function bankInitials(bank: Pick<MockBankDefinition, 'name' | 'displayName'>): string {
  const words = (bank.displayName ?? bank.name)
    .split(/\s+/)
    .filter((word) => !FILLER.has(word.toLowerCase()));
  const [first = bank.name, second] = words;
  const letters = second ? `${first.charAt(0)}${second.charAt(0)}` : first.slice(0, 2);
  return letters.charAt(0).toUpperCase() + letters.slice(1);
}

/** A round badge in the bank's brand colour with its initials: fictional banks need no real logos. */
function bankLogoSvg(bank: MockBankDefinition): string {
  const color = /^#[0-9a-fA-F]{3,8}$/.test(bank.brandColor) ? bank.brandColor : '#334155';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${escapeHtml(
    bank.name,
  )}"><circle cx="32" cy="32" r="32" fill="${color}"/><text x="32" y="32" dy="0.35em" text-anchor="middle" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="24" font-weight="600" fill="#ffffff">${escapeHtml(
    bankInitials(bank),
  )}</text></svg>`;
}

const LOGOS = new Map(
  [...MOCK_BANK_CATALOGUE, ...REAL_PROVIDER_BANKS].map((bank) => [`${bank.id}.svg`, bankLogoSvg(bank)]),
);

/**
 * `/bank-logos/<bankId>.svg`, public like any image a page embeds (a logo reveals nothing an
 * organization's scope protects). Built once at start; browsers may cache them for a day.
 */
export async function bankLogoRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { file: string } }>('/bank-logos/:file', async (request, reply) => {
    const svg = LOGOS.get(request.params.file);
    if (!svg) return sendFailure(reply, { status: 404, body: { message: 'Logo not found' } });
    return reply
      .header('content-type', 'image/svg+xml; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(svg);
  });
}
