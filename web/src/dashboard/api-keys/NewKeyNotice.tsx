import { useEffect, useRef, useState } from 'react';
import type { CreatedApiKey } from '../api/dashboard-api.ts';

/**
 * The new key, shown this once: the server keeps only its hash. Focus moves here so keyboard
 * and screen reader users land on it; "Done" forgets it for good.
 */
export const NewKeyNotice = ({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => heading.current?.focus(), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <section className="new-key" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading" className="subheading" tabIndex={-1} ref={heading}>
        Your new API key “{created.apiKey.name}”
      </h2>
      <p className="new-key__warning">
        <strong>Copy it now: it will not be shown again.</strong> We store only a fingerprint of it. If you
        lose it, revoke it and create a new one.
      </p>
      <div className="new-key__value">
        <code data-testid="new-api-key">{created.secret}</code>
        <button type="button" className="button" onClick={copy}>
          Copy key
        </button>
      </div>
      <p role="status" className="new-key__copied">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the key and copy it.'
            : ''}
      </p>
      <button type="button" className="button button--primary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
};
