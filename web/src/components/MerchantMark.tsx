import type { CSSProperties } from 'react';
import type { PageBrand } from '../api/page-types.ts';

/**
 * Who asks to be paid, on a page framed by someone else (the Mock bank): a verified merchant's
 * logo and name with its accent, or nothing at all (the page names the merchant in words anyway).
 */
export const MerchantMark = ({ brand, name }: { brand: PageBrand | null | undefined; name: string }) =>
  brand ? (
    <p
      className="merchant-mark"
      data-testid="merchant-mark"
      style={brand.accentColor ? ({ '--accent': brand.accentColor } as CSSProperties) : undefined}
    >
      {brand.logoUrl ? <img className="merchant-mark__logo" src={brand.logoUrl} alt="" height={32} /> : null}
      <span className="merchant-mark__name">{brand.displayName || name}</span>
    </p>
  ) : null;
