import { useState } from 'react';
import { useSession } from '../session/session-context.tsx';

/**
 * The organization's id with "Copy" (issue 34 item 10): the operator's steps in the README
 * (approving a provider, raising limits, verifying a brand) name the organization by it.
 */
export const OrganizationId = () => {
  const { organization } = useSession();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(organization.id);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section aria-labelledby="organization-id-heading" className="section">
      <h2 id="organization-id-heading" className="subheading">
        Organization
      </h2>
      <p className="muted">
        The operator of this service asks for this id to approve a provider, raise your limits or verify your
        brand.
      </p>
      <div className="organization-id">
        <code className="organization-id__value" data-testid="organization-id">
          {organization.id}
        </code>
        <button
          type="button"
          className="button button--small"
          aria-label="Copy organization id"
          onClick={copy}
        >
          Copy
        </button>
      </div>
      <p role="status" className="field__hint">
        {copied === 'yes'
          ? 'Organization id copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the id and copy it.'
            : ''}
      </p>
    </section>
  );
};
