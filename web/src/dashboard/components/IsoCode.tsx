import { useId } from 'react';

interface IsoCodeProps {
  code: string;
  /** The code's meaning: its ISO 20022 name and, where known, a sentence. */
  meaning: string;
}

/**
 * An ISO 20022 code (RJCT, AM04...) with its meaning shown on hover and on keyboard focus, and
 * read out as the code's description by screen readers. Few merchants know the codes by heart.
 */
export const IsoCode = ({ code, meaning }: IsoCodeProps) => {
  const id = useId();
  return (
    <span className="term">
      {/* Focusable so keyboard users can read the meaning too. */}
      <abbr className="term__code" tabIndex={0} aria-describedby={id}>
        {code}
      </abbr>
      <span role="tooltip" id={id} className="term__tip">
        {meaning}
      </span>
    </span>
  );
};
