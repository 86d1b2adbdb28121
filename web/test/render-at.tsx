import { render } from '@testing-library/react';
import { App } from '../src/app.tsx';

/**
 * Renders the SPA as if the customer opened `path`: the address bar is set first, since the
 * app reads it as the browser would (the customer pages from `location.pathname`, the
 * dashboard through its BrowserRouter).
 */
export const renderAt = (path: string) => {
  window.history.replaceState(null, '', path);
  return render(<App />);
};
