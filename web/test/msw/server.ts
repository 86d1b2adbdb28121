import { setupServer } from 'msw/node';

/** One MSW server for every component test; each test adds the handlers it needs. */
export const server = setupServer();
