/** Hands the customer over to another site (bank page, merchant's return URL). */
export const leavePage = (url: string): void => {
  window.location.assign(url);
};
