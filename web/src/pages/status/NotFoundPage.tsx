import { Heading } from '../../components/Heading.tsx';
import { PageShell } from '../../components/PageShell.tsx';

/** Any address that is not a payment link. */
export const NotFoundPage = () => (
  <PageShell variant="hosted" brand="Secure payment" title="Page not found">
    <div className="notice notice--problem">
      <Heading>Page not found</Heading>
      <p>This address is not a payment link. Open the link you received from the merchant.</p>
    </div>
  </PageShell>
);
