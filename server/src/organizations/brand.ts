import { createHash } from 'node:crypto';
import { validationFailed } from '@pis/shared';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { Organization, OrganizationBrand } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { checkedLogo, LOGO_MAX_BYTES, logoBytes } from './brand-logo.ts';
import { loadOrganization } from './organization-admin.ts';

/**
 * A merchant's brand on its customer pages (issue 34 item 14): a display name, a logo and an
 * accent colour, set in the dashboard (Settings > Brand) and shown on the hosted picker and the
 * Mock bank page only once an operator verified the organization (`org:verify`). Until then the
 * pages show the service's own look and the organization's name as plain text, so a free
 * sign-up cannot dress a phishing page on our domain. Every check happens before anything is
 * stored: a refused brand changes nothing.
 */

/** The customer pages' background (web/src/styles.css `--page`): the accent must read on it. */
export const PAGE_BACKGROUND = '#f3f4f7';
/** WCAG 2 AA for normal text: the accent colours text, links and the buttons' white text. */
export const MIN_CONTRAST = 4.5;

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const luminance = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};
/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export const contrastRatio = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

export const BrandInput = z.object({
  displayName: z.string().trim().min(1).max(60).nullable(),
  accentColor: z
    .string()
    .trim()
    .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour as #rrggbb' })
    .transform((value) => value.toLowerCase())
    .nullable(),
  /**
   * The logo's bytes in base64 (PNG or SVG); null removes it; absent keeps the one stored.
   * Bounded here too: the request's own limit is 100 KB.
   */
  logo: z
    .string()
    .max(LOGO_MAX_BYTES * 2, {
      error: `is too large: a logo may be at most ${LOGO_MAX_BYTES / 1024} KB`,
    })
    .nullable()
    .optional(),
});
export type BrandInput = z.input<typeof BrandInput>;

export const BrandSettings = z.object({
  /** The operator verified the organization: the brand is on its customer pages. */
  verified: z.boolean(),
  displayName: z.string().nullable(),
  accentColor: z.string().nullable(),
  /** Where the logo is served from (our origin), or null. Served only once verified. */
  logoUrl: z.string().nullable(),
});
export type BrandSettings = z.infer<typeof BrandSettings>;

/** What a customer page shows of the merchant: its brand once verified, else nothing but its name. */
export interface PageBrand {
  displayName: string;
  accentColor: string | null;
  logoUrl: string | null;
}

export const logoPath = (organizationId: string, hash: string, type: string) =>
  `/brand-logos/${encodeURIComponent(organizationId)}/${hash}.${type === 'image/png' ? 'png' : 'svg'}`;

const settingsOf = (organization: Organization, brand: OrganizationBrand | null): BrandSettings => ({
  verified: organization.verifiedAt != null,
  displayName: brand?.displayName ?? null,
  accentColor: brand?.accentColor ?? null,
  logoUrl:
    brand?.logoHash && brand.logoType ? logoPath(organization.id, brand.logoHash, brand.logoType) : null,
});

export async function brandSettings(em: EntityManager, organizationId: string): Promise<BrandSettings> {
  const fork = em.fork();
  const organization = await loadOrganization(fork, organizationId);
  const brand = await fork.findOne(OrganizationBrand, { organization: organizationId });
  return settingsOf(organization, brand);
}

/** Checks everything, then stores the brand in one write; a refusal (VALIDATION_FAILED) stores nothing. */
export async function setBrand(
  em: EntityManager,
  organizationId: string,
  input: BrandInput,
  clock: Clock,
): Promise<BrandSettings> {
  const parsed = BrandInput.safeParse(input);
  if (!parsed.success) {
    throw validationFailed(
      parsed.error.issues.map((issue) => ({
        field: issue.path.join('.') || 'brand',
        message: issue.message,
      })),
    );
  }
  const { displayName, accentColor, logo } = parsed.data;
  if (accentColor) {
    const ratio = contrastRatio(accentColor, PAGE_BACKGROUND);
    if (ratio < MIN_CONTRAST) {
      throw validationFailed([
        {
          field: 'accentColor',
          message: `has a contrast of ${ratio.toFixed(1)}:1 against the page's background: at least ${MIN_CONTRAST}:1 is needed to be read (choose a darker colour)`,
        },
      ]);
    }
  }
  const checked = logo ? checkedLogo(logoBytes(logo)) : null;

  const fork = em.fork();
  const organization = await loadOrganization(fork, organizationId);
  const stored = await fork.findOne(
    OrganizationBrand,
    { organization: organizationId },
    { populate: ['logo'] },
  );
  const brand =
    stored ??
    fork.create(OrganizationBrand, {
      organization: organizationId,
      displayName: null,
      accentColor: null,
      logo: null,
      logoType: null,
      logoHash: null,
      updatedAt: clock.now(),
    });
  brand.displayName = displayName;
  brand.accentColor = accentColor;
  if (checked) {
    brand.logo = checked.bytes;
    brand.logoType = checked.type;
    brand.logoHash = createHash('sha256').update(checked.bytes).digest('hex');
  } else if (logo === null) {
    brand.logo = null;
    brand.logoType = null;
    brand.logoHash = null;
  }
  brand.updatedAt = clock.now();
  await fork.flush();
  return settingsOf(organization, brand);
}

/** `org:verify`: the operator checked who this merchant is; its brand is shown from now on. Idempotent. */
export async function verifyOrganization(
  em: EntityManager,
  organizationId: string,
  verified: boolean,
  clock: Clock,
) {
  const fork = em.fork();
  const organization = await loadOrganization(fork, organizationId);
  if (verified) organization.verifiedAt ??= clock.now();
  else organization.verifiedAt = null;
  await fork.flush();
  return { organizationId, verified, verifiedAt: organization.verifiedAt?.toISOString() ?? null };
}

/** The brand a customer page shows, or null (not verified, or nothing set): never the logo's bytes. */
export async function pageBrand(
  em: EntityManager,
  organization: { id: string; verified: boolean },
): Promise<PageBrand | null> {
  if (!organization.verified) return null;
  const brand = await em
    .fork()
    .findOne(
      OrganizationBrand,
      { organization: organization.id },
      { fields: ['displayName', 'accentColor', 'logoType', 'logoHash'] },
    );
  if (!brand || (!brand.displayName && !brand.accentColor && !brand.logoHash)) return null;
  return {
    displayName: brand.displayName ?? '',
    accentColor: brand.accentColor ?? null,
    logoUrl:
      brand.logoHash && brand.logoType ? logoPath(organization.id, brand.logoHash, brand.logoType) : null,
  };
}

/** The logo's bytes for its URL: only a verified organization's, and only the current one. */
export async function brandLogo(
  em: EntityManager,
  organizationId: string,
  hash: string,
): Promise<{ bytes: Buffer; type: string } | null> {
  const fork = em.fork();
  const organization = await fork.findOne(Organization, { id: organizationId }, { fields: ['verifiedAt'] });
  if (!organization?.verifiedAt) return null;
  const brand = await fork.findOne(
    OrganizationBrand,
    { organization: organizationId, logoHash: hash },
    { fields: ['logo', 'logoType'] },
  );
  if (!brand?.logo || !brand.logoType) return null;
  return { bytes: Buffer.from(brand.logo), type: brand.logoType };
}
