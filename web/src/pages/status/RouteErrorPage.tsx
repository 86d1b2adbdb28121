import { Heading } from '../../components/Heading.tsx';
import { PageShell } from '../../components/PageShell.tsx';

/** Last resort when a page fails to render: still a page, never a blank screen. */
export const RouteErrorPage = () => (
  <PageShell variant="hosted" brand="Secure payment" title="Something went wrong">
    <div className="notice notice--problem">
      <Heading>Something went wrong</Heading>
      <p>This page could not be shown. Reload it to try again; nothing has been paid from this page.</p>
      <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
        Reload
      </button>
    </div>
  </PageShell>
);
