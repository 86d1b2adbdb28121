import { useState } from 'react';
import type { Bank } from '../api/page-types.ts';

export const bankName = (bank: Bank): string => bank.displayName || bank.name;

/** The bank's logo in a fixed box; its initials when there is no logo or it fails to load. */
export const BankLogo = ({ bank }: { bank: Bank }) => {
  const [failed, setFailed] = useState(false);
  if (bank.logoUrl && !failed) {
    return (
      <img
        className="bank-logo"
        src={bank.logoUrl}
        alt=""
        width={32}
        height={32}
        loading="lazy"
        decoding="async"
        onError={() => setFailed(true)}
      />
    );
  }
  const initials = bankName(bank)
    .split(/\s+/)
    .filter((word) => /^[\p{L}\p{N}]/u.test(word))
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase())
    .join('');
  return (
    <span className="bank-logo bank-logo--initials" aria-hidden="true">
      {initials}
    </span>
  );
};
